// The page model: how close a text is to the user's example pages. Each text is a bag of hashed
// words with sublinear counts (1 + ln n), scaled to unit length; the model is the mean of the
// examples' bags minus half the mean of the counterexamples' (Rocchio), negative weights dropped, and
// a page's relevance is the cosine between its bag and the model: 0 (nothing in common) to 1.
// No training service, no download: a few milliseconds at start, then one pass over a page's words.
import { TABLE_SIZE, WordScanner } from './tokens.js';

/**
 * A page is judged on its title (counted twice) and two stretches of its text, 1,200 characters in
 * all: its start (a lead, or the menus) and its middle (the body, past any menus): enough words to
 * tell its subject, at a bounded cost (scoring is paid on every page parsed: ~40 µs a bench page in
 * a parse thread, within the 50 µs focus may add).
 */
export const SCORED_CHARS = 1_200;
const START_CHARS = 500;

/** What is read of a page's text: all of it up to SCORED_CHARS, else its start and its middle, joined by a line break. */
export function scoredText(text: string): string {
  if (text.length <= SCORED_CHARS) return text;
  const middle = Math.max(START_CHARS, (text.length >> 1) - ((SCORED_CHARS - START_CHARS) >> 1));
  return `${text.slice(0, START_CHARS)}\n${text.slice(middle, middle + SCORED_CHARS - START_CHARS)}`;
}
export const TITLE_WEIGHT = 2;
/** An example is a page the user chose: all of it (up to this much) makes the model. */
const MAX_EXAMPLE_READ = 16_000;
const COUNTER_WEIGHT = 0.5;

/** Word counts of one text, reused from text to text without allocating. */
export class Bag {
  private readonly slotOf = new Int32Array(TABLE_SIZE).fill(-1);
  private readonly scanner = new WordScanner();
  readonly buckets: number[] = [];
  readonly counts: number[] = [];

  add(bucket: number, weight = 1): void {
    const slot = this.slotOf[bucket];
    if (slot >= 0) {
      this.counts[slot] += weight;
      return;
    }
    this.slotOf[bucket] = this.buckets.length;
    this.buckets.push(bucket);
    this.counts.push(weight);
  }

  /** Adds the words of `s.slice(start, end)`, each with `weight`. */
  addText(s: string, start = 0, end = s.length, weight = 1): void {
    if (end <= start) return;
    const n = this.scanner.scan(s, start, end);
    const words = this.scanner.buckets;
    for (let i = 0; i < n; i++) this.add(words[i], weight);
  }

  /** Adds `n` words given as buckets. */
  addBuckets(buckets: Int32Array, n: number, weight = 1): void {
    for (let i = 0; i < n; i++) this.add(buckets[i], weight);
  }

  clear(): void {
    for (const b of this.buckets) this.slotOf[b] = -1;
    this.buckets.length = 0;
    this.counts.length = 0;
  }

  /** Cosine between this bag (sublinear counts) and a weight table of norm `norm`. */
  cosine(weights: Float32Array, norm: number): number {
    if (norm === 0) return 0;
    let dot = 0, sq = 0;
    const { buckets, counts } = this;
    for (let i = 0; i < buckets.length; i++) {
      const tf = 1 + Math.log(counts[i]);
      sq += tf * tf;
      dot += tf * weights[buckets[i]];
    }
    return sq === 0 || dot <= 0 ? 0 : Math.min(1, dot / (Math.sqrt(sq) * norm));
  }

  /** Adds this bag, scaled to unit length and by `scale`, into `into`. */
  accumulate(into: Float32Array, scale: number): void {
    let sq = 0;
    for (const c of this.counts) sq += (1 + Math.log(c)) ** 2;
    if (sq === 0) return;
    const k = scale / Math.sqrt(sq);
    for (let i = 0; i < this.buckets.length; i++) into[this.buckets[i]] += k * (1 + Math.log(this.counts[i]));
  }
}

export interface ScoredText {
  title: string;
  text: string;
}

/** A text's bag, scaled to unit length: sparse. */
interface Unit {
  buckets: Int32Array;
  values: Float32Array;
}

export class PageModel {
  readonly weights = new Float32Array(TABLE_SIZE);
  readonly norm: number;
  /** Leave-one-out cosines of the examples: how close a page about the topic comes. */
  readonly exampleScores: number[];
  readonly counterScores: number[];
  /**
   * The cosine of a link's few words that counts as on the topic: half that of the model's four
   * heaviest words together. A link's words are few, so its cosine runs far below a page's.
   */
  readonly linkScale: number;
  /** The weight of a core word of the topic (the model's 16th heaviest): an anchor holding one is a lead. */
  readonly wordScale: number;
  /**
   * The weights in a byte each (of the heaviest's 255ths), what pages are scored with: 64 KB that a
   * parse thread keeps in cache between pages, where 256 KB of floats would be read from memory.
   * `compactNorm` and `compactWordScale` are in the same units.
   */
  readonly compact: Uint8Array;
  readonly compactNorm: number;
  readonly compactWordScale: number;
  private readonly bag = new Bag();

