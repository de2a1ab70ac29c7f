/**
 * The building blocks of the 64-bit simhash (see simhash.ts for the scheme and text-digest.ts for
 * the pass that feeds them): character classes, per-token hashing, the stopword set and the table
 * that counts distinct tokens and turns their weighted votes into 64 bits.
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

/**
 * A token is hashed character by character with 32-bit FNV-1a (one multiply per character, the
 * cost that matters); two different finalizers stretch that key to the 64 bits that vote. Two
 * distinct tokens of a page share a key with probability ~n²/2^33 (0.3% of pages with 5,000
 * distinct tokens), which merges two features: no measurable effect on the simhash.
 */
export const SEED = 0x811c9dc5 | 0;
const SALT_B = 0x5bd1e995 | 0;

export function step(h: number, c: number): number {
  return Math.imul(h ^ c, 0x01000193);
}

/** The 64 voting bits of a token key, as two 32-bit halves (high, low). */
export function keyBits(key: number): [number, number] {
  return [fmixA(key), fmixB(key ^ SALT_B)];
}

/** Both 32-bit halves of a token's hash; exported for the hash-quality test. */
export function tokenHash64(token: string): [number, number] {
  let h = SEED;
  for (let i = 0; i < token.length; i++) h = step(h, token.charCodeAt(i));
  return keyBits(h);
}

// Stopword keys in a small open-addressing set, probed once per distinct token, behind a 64-Kbit
// filter that turns almost every other token away with one load.
const STOP_SLOTS = 512;
const stopKeys = new Int32Array(STOP_SLOTS);
const stopUsed = new Uint8Array(STOP_SLOTS);
const stopFilter = new Int32Array(2048);
for (const w of STOPWORDS) {
  let key = SEED;
  for (let i = 0; i < w.length; i++) key = step(key, w.charCodeAt(i));
  let slot = mix(key) & (STOP_SLOTS - 1);
  while (stopUsed[slot] === 1) slot = (slot + 1) & (STOP_SLOTS - 1);
  stopKeys[slot] = key;
  stopUsed[slot] = 1;
  const bit = mix(key) >>> 16;
  stopFilter[bit >>> 5] |= 1 << (bit & 31);
}

function isStopword(key: number): boolean {
  const m = mix(key);
  if ((stopFilter[m >>> 21] & (1 << ((m >>> 16) & 31))) === 0) return false;
  for (let slot = m & (STOP_SLOTS - 1); stopUsed[slot] === 1; slot = (slot + 1) & (STOP_SLOTS - 1)) {
    if (stopKeys[slot] === key) return true;
  }
  return false;
}

/** FNV's low bits depend on few inputs: mixed before a key picks a slot. */
function mix(key: number): number {
  const h = Math.imul(key, 0x9e3779b1);
  return h ^ (h >>> 15);
}

/**
 * Character classes. SPACE is exactly what JavaScript's \s matches (the visible text collapses it
 * to one space); DROP is NUL, which a browser removes from text.
 */
export const UNKNOWN = 0, SEPARATOR = 1, WORD = 2, CJK = 3, SPACE = 4, DROP = 5;
// Per code unit: its class and its lower-cased, digit-folded form, filled lazily outside ASCII so
// the hot loop is two table reads instead of a full-text toLowerCase() and range tests.
export const charClass = new Uint8Array(0x10000);
export const foldedChar = new Uint16Array(0x10000);

function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

