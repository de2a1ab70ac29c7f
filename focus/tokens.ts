// Words as the focus model sees them: lower-cased runs of letters and digits, hashed (FNV-1a) to a
// bucket of a fixed-size table, frequent English words dropped, a plural "s" folded ("hives" counts
// as "hive"). No strings are made per word: a page's words cost one pass over its characters.

/** Buckets of every hashed table of the model: 2^16 floats are 256 KB (the hot tables stay in cache), and a few thousand example words rarely collide. */
export const TABLE_BITS = 16;
export const TABLE_SIZE = 1 << TABLE_BITS;
const MASK = TABLE_SIZE - 1;
const MIN_WORD = 3;
const MAX_WORD = 24;

// The ~300 most frequent English words carry no topic: dropping them is the background a model
// built from a handful of examples cannot learn by itself.
const FREQUENT = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they ' +
  'one you were all she there would their we him been has when who will no more if out so said what up its about ' +
  'than into them can only other new some could time these two may then do first any my now such like our over ' +
  'man me even most made after also did many before must through back years where much your way well down should ' +
  'because each just those people how too little state good very make world still own see men work long get here ' +
  'between both life being under never day same another know while last might us great old year off come since ' +
  'against go came right used take three her hers herself him himself how i if into itself just me more myself nor ' +
  'once ours ourselves shall theirs themselves then therefore these they this those though thus until upon was ' +
  'whatever whether which while whom whose why within without yet yours yourself part place week case point group ' +
  'number fact hand area problem question example idea result change reason season weekend morning evening small ' +
  'large early late best simple useful important common careful regular practical guide tips notes advice list ' +
  'plan start need help keep look find show try use learn read write share visit open close bring move check watch ' +
  'follow begin finish improve explain describe local community members thing things lot lots way ways today ' +
  'tomorrow yesterday always often sometimes usually really quite almost already again away around every few ' +
  'full half high low next often once second several short small sure thank thanks told took turn went whole ' +
  'able across along although among anyone anything become becomes could did does doing done either else enough ' +
  'ever everyone everything far found gave give given going gone got however kind least less let likely makes ' +
  'making maybe mean means meet might mine mostly near nearly need needs nothing per perhaps put rather real ' +
  'said say says seem seems set side since someone something soon still take taken tell ten than that thing think ' +
  'third though top toward under unless upon used using various via want wants whether wide will within would ' +
  'home page site contact about privacy terms news click here more read'
).split(' ');

export const SEED = 0x811c9dc5 | 0;

export function step(h: number, c: number): number {
  return Math.imul(h ^ c, 0x01000193);
}

/** The table bucket of a word's hash. */
export function bucketOf(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return (h ^ (h >>> 16)) & MASK;
}

/** The hash of one word, as the scanner computes it (tests, stop-list). */
export function wordHash(word: string): number {
  let h = SEED;
  for (let i = 0; i < word.length; i++) h = step(h, word.charCodeAt(i));
  return h;
}

/** A bit per bucket, set at each frequent word's: one load per word from 8 KB that stay in cache. */
const frequent = new Uint8Array(TABLE_SIZE >> 3);
for (const w of FREQUENT) {
  const b = bucketOf(wordHash(w));
  frequent[b >> 3] |= 1 << (b & 7);
}

/** Lower-case code of each ASCII character that belongs to a word, -1 for the others. */
const ASCII = new Int16Array(128).fill(-1);
for (let c = 0x30; c <= 0x39; c++) ASCII[c] = c;
for (let c = 0x61; c <= 0x7a; c++) ASCII[c] = c;
for (let c = 0x41; c <= 0x5a; c++) ASCII[c] = c | 0x20;

/** Lower-case code of a word character beyond ASCII, or -1 for anything that ends a word. */
function wideWordChar(c: number): number {
  if (c < 0xc0) return -1;
  if (c <= 0xde && c !== 0xd7) return c + 0x20; // Latin-1 capitals
  if (c <= 0x24f) return c; // Latin letters
  if (c >= 0x370 && c <= 0x1fff) return c; // Greek, Cyrillic, Armenian, Hebrew, Arabic, Indic…
  if (c >= 0x3040 && c <= 0x9fff) return c; // kana, CJK
  return -1;
}

/** "hives" is "hive", "mites" is "mite"; "glass" stays "glass". The word is s.slice(end - len, end). */
function plural(s: string, end: number, len: number): boolean {
  return len > 4 && (s.charCodeAt(end - 1) | 0x20) === 0x73 && (s.charCodeAt(end - 2) | 0x20) !== 0x73;
}

/** The hash of the word characters s.slice(start, end), as the scanner makes it. */
function hashOf(s: string, start: number, end: number): number {
  let h = SEED;
  for (let i = start; i < end; i++) {
    const code = s.charCodeAt(i);
    h = Math.imul(h ^ (code < 128 ? ASCII[code] : wideWordChar(code)), 0x01000193);
  }
  return h;
}

/**
 * The kept words of a text as table buckets, in order, with where each ends, in buffers reused from
 * call to call. A word is kept when it has 3 to 24 characters, is not all digits and is not a frequent
 * English word.
 */
export class WordScanner {
  buckets = new Int32Array(1024);
  /** ends[i]: the index just past word i in the text scanned. */
  ends = new Int32Array(1024);

  /** Scans `s.slice(start, end)`; writes its words from index `at` on; returns the count of words written in all. */
  scan(s: string, start: number, end: number, at = 0): number {
    let kept = at;
    let h = SEED, len = 0, digits = 0;
    for (let i = start; i <= end; i++) {
      let c = -1;
      if (i < end) {
        const code = s.charCodeAt(i);
        c = code < 128 ? ASCII[code] : wideWordChar(code);
        if (c >= 0) {
          h = Math.imul(h ^ c, 0x01000193);
          len++;
          if (c < 0x3a) digits++;
          continue;
        }
      }
      if (len >= MIN_WORD && len <= MAX_WORD && digits < len) {
        const bucket = bucketOf(plural(s, i, len) ? hashOf(s, i - len, i - 1) : h);
        if ((frequent[bucket >> 3] & (1 << (bucket & 7))) === 0) {
          if (kept === this.buckets.length) this.grow();
          this.buckets[kept] = bucket;
          this.ends[kept++] = i;
        }
      }
      h = SEED;
      len = 0;
      digits = 0;
    }
    return kept;
  }

  private grow(): void {
    const buckets = new Int32Array(this.buckets.length * 2);
    buckets.set(this.buckets);
    const ends = new Int32Array(this.ends.length * 2);
    ends.set(this.ends);
    this.buckets = buckets;
    this.ends = ends;
  }
}

const scanner = new WordScanner();

/** Calls `each(bucket)` for every kept word of `s.slice(start, end)`, in order; returns how many. */
export function scanWords(s: string, start: number, end: number, each: (bucket: number) => void): number {
  const n = scanner.scan(s, start, end);
  const buckets = scanner.buckets;
  for (let i = 0; i < n; i++) each(buckets[i]);
  return n;
}

/** Where a URL's path starts (its length when it has none): the host's own words say little of one page. */
export function pathStartOf(url: string): number {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  return slash < 0 ? url.length : slash;
}
