// The one backoff curve of the crawler, for a host whose requests fail or are throttled and for a
// robots.txt that cannot be read: the n-th consecutive failure waits max(delay, 250 ms) × 2^n (n stops
// growing at the attempt limit, so a host with many broken URLs is slowed, not starved), at most five
// minutes, lengthened by up to a quarter at random so that hosts that failed together do not come back
// together (Nutch and StormCrawler back off the same way). A Retry-After the server sent wins when it
// asks for longer, up to an hour.

export const MAX_BACKOFF_MS = 5 * 60_000;
export const MAX_RETRY_AFTER_MS = 60 * 60_000;
const MIN_BACKOFF_BASE_MS = 250;
const JITTER = 0.25;

/** A source of numbers in [0, 1): Math.random, or a fixed one in tests. */
export type Random = () => number;

/**
 * How long to wait after the `failures`-th consecutive failure (≥ 1), from when it was learnt of.
 * @param retryAfterMs the server's Retry-After (0 when none)
 * @param maxExponent the doubling stops here (the crawl's attempt limit)
 */
export function backoffMs(failures: number, delayMs: number, retryAfterMs: number, maxExponent: number, random: Random): number {
  const base = Math.min(MAX_BACKOFF_MS, Math.max(delayMs, MIN_BACKOFF_BASE_MS) * 2 ** Math.max(0, Math.min(failures, maxExponent)));
  const jittered = Math.min(MAX_BACKOFF_MS, base * (1 + JITTER * Math.min(Math.max(random(), 0), 1)));
  const asked = Number.isFinite(retryAfterMs) && retryAfterMs > 0 ? Math.min(retryAfterMs, MAX_RETRY_AFTER_MS) : 0;
  return Math.round(Math.max(jittered, asked));
}
