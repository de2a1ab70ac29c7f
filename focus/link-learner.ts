// Online link weights (ACHE's online link learning, kept small): every page judged teaches the
// features of the URL that led to it, its host and its host's section (first path segment), how
// relevant it turned out, and a link whose URL shares them gains or loses weight. Words of the path
// are left to the static scorer: templates put the same words in every site's URLs ("news",
// "why-…-matters"), and learning them would carry one site's yield to all. The weights are two hashed tables (sums and
// counts) in the memory of whoever scores links: each parse worker thread learns from the pages it
// parses, after every page. They steer the order of the frontier only: a page's relevance, the one
// figure a replay writes, never depends on them.
import { bucketOf, pathStartOf, SEED, step, TABLE_BITS, wordHash } from './tokens.js';

const BITS = TABLE_BITS - 2;
const SIZE = 1 << BITS;
/** Pseudo-observations at the threshold (0.5 on the normalized scale): a feature seen on two pages moves a link less than one seen on twenty. */
const PRIOR = 4;
const NEUTRAL = 0.5;

export class LinkLearner {
  private readonly sums = new Float32Array(SIZE);
  private readonly counts = new Float32Array(SIZE);
  private pages = 0;
  // The features of the URL last looked at, and the host hash of the last host (links of a page mostly share one).
  private hostFeature = 0;
  private segmentFeature = 0;
  private lastOrigin = '';
  private lastOriginHash = SEED;

  /** A page was judged: the features of its URL learn its relevance (0–1, normalized by the caller). */
  learn(url: string, relevance: number): void {
    this.featuresOf(url);
    this.sums[this.hostFeature] += relevance;
    this.counts[this.hostFeature] += 1;
    this.sums[this.segmentFeature] += relevance;
    this.counts[this.segmentFeature] += 1;
    this.pages++;
  }

  /**
   * How relevant the pages behind URLs like this one were (0–1 on the normalized scale, the threshold
   * at 0.5), averaged over the URL's features seen so far; 0.5 when none has been seen.
   */
  estimate(url: string): number {
    if (this.pages === 0) return NEUTRAL;
    this.featuresOf(url);
    const host = this.yieldOf(this.hostFeature);
    const segment = this.yieldOf(this.segmentFeature);
    return host < 0 ? (segment < 0 ? NEUTRAL : segment) : segment < 0 ? host : (host + segment) / 2;
  }

  /** The smoothed relevance of the pages behind a feature, -1 when none was seen. */
  private yieldOf(f: number): number {
    const c = this.counts[f];
    return c === 0 ? -1 : (this.sums[f] + PRIOR * NEUTRAL) / (c + PRIOR);
  }

  get pagesLearned(): number {
    return this.pages;
  }

  /** The URL's host, and its first path segment within the host. */
  private featuresOf(url: string): void {
    const pathStart = pathStartOf(url);
    let h: number;
    if (pathStart === this.lastOrigin.length && url.startsWith(this.lastOrigin)) {
      h = this.lastOriginHash;
    } else {
      h = SEED;
      for (let i = url.indexOf('//') + 2; i < pathStart; i++) h = step(h, url.charCodeAt(i));
      this.lastOrigin = url.slice(0, pathStart);
      this.lastOriginHash = h;
    }
    this.hostFeature = bucketOf(h) & (SIZE - 1);
    let segmentEnd = url.indexOf('/', pathStart + 1);
    if (segmentEnd < 0) segmentEnd = url.length;
    for (let i = pathStart; i < segmentEnd; i++) h = step(h, url.charCodeAt(i));
    this.segmentFeature = bucketOf(h ^ HOST_SEGMENT) & (SIZE - 1);
  }
}

const HOST_SEGMENT = wordHash('host+segment') & (SIZE - 1);
