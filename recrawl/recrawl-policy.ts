// When a URL is fetched again (--recrawl): an interval per URL within [min, max] that follows how often
// the URL changes. An unchanged answer (a 304, or the same body digest when the server gives no
// validators) lengthens it by half; a change halves it. A URL that changes at every visit so stays at
// the minimum and one that never changes climbs to the maximum: over a run of n minimum intervals the
// first is fetched about n times, the second about log1.5(n) + 1 times.
//
// The fetch stage applies this to each outcome and writes the result on the fetched record, so the
// scheduler, the sink and a replay all see the same interval and due time.
import type { Changefreq } from '../sitemaps/entry-fields.js';
import { firstRecrawlIntervalHint } from '../sitemaps/recrawl-hint.js';
import type { FetchRequest } from '../schemas/records.js';

export interface RecrawlConfig {
  recrawl: boolean;
  recrawlMinIntervalMs: number;
  recrawlMaxIntervalMs: number;
}

export const GROW = 1.5;
export const SHRINK = 0.5;
const CHANGEFREQS = new Set<string>(['always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'never']);

/** The first interval of a URL: the sitemap's hint when it has one, else the minimum. */
export function firstInterval(hints: { changefreq: string; lastmod: number }, now: number, c: RecrawlConfig): number {
  const changefreq = CHANGEFREQS.has(hints.changefreq) ? (hints.changefreq as Changefreq) : undefined;
  const lastmod = hints.lastmod > 0 ? hints.lastmod : undefined;
  return firstRecrawlIntervalHint({ changefreq, lastmod }, now, c.recrawlMinIntervalMs, c.recrawlMaxIntervalMs) ?? c.recrawlMinIntervalMs;
}

/** Whether the content differs from the URL's previous fetch (true on a first fetch with a body). */
export function hasChanged(status: number, sha1: string, previousSha1: string): boolean {
  if (status === 304) return false;
  if (status < 200 || status >= 300) return false;
  return previousSha1 === '' || sha1 !== previousSha1;
}

export interface RecrawlDecision {
  /** The interval after this fetch; 0 when the URL is not fetched again. */
  intervalMs: number;
  nextDueAt: number;
}

const NEVER: RecrawlDecision = { intervalMs: 0, nextDueAt: 0 };

/**
 * What follows a page fetch's outcome. Transient failures (5xx, 429, network) are retried by the
 * scheduler first; once given up, the URL keeps its interval. Redirects stop: the target is crawled
 * as a URL of its own. A URL that keeps answering 404/410 (twice in a row) stops.
 *
 * A feed (a sitemap-kind fetch that read an RSS or Atom feed, `feedIntervalMs` set) is fetched again
 * after its publishing interval, so that a new entry is found within one interval of its appearing
 * and fetched within two; a feed whose entries carry no dates follows the page rule. Sitemaps are
 * not recrawled here: they are read again with robots.txt.
 */
export function recrawlAfter(req: Pick<FetchRequest, 'kind' | 'recrawl_interval_ms' | 'previous_sha1' | 'gone_count'> & { via?: FetchRequest['via'] },
  outcome: { status: number; changed: boolean; startedAt: number; feedIntervalMs?: number }, c: RecrawlConfig): RecrawlDecision {
  if (!c.recrawl || req.kind === 'robots') return NEVER;
  if (req.kind === 'sitemap') {
    const ok = outcome.status >= 200 && outcome.status < 300;
    // A 2xx that is no feed is a sitemap. Otherwise only a feed's recrawl (due again, so with an interval;
    // a sitemap read again with robots.txt has none) goes on: it failed or was unchanged.
    const feedRecrawl = req.via === 'recrawl' && req.recrawl_interval_ms > 0;
    if (ok ? outcome.feedIntervalMs === undefined : !feedRecrawl) return NEVER;
    if (ok && outcome.feedIntervalMs! > 0) {
      const interval = Math.round(Math.min(c.recrawlMaxIntervalMs, Math.max(c.recrawlMinIntervalMs, outcome.feedIntervalMs!)));
      return { intervalMs: interval, nextDueAt: outcome.startedAt + interval };
    }
  }
  const current = req.recrawl_interval_ms > 0 ? req.recrawl_interval_ms : c.recrawlMinIntervalMs;
  const clamp = (ms: number) => Math.round(Math.min(c.recrawlMaxIntervalMs, Math.max(c.recrawlMinIntervalMs, ms)));
  const { status } = outcome;
  let interval: number;
  if (status === 304) interval = clamp(current * GROW);
  else if (status >= 200 && status < 300) interval = req.previous_sha1 === '' ? clamp(current) : clamp(current * (outcome.changed ? SHRINK : GROW));
  else if (status >= 300 && status < 400) return NEVER;
  else if (status === 404 || status === 410) {
    if (req.gone_count >= 1) return NEVER;
    interval = clamp(current);
  } else if (status >= 400 && status < 500 && status !== 429) return NEVER;
  else interval = clamp(current);
  return { intervalMs: interval, nextDueAt: outcome.startedAt + interval };
}

/** Entries a feed's publishing interval is measured over: the newest ones say how it publishes now. */
const INTERVAL_ENTRIES = 20;

/**
 * How often a feed gains an entry (ms), from its entries' dates: the mean gap between its newest
 * ones, or half the age of the newest when that is longer (a feed that went quiet is fetched less
 * and less often). Undefined with fewer than two distinct dates.
 */
export function publishingInterval(dates: readonly number[], now: number): number | undefined {
  const known = [...new Set(dates.filter((d) => d > 0 && d <= now + 60_000))].sort((a, b) => b - a).slice(0, INTERVAL_ENTRIES);
  if (known.length < 2) return undefined;
  const gap = (known[0] - known[known.length - 1]) / (known.length - 1);
  return Math.max(gap, (now - known[0]) / 2);
}
