// The focus of a crawl, as each parse worker thread holds it: the page model built from the user's
// examples (or the user's own module), the link scorer and the online link weights. It judges a
// parsed page (relevance 0–1) and scores each of its links (0–1) from the link's anchor text, the
// words around it, its URL's words, the page's relevance and what the crawl has learned so far.
//
// Cost: the page's words are read once (its title and 1,200 characters of its text, page-model.ts
// scoredText); a link's anchor and the words around it are those same words, found by position in
// what was read; only a link's URL, and an anchor not in what was read, are read again.
import { ContextFinder } from './link-context.js';
import { LinkLearner } from './link-learner.js';
import { type PageModel, scoredText, TITLE_WEIGHT } from './page-model.js';
import { pathStartOf, WordScanner } from './tokens.js';
import type { FocusModule } from './focus-module.js';
import type { FocusSpec } from './focus-spec.js';

export interface ScoredPage {
  url: string;
  title: string;
  text: string;
  links: readonly { url: string; anchor: string }[];
}

export interface FocusResult {
  /** 0–1; -1 when the page could not be judged (`error` says why). */
  relevance: number;
  /** One per link of the page, in order; -1 each when the page could not be judged. */
  linkScores: number[];
  /** 'focus-module: <what it threw>' when the user's module failed on this page. */
  error?: string;
}

/** How much a link's own words count against the page it is on. */
const ANCHOR_SHARE = 0.6;
/** How much what the crawl learned of URLs like it counts in a link's score (focus/link-learner.ts). */
const LEARNED_SHARE = 0.2;
/**
 * Evidence below a tenth of the threshold's is noise: an off-topic page or anchor that shares a word
 * or two with the examples says nothing, and must not order URLs that depth and in-links order better.
 */
const NOISE = 0.1;
const CONTEXT_WEIGHT = 0.5;
const URL_WEIGHT = 0.5;
/** An anchor holding a core word of the topic is a lead whatever else it says: worth this much of a perfect match. */
const CORE_WORD_SHARE = 0.6;

export class FocusScorer {
  readonly threshold: number;
  private readonly text = new WordScanner();
  private sorted = new Int32Array(1024);
  private readonly other = new WordScanner();
  private readonly learner = new LinkLearner();
  /** The heaviest weight among the last link's anchor words (linkCosine sets it). */
  private anchorCore = 0;

  constructor(readonly spec: FocusSpec, private readonly model: PageModel | undefined, private readonly module: FocusModule | undefined) {
    const threshold = spec.threshold ?? module?.threshold ?? model?.suggestedThreshold();
    if (threshold === undefined) throw new Error('a focus module without examples must export a threshold (or give --focus-threshold)');
    this.threshold = threshold;
  }

  get moduleVersion(): string | undefined {
    return this.module?.version;
  }

  get moduleThreshold(): number | undefined {
    return this.module?.threshold;
  }

  /**
   * Relevance of the page and a score for each of its links; learns from the page. A user's module
   * that throws leaves the page unjudged, with the reason, rather than losing it.
   */
  score(page: ScoredPage): FocusResult {
    if (!this.module) return this.judge(page);
    try {
      return this.judge(page);
    } catch (err) {
      const error = `focus-module: ${this.module.name}: ${(err as Error)?.message ?? String(err)}`.slice(0, 500);
      return { relevance: -1, linkScores: page.links.map(() => -1), error };
    }
  }