  constructor(examples: readonly string[], counterexamples: readonly string[] = []) {
    if (examples.length === 0) throw new Error('the focus model needs at least one example page');
    const units = examples.map((e) => this.unit(e));
    const pos = new Float32Array(TABLE_SIZE);
    for (const u of units) add(pos, u, 1 / units.length);
    const neg = new Float32Array(TABLE_SIZE);
    for (const c of counterexamples) add(neg, this.unit(c), COUNTER_WEIGHT / counterexamples.length);
    this.norm = sharpen(this.weights, pos, neg);
    this.exampleScores = examples.map((e, i) => this.leaveOneOut(e, units[i], pos, neg, units.length));
    this.counterScores = counterexamples.map((c) => this.scoreText({ title: '', text: c }));
    const heaviest = [...this.weights.keys()].filter((b) => this.weights[b] > 0).sort((x, y) => this.weights[y] - this.weights[x]);
    this.bag.clear();
    for (const b of heaviest.slice(0, 4)) this.bag.add(b);
    this.linkScale = this.bag.cosine(this.weights, this.norm) / 2;
    this.wordScale = this.weights[heaviest[Math.min(15, heaviest.length - 1)]] ?? 0;
    const top = this.weights[heaviest[0]] ?? 0;
    this.compact = Uint8Array.from(this.weights, (w) => (top > 0 ? Math.round((255 * w) / top) : 0));
    this.compactNorm = Math.sqrt(this.compact.reduce((n, q) => n + q * q, 0));
    this.compactWordScale = top > 0 ? (255 * this.wordScale) / top : 0;
    this.bag.clear();
  }

  /** Relevance of a page: the cosine of its title and what is read of its text (scoredText) to the examples. */
  scoreText(page: ScoredText): number {
    this.readPage(page.title, page.text);
    return this.bag.cosine(this.weights, this.norm);
  }

  private readPage(title: string, text: string): Bag {
    const bag = this.bag;
    bag.clear();
    bag.addText(title, 0, title.length, TITLE_WEIGHT);
    bag.addText(scoredText(text));
    return bag;
  }

  /** Cosine of a short text (a link's words) given as a filled bag. */
  scoreBag(bag: Bag): number {
    return bag.cosine(this.weights, this.norm);
  }

  /**
   * The relevance above which a page counts as on the topic, when the user gave none: half the
   * median of how close each example comes to the others (a page sharing half as much with the
   * examples as they share with one another), raised to the midpoint between the counterexamples
   * and the examples when the counterexamples come closer than that.
   */
  suggestedThreshold(): number {
    const median = quantile(this.exampleScores, 0.5);
    let threshold = median / 2;
    if (this.counterScores.length > 0) threshold = Math.max(threshold, (Math.max(...this.counterScores) + median) / 2);
    return round(Math.min(Math.max(threshold, 0.01), 0.99), 3);
  }

  private unit(text: string): Unit {
    const bag = this.bag;
    bag.clear();
    bag.addText(text, 0, Math.min(text.length, MAX_EXAMPLE_READ));
    const u = new Float32Array(TABLE_SIZE);
    bag.accumulate(u, 1);
    const buckets = Int32Array.from(bag.buckets);
    return { buckets, values: Float32Array.from(buckets, (b) => u[b]) };
  }

  /**
   * How close example i comes to a model built from the others (1 when it is the only one),
   * computed from the whole model with the example's share taken out: no model per example.
   */
  private leaveOneOut(text: string, own: Unit, pos: Float32Array, neg: Float32Array, n: number): number {
    if (n === 1) return 1;
    const weights = new Float32Array(TABLE_SIZE);
    const scale = n / (n - 1);
    for (let b = 0; b < TABLE_SIZE; b++) if (pos[b] > 0) weights[b] = pos[b] * scale;
    for (let k = 0; k < own.buckets.length; k++) weights[own.buckets[k]] -= own.values[k] / (n - 1);
    const norm = sharpen(weights, weights, neg);
    return this.readPage('', text).cosine(weights, norm);
  }
}

function add(into: Float32Array, u: Unit, scale: number): void {
  for (let k = 0; k < u.buckets.length; k++) into[u.buckets[k]] += scale * u.values[k];
}

/** weights = max(0, pos − neg) (`weights` may be `pos`); returns their norm. */
function sharpen(weights: Float32Array, pos: Float32Array, neg: Float32Array): number {
  let sq = 0;
  for (let i = 0; i < weights.length; i++) {
    const w = pos[i] - neg[i];
    weights[i] = w > 0 ? w : 0;
    if (w > 0) sq += w * w;
  }
  return Math.sqrt(sq);
}

function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
