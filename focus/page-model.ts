// The page model: how close a text is to the user's example pages. Each text is a bag of hashed
// words with sublinear counts (1 + ln n), scaled to unit length; the model is the mean of the
// examples' bags minus half the mean of the counterexamples' (Rocchio), negative weights dropped, and
// a page's relevance is the cosine between its bag and the model: 0 (nothing in common) to 1.
// No training service, no download: a few milliseconds at start, then one pass over a page's words.
import { scanWords, TABLE_SIZE } from './tokens.js';

/** A page is judged on its title (counted twice) and the start of its text: enough words to tell its subject, at a bounded cost. */
export const MAX_SCORED_CHARS = 6_000;
const TITLE_WEIGHT = 2;
const COUNTER_WEIGHT = 0.5;

/** Word counts of one text, reused from text to text without allocating. */
export class Bag {
  private readonly slotOf = new Int32Array(TABLE_SIZE).fill(-1);
  readonly buckets: number[] = [];
  readonly counts: number[] = [];

  add = (bucket: number, weight = 1): void => {
    const slot = this.slotOf[bucket];
    if (slot >= 0) {
      this.counts[slot] += weight;
      return;
    }
    this.slotOf[bucket] = this.buckets.length;
    this.buckets.push(bucket);
    this.counts.push(weight);
  };

  /** Adds the words of `s.slice(start, end)`, each with `weight`. */
  addText(s: string, start = 0, end = s.length, weight = 1): void {
    if (weight === 1) scanWords(s, start, end, this.add);
    else scanWords(s, start, end, (b) => this.add(b, weight));
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
    this.bag.clear();
  }

  /** Relevance of a page: the cosine of its title and first MAX_SCORED_CHARS of text to the examples. */
  scoreText(page: ScoredText): number {
    const bag = this.bag;
    bag.clear();
    bag.addText(page.title, 0, page.title.length, TITLE_WEIGHT);
    bag.addText(page.text, 0, Math.min(page.text.length, MAX_SCORED_CHARS));
    return bag.cosine(this.weights, this.norm);
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
    bag.addText(text, 0, Math.min(text.length, 4 * MAX_SCORED_CHARS));
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
    this.bag.clear();
    this.bag.addText(text, 0, Math.min(text.length, MAX_SCORED_CHARS));
    return this.bag.cosine(weights, norm);
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