export function classify(c: number): number {
  let k: number;
  if (c === 0) {
    k = DROP;
  } else if (isSpace(c)) {
    k = SPACE;
  } else if (c < 0x80) {
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

/** Distinct tokens and their counts: open addressing, reused across pages so a page allocates nothing. */
export class FeatureTable {
  keys = new Int32Array(4096);
  counts = new Int32Array(4096); // 0: empty slot
  used = new Int32Array(2048); // occupied slots in insertion order
  size = 0;

  add(key: number): void {
    let slot = this.find(key);
    if (this.counts[slot] === 0) {
      // Keep the load under 1/2 so probe chains stay short.
      if (this.size === this.used.length) {
        this.grow();
        slot = this.find(key);
      }
      this.keys[slot] = key;
      this.used[this.size++] = slot;
    }
    this.counts[slot]++;
  }

  private find(key: number): number {
    const { keys, counts } = this;
    const mask = counts.length - 1;
    let slot = mix(key) & mask;
    while (counts[slot] !== 0 && keys[slot] !== key) slot = (slot + 1) & mask;
    return slot;
  }

  clear(): void {
    const { used, counts } = this;
    for (let u = 0; u < this.size; u++) counts[used[u]] = 0;
    this.size = 0;
  }

  private grow(): void {
    const { keys, counts, used, size } = this;
    const capacity = keys.length * 2;
    this.keys = new Int32Array(capacity);
    this.counts = new Int32Array(capacity);
    this.used = new Int32Array(capacity >> 1);
    for (let u = 0; u < size; u++) {
      const s = used[u];
      const slot = this.find(keys[s]);
      this.keys[slot] = keys[s];
      this.counts[slot] = counts[s];
      this.used[u] = slot;
    }
  }

  /**
   * The 8-byte big-endian simhash of the tokens counted: each token votes with weight
   * 1 + ln(count) (0.3 of that for stopwords) on each of 64 bits; a bit is set when the votes for 1
   * outweigh those for 0. No tokens: all zeros.
   */
  vote(): Buffer {
    weighted.fill(0);
    classBits.fill(0);
    classTokens.fill(0);
    let total = 0;
    // Lanes of the commonest class (non-stopwords seen once) live in locals: no memory traffic.
    let l0 = 0, l1 = 0, l2 = 0, l3 = 0, l4 = 0, l5 = 0, l6 = 0, l7 = 0, pending = 0;
    const { keys, used, size, counts } = this;
    for (let u = 0; u < size; u++) {
      const s = used[u];
      const n = counts[s];
      if (n === 0) continue;
      const key = keys[s];
      const ka = fmixA(key), kb = fmixB(key ^ SALT_B);
      const stop = isStopword(key);
      if (n === 1 && !stop) {
        l0 += SPREAD[ka >>> 24]; l1 += SPREAD[(ka >>> 16) & 255]; l2 += SPREAD[(ka >>> 8) & 255]; l3 += SPREAD[ka & 255];
        l4 += SPREAD[kb >>> 24]; l5 += SPREAD[(kb >>> 16) & 255]; l6 += SPREAD[(kb >>> 8) & 255]; l7 += SPREAD[kb & 255];
        if (++pending === 15) { // a 4-bit lane holds 15 votes
          addLanes(1, l0, l1, l2, l3, l4, l5, l6, l7);
          l0 = l1 = l2 = l3 = l4 = l5 = l6 = l7 = pending = 0;
        }
        classTokens[1]++;
        continue;
      }
      if (n < COUNT_CLASSES) {
        // Tokens of equal count (and stopword-ness) weigh the same: count their bits as integers,
        // weigh them once below.
        const c = stop ? n + COUNT_CLASSES : n;
        const lane = c * 8;
        classLanes[lane] += SPREAD[ka >>> 24]; classLanes[lane + 1] += SPREAD[(ka >>> 16) & 255];
        classLanes[lane + 2] += SPREAD[(ka >>> 8) & 255]; classLanes[lane + 3] += SPREAD[ka & 255];
        classLanes[lane + 4] += SPREAD[kb >>> 24]; classLanes[lane + 5] += SPREAD[(kb >>> 16) & 255];
        classLanes[lane + 6] += SPREAD[(kb >>> 8) & 255]; classLanes[lane + 7] += SPREAD[kb & 255];
        classTokens[c]++;
        if (++classPending[c] === 15) flushLanes(c);
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
    addLanes(1, l0, l1, l2, l3, l4, l5, l6, l7);
    for (let c = 1; c < 2 * COUNT_CLASSES; c++) {
      if (classTokens[c] === 0) continue;
      flushLanes(c);
      const w = c < COUNT_CLASSES ? LOG_WEIGHT[c] : LOG_WEIGHT[c - COUNT_CLASSES] * STOPWORD_WEIGHT;
      total += w * classTokens[c];
      for (let j = 0; j < 64; j++) weighted[j] += w * classBits[c * 64 + j];
    }
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
  }
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
// Tokens occurring fewer than COUNT_CLASSES times (nearly all) are counted per class of count
// and stopword-ness: eight bit-columns per add in 4-bit lanes, flushed to classBits every 15 tokens.
const COUNT_CLASSES = 16;
const classLanes = new Int32Array(2 * COUNT_CLASSES * 8);
const classPending = new Int32Array(2 * COUNT_CLASSES);
const classBits = new Float64Array(2 * COUNT_CLASSES * 64); // per class and bit: tokens voting 1
const classTokens = new Float64Array(2 * COUNT_CLASSES);

function addLanes(c: number, l0: number, l1: number, l2: number, l3: number, l4: number, l5: number, l6: number, l7: number): void {
  classLanes[c * 8] += l0; classLanes[c * 8 + 1] += l1; classLanes[c * 8 + 2] += l2; classLanes[c * 8 + 3] += l3;
  classLanes[c * 8 + 4] += l4; classLanes[c * 8 + 5] += l5; classLanes[c * 8 + 6] += l6; classLanes[c * 8 + 7] += l7;
  flushLanes(c);
}

function flushLanes(c: number): void {
  for (let k = 0; k < 8; k++) {
    const v = classLanes[c * 8 + k];
    for (let i = 0; i < 8; i++) classBits[c * 64 + 8 * k + 7 - i] += (v >>> (4 * i)) & 15;
    classLanes[c * 8 + k] = 0;
  }
  classPending[c] = 0;
}
