// Words as the focus model sees them: lower-cased runs of letters and digits, hashed (FNV-1a) to a
// bucket of a fixed-size table, frequent English words dropped, a plural "s" folded ("hives" counts
// as "hive"). No strings are made per word: a page's words cost one pass over its characters.

/** Buckets of every hashed table of the model: 2^18 floats are 1 MB, and a few thousand example words rarely collide. */
export const TABLE_BITS = 18;
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

const frequent = new Set(FREQUENT.map((w) => bucketOf(wordHash(w))));

/** Lower-case code of a word character, or -1 for anything that ends a word. */
function wordChar(c: number): number {
  if (c >= 0x61 && c <= 0x7a) return c;
  if (c >= 0x30 && c <= 0x39) return c;
  if (c >= 0x41 && c <= 0x5a) return c | 0x20;
  if (c < 0xc0) return -1;
  if (c <= 0xde && c !== 0xd7) return c + 0x20; // Latin-1 capitals
  if (c <= 0x24f) return c; // Latin letters
  if (c >= 0x370 && c <= 0x1fff) return c; // Greek, Cyrillic, Armenian, Hebrew, Arabic, Indic…
  if (c >= 0x3040 && c <= 0x9fff) return c; // kana, CJK
  return -1;
}

/**
 * Calls `each(bucket)` for every kept word of `s.slice(start, end)`, in order; returns how many.
 * A word is kept when it has 3 to 24 characters, is not all digits and is not a frequent English word.
 */
export function scanWords(s: string, start: number, end: number, each: (bucket: number) => void): number {
  let kept = 0;
  let h = SEED, before = SEED, len = 0, letters = 0, last = 0;
  for (let i = start; i <= end; i++) {
    const c = i < end ? wordChar(s.charCodeAt(i)) : -1;
    if (c >= 0) {
      before = h;
      h = step(h, c);
      len++;
      last = c;
      if (c > 0x39) letters++;
      continue;
    }
    if (len >= MIN_WORD && len <= MAX_WORD && letters > 0) {
      // "hives" is "hive", "mites" is "mite"; "glass" stays "glass".
      const key = last === 0x73 && len > 4 && (s.charCodeAt(i - 2) | 0x20) !== 0x73 ? before : h;
      const bucket = bucketOf(key);
      if (!frequent.has(bucket)) {
        each(bucket);
        kept++;
      }
    }
    h = SEED;
    len = 0;
    letters = 0;
  }
  return kept;
}

/** Words of a URL worth scoring: its path and query, split at anything but letters and digits. */
export function urlWordsRange(url: string): [number, number] {
  // Past "scheme://host": the host's own words say little about one page (the online weights learn hosts).
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  return slash < 0 ? [url.length, url.length] : [slash, url.length];
}
