/**
 * 64-bit simhash of page text, calibrated so that pages differing by a few words stay within
 * Hamming distance 3 (the near-dup stage's threshold) while unrelated articles under one site
 * template land far apart. See simhash.test.ts for the measured rates.
 *
 * Feature scheme, chosen by measurement (word shingles broke near-duplicates apart; raw term
 * counts let the shared vocabulary of same-topic articles pull them within 3 bits):
 * - token unigrams of the lower-cased text: runs of letters/digits; CJK runs become character
 *   bigrams because those scripts do not separate words with spaces;
 * - every run of digits folds to one '0', so timestamps, counters and prices do not change features;
 * - weight = 1 + ln(term count): sub-linear so no single word dominates, yet a frequent word
 *   losing or gaining one occurrence barely moves the sums;
 * - English function words get 0.3 of that weight: they are shared by every English page and
 *   would otherwise pull unrelated pages together;
 * - each token hashes to 64 bits as two independent 32-bit hashes: FNV-1a and a polynomial
 *   (×31) stream over the folded characters, each finished by its own murmur3-style finalizer.
 *   Distinct tokens are counted in a reusable open-addressing table; the 64 weighted votes of
 *   the many tokens that occur once are counted eight bit-columns per add (4-bit lanes).
 */

const STOPWORDS = (
  'a about above after again against all also am an and any are as at be because been before being below ' +
  'between both but by can could did do does doing down during each few for from further had has have having ' +
  'he her here hers herself him himself his how i if in into is it its itself just me more most my myself no ' +
  'nor not now of off on once only or other our ours out over own same she should so some such than that the ' +
  'their theirs them themselves then there these they this those through to too under until up very was we ' +
  'were what when where which while who whom why will with would you your yours'
).split(' ');

const STOPWORD_WEIGHT = 0.3;

function fmixA(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

function fmixB(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  return (h ^ (h >>> 16)) | 0;
}

const SEED_A = 0x811c9dc5 | 0;
const SEED_B = 0x9747b28c | 0;

function stepA(h: number, c: number): number {
  return Math.imul(h ^ c, 0x01000193);
}

function stepB(h: number, c: number): number {
  return ((h << 5) - h + c) | 0; // h * 31 + c: no multiply in the per-character loop
}

/** Both 32-bit halves of a token's hash; exported for the hash-quality test. */
export function tokenHash64(token: string): [number, number] {
  let a = SEED_A;
  let b = SEED_B;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    a = stepA(a, c);
    b = stepB(b, c);
  }
  return [fmixA(a), fmixB(b)];
}

// Stopword keys in a small open-addressing set: probed once per distinct token.
const STOP_SLOTS = 512;
const stopA = new Int32Array(STOP_SLOTS);
const stopB = new Int32Array(STOP_SLOTS);
const stopUsed = new Uint8Array(STOP_SLOTS);
for (const w of STOPWORDS) {
  const [a, b] = tokenHash64(w);
  let slot = a & (STOP_SLOTS - 1);
  while (stopUsed[slot] === 1) slot = (slot + 1) & (STOP_SLOTS - 1);
  stopA[slot] = a;
  stopB[slot] = b;
  stopUsed[slot] = 1;
}

function isStopword(a: number, b: number): boolean {
  for (let slot = a & (STOP_SLOTS - 1); stopUsed[slot] === 1; slot = (slot + 1) & (STOP_SLOTS - 1)) {
    if (stopA[slot] === a && stopB[slot] === b) return true;
  }
  return false;
}

// Per code unit: its class and its lower-cased, digit-folded form, filled lazily outside ASCII so
// the hot loop is two table reads instead of a full-text toLowerCase() and range tests.
const UNKNOWN = 0, SEPARATOR = 1, WORD = 2, CJK = 3;
const charClass = new Uint8Array(0x10000);
const foldedChar = new Uint16Array(0x10000);

function classify(c: number): number {
  let k: number;
  if (c < 0x80) {
    k = (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) ? WORD : SEPARATOR;
  } else if ((c >= 0x3040 && c <= 0x30ff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0xf900 && c <= 0xfaff)) {
    k = CJK; // scripts written without spaces: hashed as character bigrams
  } else if ((c >= 0xa0 && c <= 0xbf) || c === 0xd7 || c === 0xf7 ||
    (c >= 0x2000 && c <= 0x2bff) || // punctuation, currency, arrows, math, box drawing, shapes
    (c >= 0x3000 && c <= 0x303f) || // CJK punctuation
    (c >= 0xd800 && c <= 0xdfff) || // astral symbols such as emoji
    (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff0f) || (c >= 0xff1a && c <= 0xff20) ||
    (c >= 0xff3b && c <= 0xff40) || (c >= 0xff5b && c <= 0xff65) || c >= 0xfff0) {
    k = SEPARATOR;
  } else {
    k = WORD;
  }
  let folded = c;
  if (c >= 0x30 && c <= 0x39) folded = 0x30;
  else if (k === WORD) {
    const lower = String.fromCharCode(c).toLowerCase();
    if (lower.length === 1) folded = lower.charCodeAt(0); // multi-unit expansions (rare) stay as they are
  }
  foldedChar[c] = folded;
  charClass[c] = k;
  return k;
}
for (let c = 0; c < 0x80; c++) classify(c);

