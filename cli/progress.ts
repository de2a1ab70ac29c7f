// Progress lines while a crawl runs and the one-line summary at its end.
import type { Logger } from '../engine/api.js';
import type { CrawlStats } from '../crawl/stats.js';
import type { CrawlSummary } from '../crawl/embedded-crawl.js';
import { crawlOutcome, listCounts, total, whyNothing } from '../crawl/crawl-outcome.js';

export function stderrLogger(): Logger {
  return {
    info: (m) => process.stderr.write(`crawlstream: ${m}\n`),
    warn: (m) => process.stderr.write(`crawlstream: warning: ${m}\n`),
  };
}

export function formatProgress(s: CrawlStats, pagesPerSecond: number): string {
  const recrawl = s.recrawls || s.recrawlsDue || s.recrawlsWaiting
    ? [`${s.pages - s.recrawls} new + ${s.recrawls} recrawled`, `${s.notModified} not modified`, `due ${s.recrawlsDue}`, `waiting ${s.recrawlsWaiting}`]
    : [];
  return [
    `${s.pages} pages`,
    ...recrawl,
    ...(s.focusJudged ? [harvest(s)] : []),
    `${pagesPerSecond.toFixed(1)} pages/s`,
    `frontier ${s.frontier}`,
    `in flight ${s.inFlight}`,
    `hosts waiting on politeness ${s.hostsWaiting}`,
    `errors ${s.errors}`,
  ].join(' | ');
}

/**
 * The crawl's last line: pages, what answered them (by status class), what failed and why (by error
 * kind, every request counted), what was skipped and why, duplicates, robots.txt requests, warnings
 * said once; when not one URL got an answer, why, with an example host. Counts span the data
 * directory's history (a resumed crawl counts what it did before).
 */
export function formatSummary(s: CrawlSummary, dataDir: string): string {
  const seconds = s.elapsedMs / 1000;
  const rate = s.pages / Math.max(seconds, 0.001);
  const verb = s.stoppedEarly ? 'stopped after' : 'crawled';
  const left = s.frontier ? `, ${s.frontier} URLs left in the frontier` : '';
  const recrawls = s.recrawls ? `, ${s.recrawls} of them recrawls (${s.notModified} not modified)` : '';
  const o = crawlOutcome(s.counters);
  const why = whyNothing(o, s.counters, s.journal);
  const section = (n: number, what: string, m: Map<string, number>) => `${n} ${what}${m.size ? `: ${listCounts(m)}` : ''}`;
  const parts = [
    section(total(o.answered), 'answered', o.answered),
    section(total(o.errors), 'errors', o.errors),
    section(total(o.skipped), 'skipped', o.skipped),
    `${s.robotsRequests} robots.txt requests`,
    `${s.duplicates} duplicates`,
    ...(s.focusJudged ? [harvest(s)] : []),
  ];
  if (o.warnings.size) parts.push(section(total(o.warnings), 'warnings said once', o.warnings));
  return `${verb} ${s.pages} pages${recrawls}${why ? `: ${why}` : ''} (${parts.join('; ')}) in ${seconds.toFixed(1)} s: ${rate.toFixed(1)} pages/s${left}; data in ${dataDir}`;
}

/** A focused crawl's figure of merit: pages on the topic among the pages judged. */
function harvest(s: CrawlStats): string {
  return `harvest ${(s.focusRelevant / s.focusJudged).toFixed(2)} (${s.focusRelevant} of ${s.focusJudged} pages on the topic)`;
}
