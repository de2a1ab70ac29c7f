// The focus of a crawl, as each parse worker thread holds it: the page model built from the user's
// examples (or the user's own module), the link scorer and the online link weights. It judges a
// parsed page (relevance 0–1) and scores each of its links (0–1) from the link's anchor text, the
// words around it, its URL's words, the page's relevance and what the crawl has learned so far.
import { ContextFinder } from './link-context.js';
import { LinkLearner } from './link-learner.js';
import { Bag, PageModel } from './page-model.js';
import { urlWordsRange } from './tokens.js';
import type { FocusModule } from './focus-module.js';
import type { FocusSpec } from './focus-spec.js';

export interface ScoredPage {
  url: string;
  title: string;
  text: string;
  links: readonly { url: string; anchor: string }[];
}

export interface FocusResult {
  relevance: number;
  /** One per link of the page, in order. */
  linkScores: number[];
}

/** How much a link's own words count against the page it is on. */
const ANCHOR_SHARE = 0.6;
const CONTEXT_WEIGHT = 0.5;
const URL_WEIGHT = 0.5;

export class FocusScorer {
  readonly threshold: number;
  private readonly bag = new Bag();
  private readonly learner = new LinkLearner();

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

  /** Relevance of the page and a score for each of its links; learns from the page. */
  score(page: ScoredPage): FocusResult {
    const relevance = clamp(this.module?.scorePage ? this.module.scorePage({ url: page.url, title: page.title, text: page.text }) : this.model!.scoreText(page));
    const judged = this.normalized(relevance);
    if (this.spec.learn !== false) this.learner.learn(page.url, judged);
    const finder = new ContextFinder(page.text);
    const linkScores = page.links.map((link) => {
      const context = finder.find(link.anchor);
      if (this.module?.scoreLink) {
        const around = page.text.slice(context.beforeStart, context.anchorStart) + ' ' + page.text.slice(context.anchorEnd, context.afterEnd);
        return clamp(this.module.scoreLink({ url: link.url, anchor: link.anchor, context: around.trim() }, { url: page.url, title: page.title, relevance }));
      }
      const bag = this.bag;
      bag.clear();
      bag.addText(link.anchor);
      bag.addText(page.text, context.beforeStart, context.anchorStart, CONTEXT_WEIGHT);
      bag.addText(page.text, context.anchorEnd, context.afterEnd, CONTEXT_WEIGHT);
      const [from, to] = urlWordsRange(link.url);
      bag.addText(link.url, from, to, URL_WEIGHT);
      const words = this.normalized(this.model!.scoreBag(bag));
      return clamp(ANCHOR_SHARE * words + (1 - ANCHOR_SHARE) * judged + this.learner.weight(link.url));
    });
    return { relevance, linkScores };
  }

  /** A cosine on a scale where the threshold is one half: page and link scores combine on it. */
  private normalized(cosine: number): number {
    return Math.min(1, cosine / (2 * this.threshold));
  }
}

function clamp(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