  private judge(page: ScoredPage): FocusResult {
    // Anchors are looked for, and their contexts read, in this bounded text: never a search of 100 KB per link.
    const read = scoredText(page.text);
    const words = this.model ? this.text.scan(read, 0, read.length) : 0;
    const relevance = clamp(this.module?.scorePage ? this.module.scorePage({ url: page.url, title: page.title, text: page.text }) : this.pageCosine(page.title, words));
    const judged = this.normalized(relevance);
    if (this.spec.learn !== false) this.learner.learn(page.url, judged);
    const finder = new ContextFinder(read);
    const linkScores = page.links.map((link) => {
      const context = finder.find(link.anchor);
      if (this.module?.scoreLink) {
        const around = read.slice(context.beforeStart, context.anchorStart) + ' ' + read.slice(context.anchorEnd, context.afterEnd);
        return clamp(this.module.scoreLink({ url: link.url, anchor: link.anchor, context: around.trim() }, { url: page.url, title: page.title, relevance }));
      }
      const cosine = this.linkCosine(link, context.anchorEnd > 0 ? context : undefined, words);
      const lead = Math.max(Math.min(1, cosine / (2 * this.model!.linkScale)), CORE_WORD_SHARE * Math.min(1, this.anchorCore / this.model!.compactWordScale));
      const own = ANCHOR_SHARE * denoised(lead) + (1 - ANCHOR_SHARE) * denoised(judged);
      return this.spec.learn === false ? clamp(own) : clamp((1 - LEARNED_SHARE) * own + LEARNED_SHARE * this.learner.estimate(link.url));
    });
    return { relevance, linkScores };
  }

  /**
   * The page's cosine to the examples: its title (counted twice) and the words of its text read,
   * counted by sorting their buckets (no table to clear, and the model's weights read in order).
   */
  private pageCosine(title: string, words: number): number {
    const n = this.other.scan(title, 0, title.length);
    const all = this.sorted.length >= words + TITLE_WEIGHT * n ? this.sorted : (this.sorted = new Int32Array(2 * (words + TITLE_WEIGHT * n)));
    all.set(this.text.buckets.subarray(0, words));
    let k = words;
    for (let i = 0; i < n; i++) for (let w = 0; w < TITLE_WEIGHT; w++) all[k++] = this.other.buckets[i];
    const counted = all.subarray(0, k).sort();
    const weights = this.model!.compact;
    let dot = 0, sq = 0;
    for (let i = 0; i < k;) {
      let j = i + 1;
      while (j < k && counted[j] === counted[i]) j++;
      const tf = 1 + Math.log(j - i);
      sq += tf * tf;
      dot += tf * weights[counted[i]];
      i = j;
    }
    return sq === 0 || dot <= 0 ? 0 : Math.min(1, dot / (Math.sqrt(sq) * this.model!.compactNorm));
  }

  /**
   * The cosine of a link's words to the examples: its anchor (weight 1), the words around it (½) and
   * its URL's words (½), each word its own dimension (a link's few words rarely repeat).
   */
  private linkCosine(link: { url: string; anchor: string }, context: { beforeStart: number; anchorStart: number; anchorEnd: number; afterEnd: number } | undefined, words: number): number {
    const weights = this.model!.compact;
    let dot = 0;
    let sq = 0;
    let core = 0;
    if (context) {
      const { buckets, ends } = this.text;
      for (let i = firstEndingAfter(ends, words, context.beforeStart); i < words && ends[i] <= context.afterEnd; i++) {
        const inAnchor = ends[i] > context.anchorStart && ends[i] <= context.anchorEnd;
        const w = inAnchor ? 1 : CONTEXT_WEIGHT;
        const weight = weights[buckets[i]];
        dot += w * weight;
        sq += w * w;
        if (inAnchor && weight > core) core = weight;
      }
    } else {
      const n = this.other.scan(link.anchor, 0, link.anchor.length);
      for (let i = 0; i < n; i++) {
        const weight = weights[this.other.buckets[i]];
        dot += weight;
        if (weight > core) core = weight;
      }
      sq += n;
    }
    this.anchorCore = core;
    const n = this.other.scan(link.url, pathStartOf(link.url), link.url.length);
    for (let i = 0; i < n; i++) dot += URL_WEIGHT * weights[this.other.buckets[i]];
    sq += n * URL_WEIGHT * URL_WEIGHT;
    return sq === 0 || dot <= 0 ? 0 : Math.min(1, dot / (Math.sqrt(sq) * this.model!.compactNorm));
  }

  /** A cosine on a scale where the threshold is one half: page and link scores combine on it. */
  private normalized(cosine: number): number {
    return Math.min(1, cosine / (2 * this.threshold));
  }
}

/** The first of the `n` increasing `ends` above `pos` (n when none). */
function firstEndingAfter(ends: Int32Array, n: number, pos: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ends[mid] > pos) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function denoised(x: number): number {
  return x <= NOISE ? 0 : (x - NOISE) / (1 - NOISE);
}

function clamp(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
