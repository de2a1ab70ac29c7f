// What the schedule processor is given by the crawl's services.
import type { RuntimeControl } from '../../engine/api.js';
import type { CrawlConfig } from '../../contract/config.js';
import type { CrawlBudget } from '../../contract/crawl-budget.js';
import type { FocusGate } from '../../focus/focus-gate.js';

export interface ScheduleServices {
  config: CrawlConfig;
  /** The global page budget (--max-pages), shared by the schedule tasks of one process. */
  budget?: CrawlBudget;
  /** Kafka pauses releases while the partition count grows (crawlstream scale). */
  control: RuntimeControl;
  /** A focused crawl orders hosts by their best URL's score, holding some back (never bringing one forward). */
  focusGate?: FocusGate;
}
