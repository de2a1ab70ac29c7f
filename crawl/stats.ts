// What a crawl operator watches: pages fetched, rate, frontier, hosts waiting on politeness, errors.
import type { StreamTask } from '../engine/task/stream-task.js';
import type { CrawlServices } from '../contract/services.js';

export interface CrawlStats {
  pages: number;
  robotsRequests: number;
  errors: number;
  bytes: number;
  frontier: number;
  inFlight: number;
  hostsWaiting: number;
  hostsActive: number;
  newUrls: number;
  duplicates: number;
  deadLetters: number;
  /** Page fetches that were recrawls, of all `pages`; answers 304 Not Modified. */
  recrawls: number;
  notModified: number;
  /** Recrawls due now (ready), and waiting for their time. */
  recrawlsDue: number;
  recrawlsWaiting: number;
  /** A focused crawl: pages judged, and those at or above the threshold. */
  focusJudged: number;
  focusRelevant: number;
  counters: Record<string, number>;
}

export function crawlStats(runtime: { tasks: readonly StreamTask<CrawlServices>[] }): CrawlStats {
  const counters: Record<string, number> = {};
  let frontier = 0;
  let inFlight = 0;
  let hostsWaiting = 0;
  let hostsActive = 0;
  let recrawlsDue = 0;
  let recrawlsWaiting = 0;
  for (const t of runtime.tasks) {
    for (const [name, v] of t.metrics.totals) {
      const key = `${t.node.name}.${name}`;
      counters[key] = (counters[key] ?? 0) + v;
    }
    if (t.node.name === 'schedule') {
      frontier += t.metrics.gauges.get('frontier') ?? 0;
      inFlight += t.metrics.gauges.get('in-flight') ?? 0;
      hostsWaiting += t.metrics.gauges.get('hosts.waiting') ?? 0;
      hostsActive += t.metrics.gauges.get('hosts.active') ?? 0;
      recrawlsDue += t.metrics.gauges.get('recrawl.due') ?? 0;
      recrawlsWaiting += t.metrics.gauges.get('recrawl.waiting') ?? 0;
    }
  }
  let errors = 0;
  for (const [k, v] of Object.entries(counters)) if (k.startsWith('fetch.errors.')) errors += v;
  return {
    pages: counters['fetch.requests'] ?? 0,
    robotsRequests: counters['fetch.robots-requests'] ?? 0,
    errors,
    bytes: counters['fetch.bytes'] ?? 0,
    frontier, inFlight, hostsWaiting, hostsActive,
    newUrls: counters['dedup.new-urls'] ?? 0,
    duplicates: (counters['near-dup.duplicates.exact'] ?? 0) + (counters['near-dup.duplicates.near'] ?? 0),
    recrawls: counters['schedule.recrawls'] ?? 0,
    notModified: counters['fetch.not-modified'] ?? 0,
    recrawlsDue, recrawlsWaiting,
    focusJudged: counters['parse.focus.judged'] ?? 0,
    focusRelevant: counters['parse.focus.relevant'] ?? 0,
    deadLetters: Object.entries(counters).filter(([k]) => k.endsWith('.dead-letters')).reduce((n, [, v]) => n + v, 0),
    counters,
  };
}
