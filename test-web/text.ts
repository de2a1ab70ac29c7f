// Deterministic text for the synthetic web: a seeded PRNG plus word generators. Everything a page shows is a
// pure function of (scenario, host, page), so a test run and its expected outcomes always agree.

/** 32-bit FNV-1a: stable seeds from names, so adding a host does not reshuffle the others' content. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: tiny, fast, and good enough for picking words and links. */
export class Rng {
  private state: number;
  constructor(seed: number | string) {
    this.state = (typeof seed === 'string' ? hashString(seed) : seed) >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  hex(chars: number): string {
    let s = '';
    while (s.length < chars) s += this.int(0x10000).toString(16).padStart(4, '0');
    return s.slice(0, chars);
  }
}

export const COMMON_WORDS: readonly string[] = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they ' +
  'one you were all she there would their we him been has when who will no more if out so said what up its about ' +
  'than into them can only other new some could time these two may then do first any my now such like our over ' +
  'man me even most made after also did many before must through back years where much your way well down should ' +
  'because each just those people how too little state good very make world still own see men work long get here ' +
  'between both life being under never day same another know while last might us great old year off come since ' +
  'against go came right used take three'
).split(' ');

const ONSETS = ['b', 'c', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'st', 'tr', 'qu'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'io', 'ou'];
const CODAS = ['', '', 'n', 'r', 's', 'l', 'm', 'x', 'nd', 'rt'];

/** Invented words: each article draws most of its words from its own pseudo-vocabulary, so two distinct
 *  articles differ in their word statistics too (a shared vocabulary would make every simhash look alike). */
export function pseudoWords(rng: Rng, count: number): string[] {
  const words = new Set<string>();
  while (words.size < count) {
    let w = '';
    const syllables = rng.range(2, 3);
    for (let i = 0; i < syllables; i++) w += rng.pick(ONSETS) + rng.pick(VOWELS) + rng.pick(CODAS);
    words.add(w);
  }
  return [...words];
}

/** Paragraphs totalling exactly `words` words: ~75% from the article's own vocabulary, the rest common words. */
export function articleParagraphs(seed: string, words: number): string[] {
  const rng = new Rng(seed);
  const vocab = pseudoWords(rng, 180);
  const paragraphs: string[] = [];
  let left = words;
  while (left > 0) {
    const n = Math.min(left, rng.range(40, 90));
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      // Zipf-like skew (squared uniform) keeps a few topic words frequent, as in real prose.
      const w = rng.next() < 0.75 ? vocab[Math.floor(rng.next() ** 2 * vocab.length)] : rng.pick(COMMON_WORDS);
      out.push(i === 0 ? w[0].toUpperCase() + w.slice(1) : w);
    }
    paragraphs.push(out.join(' ') + '.');
    left -= n;
  }
  return paragraphs;
}

export function titleCase(words: string[]): string {
  return words.map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');
}

/** A short title of invented words, distinct per seed. */
export function inventTitle(seed: string, words = 3): string {
  return titleCase(pseudoWords(new Rng(`title:${seed}`), words));
}