/** Distinct tokens and their counts: open addressing, reused across calls so a page allocates nothing. */
class TokenTable {
  keysA = new Int32Array(4096);
  keysB = new Int32Array(4096);
  counts = new Int32Array(4096); // 0 marks an empty slot
  used = new Int32Array(2048); // occupied slots in insertion order
  size = 0;

  /** Keyed by the raw hash states; finalizing waits until a token is known to be distinct. */
  add(a: number, b: number): void {
    let slot = this.find(a, b);
    if (this.counts[slot] === 0) {
      // Keep the load under 1/2 so probe chains stay short.
      if (this.size === this.used.length) {
        this.grow();
        slot = this.find(a, b);
      }
      this.keysA[slot] = a;
      this.keysB[slot] = b;
      this.used[this.size++] = slot;
    }
    this.counts[slot]++;
  }

  find(a: number, b: number): number {
    const { keysA, keysB, counts } = this;
    const mask = counts.length - 1;
    // The raw states' low bits are weak (FNV's low bits depend on few inputs): mix before masking.
    const h = Math.imul(a ^ b, 0x9e3779b1);
    let slot = (h ^ (h >>> 15)) & mask;
    while (counts[slot] !== 0 && (keysA[slot] !== a || keysB[slot] !== b)) slot = (slot + 1) & mask;
    return slot;
  }

  clear(): void {
    for (let u = 0; u < this.size; u++) this.counts[this.used[u]] = 0;
    this.size = 0;
  }

  private grow(): void {
    const { keysA, keysB, counts, used, size } = this;
    const capacity = counts.length * 2;
    this.keysA = new Int32Array(capacity);
    this.keysB = new Int32Array(capacity);
    this.counts = new Int32Array(capacity);
    this.used = new Int32Array(capacity >> 1);
    for (let u = 0; u < size; u++) {
      const s = used[u];
      const slot = this.find(keysA[s], keysB[s]);
      this.keysA[slot] = keysA[s];
      this.keysB[slot] = keysB[s];
      this.counts[slot] = counts[s];
      this.used[u] = slot;
    }
  }
}

const table = new TokenTable();

function collectTokens(text: string): void {
  const n = text.length;
  let a = SEED_A, b = SEED_B, inWord = false, lastDigit = false;
  let prevCjk = -1; // previous code unit of the current CJK run, -1 outside a run
  let cjkRunLength = 0;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (c >= 0x61 && c <= 0x7a) {
      // Fast path for runs of ASCII lower-case letters, the bulk of most pages' text.
      if (cjkRunLength !== 0) {
        if (cjkRunLength === 1) table.add(stepA(SEED_A, prevCjk), stepB(SEED_B, prevCjk));
        cjkRunLength = 0;
      }
      do {
        a = stepA(a, c);
        b = stepB(b, c);
        c = text.charCodeAt(++i); // NaN past the end, which ends the run
      } while (c >= 0x61 && c <= 0x7a);
      inWord = true;
      lastDigit = false;
      if (i >= n) break;
    }
    i++;
    let k = charClass[c];
    if (k === UNKNOWN) k = classify(c);
    if (k === WORD) {
      if (cjkRunLength !== 0) {
        if (cjkRunLength === 1) table.add(stepA(SEED_A, prevCjk), stepB(SEED_B, prevCjk));
        cjkRunLength = 0;
      }
      const f = foldedChar[c];
      // A run of digits hashes as a single '0': "7 views" and "1234 views" are the same words.
      if (f !== 0x30 || !lastDigit) {
        a = stepA(a, f);
        b = stepB(b, f);
      }
      lastDigit = f === 0x30;
      inWord = true;
      continue;
    }
    lastDigit = false;
    if (inWord) {
      table.add(a, b);
      inWord = false;
      a = SEED_A;
      b = SEED_B;
    }
    if (k === CJK) {
      if (cjkRunLength !== 0) table.add(stepA(stepA(SEED_A, prevCjk), c), stepB(stepB(SEED_B, prevCjk), c));
      prevCjk = c;
      cjkRunLength++;
    } else if (cjkRunLength !== 0) {
      if (cjkRunLength === 1) table.add(stepA(SEED_A, prevCjk), stepB(SEED_B, prevCjk));
      cjkRunLength = 0;
    }
  }
  if (inWord) table.add(a, b);
  if (cjkRunLength === 1) table.add(stepA(SEED_A, prevCjk), stepB(SEED_B, prevCjk));
}

