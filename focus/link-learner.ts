// Online link weights (ACHE's online link learning, kept small): every page judged teaches the
// features of the URL that led to it, its host and its path's words, how relevant it turned out,
// and a link whose URL shares them gains or loses weight. The weights are two hashed tables (sums and
// counts) in the memory of whoever scores links: each parse worker thread learns from the pages it
// parses, after every page. They steer the order of the frontier only: a page's relevance, the one
// figure a replay writes, never depends on them.
import { bucketOf, scanWords, SEED, step, TABLE_BITS, urlWordsRange, wordHash } from './tokens.js';

const BITS = TABLE_BITS - 2;
const SIZE = 1 << BITS;
/** Pseudo-observations at the crawl's mean: a feature seen on two pages moves a link less than one seen on twenty. */
const PRIOR = 4;
/** The most a learned weight moves a link's score, either way. */
export const MAX_LEARNED = 0.25;

export class LinkLearner {
  private readonly sums = new Float32Array(SIZE);
  private readonly counts = new Float32Array(SIZE);
  private total = 0;
  private pages = 0;
  private readonly features: number[] = [];

  /** A page was judged: the features of its URL learn its relevance (0–1, normalized by the caller). */
  learn(url: string, relevance: number): void {
    for (const f of this.featuresOf(url)) {
      this.sums[f] += relevance;
      this.counts[f] += 1;
    }
    this.total += relevance;
    this.pages++;
  }

  /** How much more (or less) relevant than the crawl's average the pages behind URLs like this one were, within ±MAX_LEARNED. */
  weight(url: string): number {
    if (this.pages === 0) return 0;
    const mean = this.total / this.pages;
    let sum = 0;
    let n = 0;
    for (const f of this.featuresOf(url)) {
      const c = this.counts[f];
      if (c === 0) continue;
      sum += (this.sums[f] + PRIOR * mean) / (c + PRIOR) - mean;
      n++;
    }
    if (n === 0) return 0;
    return Math.max(-MAX_LEARNED, Math.min(MAX_LEARNED, sum / n));
  }

  get pagesLearned(): number {
    return this.pages;
  }

  /** The URL's host, its first path segment within the host, and the words of its path. */
  private featuresOf(url: string): number[] {
    const out = this.features;
    out.length = 0;
    const hostStart = url.indexOf('//') + 2;
    const [pathStart, end] = urlWordsRange(url);
    let h = SEED;
    for (let i = hostStart; i < pathStart; i++) h = step(h, url.charCodeAt(i));
    out.push(bucketOf(h) & (SIZE - 1));
    let segmentEnd = url.indexOf('/', pathStart + 1);
    if (segmentEnd < 0) segmentEnd = end;
    for (let i = pathStart; i < segmentEnd; i++) h = step(h, url.charCodeAt(i));
    out.push(bucketOf(h ^ HOST_SEGMENT) & (SIZE - 1));
    scanWords(url, pathStart, end, (b) => out.push((b ^ PATH_WORD) & (SIZE - 1)));
    return out;
  }
}

const HOST_SEGMENT = wordHash('host+segment') & (SIZE - 1);
const PATH_WORD = wordHash('path word') & (SIZE - 1);
