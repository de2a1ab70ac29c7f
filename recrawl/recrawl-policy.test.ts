import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { publishingInterval, recrawlAfter } from './recrawl-policy.js';

const C = { recrawl: true, recrawlMinIntervalMs: 1_000, recrawlMaxIntervalMs: 3_600_000 };
const sitemap = { kind: 'sitemap' as const, recrawl_interval_ms: 0, previous_sha1: '', gone_count: 0, via: 'sitemap' as const };

describe('feeds under --recrawl', () => {
  it('should measure a feed\'s publishing interval from its newest entries, longer when it went quiet', () => {
    const now = 1_000_000;
    assert.equal(publishingInterval([now - 1_000, now - 61_000, now - 121_000], now), 60_000);
    assert.equal(publishingInterval([now - 600_000, now - 660_000], now), 300_000, 'quiet for 10 minutes: half of that');
    assert.equal(publishingInterval([now - 5_000], now), undefined, 'one date shows no pace');
    assert.equal(publishingInterval([0, now + 3_600_000, now - 10], now), undefined, 'undated and future entries do not count');
  });

  it('should bring a feed back after its interval, a sitemap never, and keep a feed whose refetch failed', () => {
    const at = 50_000;
    assert.deepEqual(recrawlAfter(sitemap, { status: 200, changed: true, startedAt: at, feedIntervalMs: 90_000 }, C), { intervalMs: 90_000, nextDueAt: 140_000 });
    assert.deepEqual(recrawlAfter(sitemap, { status: 200, changed: true, startedAt: at, feedIntervalMs: 10 }, C).intervalMs, 1_000, 'within the bounds');
    assert.equal(recrawlAfter(sitemap, { status: 200, changed: true, startedAt: at }, C).intervalMs, 0, 'a sitemap is read again with robots.txt');
    assert.equal(recrawlAfter({ ...sitemap, via: 'recrawl' }, { status: 404, changed: false, startedAt: at }, C).intervalMs, 0,
      'a robots.txt sitemap read again that failed');
    const feedAgain = { ...sitemap, via: 'recrawl' as const, recrawl_interval_ms: 90_000 };
    assert.equal(recrawlAfter(feedAgain, { status: 503, changed: false, startedAt: at }, C).intervalMs, 90_000);
    assert.equal(recrawlAfter(feedAgain, { status: 304, changed: false, startedAt: at }, C).intervalMs, 135_000);
    assert.equal(recrawlAfter(sitemap, { status: 200, changed: true, startedAt: at, feedIntervalMs: 90_000 }, { ...C, recrawl: false }).intervalMs, 0);
  });
});
