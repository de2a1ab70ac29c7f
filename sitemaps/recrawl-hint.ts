// A first recrawl interval for a URL learned from a sitemap, before the crawler has seen it change.
//
// changefreq, when present, wins (sitemaps.org calls it a hint; it is the site owner's own estimate):
//   always  -> minMs (changes on every access: as often as allowed)
//   hourly  -> 1 hour
//   daily   -> 1 day
//   weekly  -> 7 days
//   monthly -> 30 days
//   yearly  -> 365 days
//   never   -> maxMs (archived: as rarely as allowed)
// Without changefreq, lastmod's age is used: a page unchanged for a time T is taken to stay unchanged
// for about as long again, and the first check comes at T / 2, before that estimate runs out.
// A lastmod in the future (clock skew, or a generator writing "now + 1 day") says nothing and is ignored.
// priority is not used: sitemaps.org defines it as relative importance within one site, not change.
// The result is clamped into [minMs, maxMs]; undefined when the entry carries no usable hint.
import type { Changefreq, SitemapEntry } from './entry-fields.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const CHANGEFREQ_MS: Record<Exclude<Changefreq, 'always' | 'never'>, number> = {
  hourly: HOUR,
  daily: DAY,
  weekly: 7 * DAY,
  monthly: 30 * DAY,
  yearly: 365 * DAY,
};

export function firstRecrawlIntervalHint(
  entry: Pick<SitemapEntry, 'lastmod' | 'changefreq'>,
  now: number,
  minMs: number,
  maxMs: number,
): number | undefined {
  if (!Number.isFinite(minMs) || !Number.isFinite(maxMs) || minMs < 0 || minMs > maxMs) {
    throw new RangeError(`need 0 <= minMs <= maxMs, got ${minMs} and ${maxMs}`);
  }
  // Whole milliseconds: the interval is stored as an Avro long (half an odd age once dead-lettered a feed's batch).
  const clamp = (ms: number): number => Math.round(Math.min(maxMs, Math.max(minMs, ms)));
  switch (entry.changefreq) {
    case 'always':
      return minMs;
    case 'never':
      return maxMs;
    case undefined:
      break;
    default:
      return clamp(CHANGEFREQ_MS[entry.changefreq]);
  }
  if (entry.lastmod === undefined || !Number.isFinite(entry.lastmod) || !Number.isFinite(now)) return undefined;
  const age = now - entry.lastmod;
  if (age < 0) return undefined;
  return clamp(age / 2);
}
