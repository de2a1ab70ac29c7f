// What a crawl did, told truthfully from its counters (which span the data directory's whole
// history) and, for examples, from this run's journal: what was answered, what failed and why, what
// was skipped and why, and, when not one URL got an answer, the most likely reason.
import type { CrawlJournal, FailureExample } from './crawl-journal.js';

export interface CrawlOutcome {
  /** Page answers by status class ('2xx' → n). */
  answered: Map<string, number>;
  /** Failed requests (robots.txt, sitemaps and pages) by error kind. */
  errors: Map<string, number>;
  /** URLs not fetched, by reason (normalize's and the scheduler's, and the network policy's). */
  skipped: Map<string, number>;
  /** Warnings said once and counted (fetch.notices.*), by kind. */
  warnings: Map<string, number>;
  /** Not one URL (robots.txt aside: pages and sitemaps) got an HTTP response of any status. */
  nothingAnswered: boolean;
}

const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

function byPrefix(counters: Record<string, number>, prefix: string, into = new Map<string, number>()): Map<string, number> {
  for (const [name, n] of Object.entries(counters)) {
    if (!name.startsWith(prefix) || n <= 0) continue;
    const key = name.slice(prefix.length);
    into.set(key, (into.get(key) ?? 0) + n);
  }
  return into;
}

/** Largest first, then by name: the order a reader scans. */
function sorted(m: Map<string, number>): Map<string, number> {
  return new Map([...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
}

export function crawlOutcome(counters: Record<string, number>): CrawlOutcome {
  const answered = byPrefix(counters, 'fetch.status.');
  const errors = byPrefix(counters, 'fetch.errors.');
  const resolveErrors = byPrefix(counters, 'resolve.errors.');
  const refused = resolveErrors.get('network-refused') ?? 0;
  resolveErrors.delete('network-refused'); // no request left: a skip (network-policy), as the skipped table has it
  for (const [k, n] of resolveErrors) errors.set(k, (errors.get(k) ?? 0) + n);
  // fetch drops what a sitemap listed but may not be crawled (off-host, forbidden addresses, past its cap).
  const skipped = byPrefix(counters, 'fetch.dropped.', byPrefix(counters, 'schedule.dropped.', byPrefix(counters, 'normalize.rejected.')));
  if (refused) skipped.set('network-policy', (skipped.get('network-policy') ?? 0) + refused);
  const sitemapAnswers = counters['fetch.responses.sitemap'] ?? 0;
  return {
    answered: sorted(answered), errors: sorted(errors), skipped: sorted(skipped), warnings: sorted(byPrefix(counters, 'fetch.notices.')),
    nothingAnswered: sum(answered) + sitemapAnswers === 0,
  };
}

/** '3 dns, 1 timeout' */
export function listCounts(m: Map<string, number>, max = 6): string {
  const parts = [...m].slice(0, max).map(([k, n]) => `${n} ${k}`);
  if (m.size > max) parts.push(`${m.size - max} more kinds`);
  return parts.join(', ');
}

export { sum as total };

/** A failure as a reader wants it: the host, then what happened in a few words. */
function example(f: FailureExample | undefined): string {
  if (!f) return '';
  const message = f.error.slice(f.error.indexOf(':') + 1).trim();
  const what = f.kind === 'dns' ? 'DNS did not resolve'
    : f.kind === 'timeout' ? `timed out (${message})`
    : f.kind.startsWith('http-') ? `answered ${f.kind.slice(5)}`
    : f.kind === 'tls' ? `TLS ${message}`
    : `${f.kind}: ${message}`;
  return ` (${f.host ? `${f.host}: ` : ''}${what.length > 200 ? `${what.slice(0, 200)}…` : what})`;
}

/**
 * Why nothing was answered, in one clause: '' when something was. Reads the robots.txt outcomes
 * first (nothing else is fetched on a host whose robots.txt could not be read), then refusals,
 * failed requests and dropped URLs.
 */
export function whyNothing(o: CrawlOutcome, counters: Record<string, number>, journal?: CrawlJournal): string {
  if (!o.nothingAnswered) return '';
  const c = (name: string) => counters[name] ?? 0;
  const robotsRead = c('schedule.robots.rules') + c('schedule.robots.allow-all');
  const robotsFailed = c('schedule.robots.unreachable') + c('schedule.robots.gave-up') + c('schedule.robots.incomplete') + c('schedule.robots.unreadable');
  if (robotsRead === 0 && robotsFailed > 0) {
    return `every host's robots.txt was unreachable${example(journal?.mostCommon('robots'))}`;
  }
  if (robotsRead === 0 && c('schedule.robots.crawl-delay-too-long') > 0) return 'every host\'s robots.txt asks a Crawl-delay over --max-crawl-delay';
  if ((o.skipped.get('network-policy') ?? 0) > 0 && c('fetch.requests') === 0) {
    return 'every address was refused by the network policy (--allow-network CIDR opens private, loopback and link-local ones)';
  }
  if (c('fetch.requests') > 0 && o.errors.size > 0) {
    const [kind] = o.errors.keys();
    return `every request failed, most with ${kind}${example(journal?.mostCommon('other'))}`;
  }
  if ((o.skipped.get('robots-disallowed') ?? 0) > 0) return 'robots.txt disallowed every URL';
  if (o.skipped.size > 0) {
    const [reason] = o.skipped.keys();
    return `every URL was dropped before it was fetched, most as ${reason}`;
  }
  return 'nothing was fetched';
}