const LOG_WEIGHT = new Float64Array(256).map((_, n) => (n === 0 ? 0 : 1 + Math.log(n)));
// SPREAD[byte] puts bit i of the byte into the 4-bit lane i, so eight bit-columns of up to 15
// tokens can be counted with one add per byte: most tokens occur once and share weight 1.
const SPREAD = new Int32Array(256).map((_, byte) => {
  let lanes = 0;
  for (let i = 0; i < 8; i++) if ((byte >>> i) & 1) lanes |= 1 << (4 * i);
  return lanes;
});
const weighted = new Float64Array(64); // per bit: weight of tokens voting 1
const lanes = new Int32Array(8);

function flushLanes(): void {
  for (let k = 0; k < 8; k++) {
    const v = lanes[k];
    for (let i = 0; i < 8; i++) weighted[8 * k + 7 - i] += (v >>> (4 * i)) & 15;
    lanes[k] = 0;
  }
}

/** 8-byte big-endian simhash of `text`; a text without tokens hashes to all zeros. */
export function simhash64(text: string): Buffer {
  table.clear();
  try {
    collectTokens(text);
    weighted.fill(0);
    lanes.fill(0);
    let pending = 0;
    let total = 0;
    const { keysA, keysB, counts, used, size } = table;
    for (let u = 0; u < size; u++) {
      const s = used[u];
      const n = counts[s];
      const ka = fmixA(keysA[s]), kb = fmixB(keysB[s]);
      const stop = isStopword(ka, kb);
      if (n === 1 && !stop) {
        lanes[0] += SPREAD[ka >>> 24]; lanes[1] += SPREAD[(ka >>> 16) & 255];
        lanes[2] += SPREAD[(ka >>> 8) & 255]; lanes[3] += SPREAD[ka & 255];
        lanes[4] += SPREAD[kb >>> 24]; lanes[5] += SPREAD[(kb >>> 16) & 255];
        lanes[6] += SPREAD[(kb >>> 8) & 255]; lanes[7] += SPREAD[kb & 255];
        total += 1;
        if (++pending === 15) { flushLanes(); pending = 0; }
        continue;
      }
      let w = n < 256 ? LOG_WEIGHT[n] : 1 + Math.log(n);
      if (stop) w *= STOPWORD_WEIGHT;
      total += w;
      for (let j = 0; j < 32; j++) {
        weighted[j] += w * ((ka >>> (31 - j)) & 1);
        weighted[32 + j] += w * ((kb >>> (31 - j)) & 1);
      }
    }
    flushLanes();
    // A bit is set when the tokens voting 1 outweigh those voting 0.
    const half = total / 2;
    let hi = 0, lo = 0;
    for (let j = 0; j < 32; j++) {
      if (weighted[j] > half) hi |= 1 << (31 - j);
      if (weighted[32 + j] > half) lo |= 1 << (31 - j);
    }
    // Not allocUnsafe: a pooled slice would pin an 8 KB slab for as long as a caller keeps the hash.
    const out = Buffer.alloc(8);
    out.writeUInt32BE(hi >>> 0, 0);
    out.writeUInt32BE(lo >>> 0, 4);
    return out;
  } finally {
    table.clear();
  }
}

function popcount32(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

function check8(b: Buffer, name: string): void {
  if (b.length !== 8) throw new RangeError(`${name} must be an 8-byte simhash, got ${b.length} bytes`);
}

export function hammingDistance(a: Buffer, b: Buffer): number {
  check8(a, 'a');
  check8(b, 'b');
  return popcount32((a.readUInt32BE(0) ^ b.readUInt32BE(0)) >>> 0) +
    popcount32((a.readUInt32BE(4) ^ b.readUInt32BE(4)) >>> 0);
}

/** The four 16-bit bands, high first: two simhashes within distance 3 agree exactly on at least one. */
export function bands16(simhash: Buffer): [number, number, number, number] {
  check8(simhash, 'simhash');
  return [simhash.readUInt16BE(0), simhash.readUInt16BE(2), simhash.readUInt16BE(4), simhash.readUInt16BE(6)];
}
