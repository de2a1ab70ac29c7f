/**
 * The building blocks of the 64-bit simhash (see simhash.ts for the scheme and text-digest.ts for
 * the pass that feeds them): character classes, per-token hashing and the stopword set; the table
 * that counts distinct tokens and turns their weighted votes into 64 bits is feature-table.ts.
 */

const STOPWORDS = (
  'a about above after again against all also am an and any are as at be because been before being below ' +
  'between both but by can could did do does doing down during each few for from further had has have having ' +
  'he her here hers herself him himself his how i if in into is it its itself just me more most my myself no ' +
  'nor not now of off on once only or other our ours out over own same she should so some such than that the ' +
  'their theirs them themselves then there these they this those through to too under until up very was we ' +
  'were what when where which while who whom why will with would you your yours'
).split(' ');

export const STOPWORD_WEIGHT = 0.3;

export function fmixA(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

export function fmixB(h: number): number {
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
export const SALT_B = 0x5bd1e995 | 0;

export const FNV_PRIME = 0x01000193;

export function step(h: number, c: number): number {
  return Math.imul(h ^ c, FNV_PRIME);
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

// Stopword keys in a small open-addressing set, probed once per distinct token, behind an 8-Kbit
// filter that turns almost every other token away with one load.
const STOP_SLOTS = 512;
const stopKeys = new Int32Array(STOP_SLOTS);
const stopUsed = new Uint8Array(STOP_SLOTS);
const stopFilter = new Int32Array(256); // 8 Kbit: 1 KB that stays in cache, ~1.5% of other tokens probe the set
for (const w of STOPWORDS) {
  let key = SEED;
  for (let i = 0; i < w.length; i++) key = step(key, w.charCodeAt(i));
  let slot = mix(key) & (STOP_SLOTS - 1);
  while (stopUsed[slot] === 1) slot = (slot + 1) & (STOP_SLOTS - 1);
  stopKeys[slot] = key;
  stopUsed[slot] = 1;
  const bit = mix(key) >>> 19;
  stopFilter[bit >>> 5] |= 1 << (bit & 31);
}

export function isStopword(key: number): boolean {
  const m = mix(key);
  if ((stopFilter[m >>> 24] & (1 << ((m >>> 19) & 31))) === 0) return false;
  for (let slot = m & (STOP_SLOTS - 1); stopUsed[slot] === 1; slot = (slot + 1) & (STOP_SLOTS - 1)) {
    if (stopKeys[slot] === key) return true;
  }
  return false;
}

/** FNV's low bits depend on few inputs: mixed before a key picks a slot. */
export function mix(key: number): number {
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
