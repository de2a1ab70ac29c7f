// The schedule's side of leases (politeness/leases.ts), on the test driver's manual clock: what a lease
// holds, how its URLs report, what cuts it short, what happens when one is lost or given back.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlTestDriver, type CrawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import { NO_HINTS, PLAIN_RESULT, type CanonicalUrl, type FetchRequest, type FetchResult, type UnfetchedUrl } from '../../schemas/records.js';
import { leaseRequests } from '../../politeness/leases.js';
import { hostsStore } from './host-state.js';

const HOST = '127.0.0.9:8080';
const ORIGIN = `http://${HOST}`;
const ADDRESS = '127.0.0.9';

function url(path: string, depth = 1): CanonicalUrl {
  return { url: `${ORIGIN}${path}`, host: HOST, depth, source_url: '', via: 'link', redirect_hops: 0, discovered_at: 0, ...NO_HINTS, inlinks: 1, more: [] };
}

function done(req: FetchRequest, d: CrawlTestDriver, over: Partial<FetchResult> = {}): FetchResult {
  return {
    ...PLAIN_RESULT,
    fetch_id: req.fetch_id, url: req.url, host: req.host, kind: req.kind, depth: req.depth, attempt: req.attempt, via: req.via,
    source_url: req.source_url, redirect_hops: req.redirect_hops, status: 200, error: '', final_url: req.url, redirect_chain: [], headers: {},
    started_at: d.now - 10, elapsed_ms: 10, ttfb_ms: 5, bytes: 0, wire_bytes: 0, content_type: 'text/plain', charset: '', truncated: false,
    retry_after_ms: 0, conditional: false, remote_address: '', body_encoding: 'identity', body: Buffer.alloc(0),
    lease_id: req.lease_id, lease_epoch: req.lease_epoch, address: '', ...over,
  };
}

function givenBack(req: FetchRequest, d: CrawlTestDriver, reason: 'lease-cut' | 'restart'): UnfetchedUrl {
  return { fetch_id: req.fetch_id, lease_id: req.lease_id, lease_epoch: req.lease_epoch, url: req.url, host: req.host, reason, detail: '', returned_at: d.now };
}

const released = (d: CrawlTestDriver): FetchRequest[] => d.readOutput('scheduled').flatMap((r) => leaseRequests(r.value));
const paths = (rs: FetchRequest[]) => rs.map((r) => new URL(r.url).pathname);

async function driver(config: Record<string, unknown> = {}) {
  return crawlTestDriver({ processors: ['schedule'], config: { defaultDelayMs: 1000, sitemaps: false, ...config } });
}

/**
 * Queues `pathsToQueue`, reads robots.txt (`robots` as its body) and returns with the host ready. The
 * answer comes `loopMs` after the release: the loop the schedule measures, which sizes leases.
 */
async function readyHost(d: CrawlTestDriver, pathsToQueue: string[], robots = 'User-agent: *\nAllow: /\n', loopMs = 500): Promise<void> {
  for (const p of pathsToQueue) await d.pipe('deduped', HOST, url(p));
  const [r] = released(d);
  assert.equal(r.kind, 'robots', 'robots.txt first, as a lease of its own');
  await d.advanceTime(loopMs);
  await d.pipe('fetch-reports', HOST, done(r, d, { body: Buffer.from(robots), bytes: robots.length }));
}

describe('schedule: leases', () => {
  it('should end a lease cut short by a 429: the rest given back and queued again, the host backed off for the Retry-After', async () => {
    const d = await driver();
    await readyHost(d, ['/a', '/b', '/c', '/d']);
    await d.advanceTime(1000);
    const lease = released(d);
    assert.ok(lease.length >= 2, `a lease of ${lease.length}`);
    const [first, ...rest] = lease;
    await d.pipe('fetch-reports', HOST, done(first, d, { status: 429, retry_after_ms: 5000 }));
    const throttledAt = d.now;
    for (const r of rest) await d.pipe('unfetched', HOST, givenBack(r, d, 'lease-cut'));
    assert.equal(d.counter('schedule', 'throttled'), 1);
    assert.equal(d.counter('schedule', 'given-back.lease-cut'), rest.length);
    const h = d.store(hostsStore).get(HOST)!;
    assert.equal(h.leases.open.length, 0, 'every URL of the lease reported');
    assert.equal(h.leases.epoch, first.lease_epoch + 1, 'a new backoff generation');
    await d.advanceTime(4999);
    assert.equal(d.readOutput('scheduled').length, 0, 'nothing before the Retry-After has passed');
    const again: FetchRequest[] = [];
    for (let i = 0; i < 20; i++) {
      await d.advanceTime(1000);
      for (const r of released(d)) {
        if (again.length === 0) assert.ok(d.now - throttledAt >= 5000);
        assert.ok(r.lease_epoch > first.lease_epoch);
        again.push(r);
        await d.pipe('fetch-reports', HOST, done(r, d));
      }
    }
    assert.deepEqual(paths(again).sort(), ['/a', '/b', '/c', '/d'], 'every URL once more: the throttled one, those given back, the rest');
    assert.equal(again.find((r) => r.url === first.url)?.attempt, 2, 'the throttled URL is retried');
    for (const r of rest) assert.equal(again.find((x) => x.url === r.url)?.attempt, 1, 'a URL given back keeps its attempt');
    assert.equal(d.hasPendingWork('schedule'), false);
    await d.close();
  });

  it('should release a lost lease\'s URLs again once, with a warning, and drop them with a skipped row the second time', async () => {
    const d = await driver({ fetchTimeoutMs: 1000 });
    await readyHost(d, ['/a']);
    await d.advanceTime(1000);
    const [a] = released(d);
    // No report comes: lost after a delay, twice the fetch timeout and a minute without one.
    await d.advanceTime(1000 + 2000 + 60_000 - 1);
    assert.equal(d.counter('schedule', 'leases-lost'), 0);
    await d.advanceTime(1);
    assert.equal(d.counter('schedule', 'leases-lost'), 1);
    assert.equal(d.counter('schedule', 'lease-lost.released-again'), 1);
    assert.ok(d.warnings.some((w) => w.includes(a.lease_id) && w.includes('released again')), d.warnings.join('\n'));
    await d.advanceTime(1000);
    const [again] = released(d);
    assert.equal(again.url, a.url);
    assert.notEqual(again.lease_id, a.lease_id);
    await d.pipe('fetch-reports', HOST, done(a, d));
    assert.equal(d.counter('schedule', 'stale-completions'), 1, 'the lost lease\'s late report is ignored');
    await d.advanceTime(1000 + 2000 + 60_000);
    assert.equal(d.counter('schedule', 'lease-lost.dropped'), 1);
    assert.deepEqual(d.readOutput('skipped').map((r) => [r.value.url, r.value.reason]), [[a.url, 'lease-lost']]);
    await d.advanceTime(10_000);
    assert.equal(d.readOutput('scheduled').length, 0);
    assert.equal(d.hasPendingWork('schedule'), false, 'the crawl can end');
    await d.close();
  });

  it('should queue a second lease behind the first only once the first reported from an address, pinned to it, and never a third', async () => {
    const d = await driver({ defaultDelayMs: 0 });
    // A 30 ms loop at a 10 ms fetch: leases of four.
    await readyHost(d, ['/1', '/2', '/3', '/4', '/5', '/6', '/7', '/8', '/9', '/10'], undefined, 30);
    await d.advanceTime(1);
    const first = d.readOutput('scheduled').map((r) => r.value);
    assert.equal(first.length, 1);
    assert.equal(first[0].address, '', 'a lease onto a free host is resolved afresh');
    const l1 = leaseRequests(first[0]);
    assert.ok(l1.length >= 2, `a lease of ${l1.length}`);
    await d.pipe('fetch-reports', HOST, done(l1[0], d, { address: ADDRESS }));
    const second = d.readOutput('scheduled').map((r) => r.value);
    assert.equal(second.length, 1, 'a second lease queues behind the first');
    assert.equal(second[0].address, ADDRESS, 'pinned to the address the first one reached');
    const l2 = leaseRequests(second[0]);
    for (const r of l1.slice(1)) await d.pipe('fetch-reports', HOST, done(r, d, { address: ADDRESS }));
    assert.equal(d.readOutput('scheduled').length, 0, 'the queued lease has not reported yet: no third');
    assert.equal(d.store(hostsStore).get(HOST)!.leases.open.length, 1);
    // A failure in the queued lease: its rest comes back, and nothing queues behind a failing host.
    await d.pipe('fetch-reports', HOST, done(l2[0], d, { status: 503, address: ADDRESS }));
    assert.equal(d.readOutput('scheduled').length, 0);
    for (const r of l2.slice(1)) await d.pipe('unfetched', HOST, givenBack(r, d, 'lease-cut'));
    assert.equal(d.readOutput('scheduled').length, 0, 'the backoff runs first');
    await d.advanceTime(10_000);
    const after = d.readOutput('scheduled').map((r) => r.value);
    assert.equal(after.length, 1);
    assert.equal(after[0].address, '', 'a lease after the host was free is resolved afresh');
    await d.close();
  });

  it('should queue URLs given back after a restart again, their page budget unspent', async () => {
    const d = await driver({ defaultDelayMs: 0, maxPagesPerHost: 2 });
    await readyHost(d, ['/1', '/2', '/3']);
    const fetched: string[] = [];
    for (let i = 0, gaveBack = false; i < 20; i++) {
      await d.advanceTime(1);
      for (const r of released(d)) {
        if (!gaveBack) {
          await d.pipe('unfetched', HOST, givenBack(r, d, 'restart'));
          continue;
        }
        fetched.push(new URL(r.url).pathname);
        await d.pipe('fetch-reports', HOST, done(r, d));
      }
      gaveBack = true;
    }
    assert.deepEqual(fetched.sort(), ['/1', '/2']);
    assert.equal(d.counter('schedule', 'given-back.restart') >= 1, true);
    assert.deepEqual(d.readOutput('skipped').map((r) => [new URL(r.value.url).pathname, r.value.reason]), [['/3', 'host-budget']]);
    await d.close();
  });

  it('should let sitemaps take turns with pages, so that many sitemaps cannot starve a host\'s pages', async () => {
    const d = await driver({ defaultDelayMs: 0, sitemaps: true });
    const sitemaps = ['/s1.xml', '/s2.xml', '/s3.xml', '/s4.xml'];
    await readyHost(d, ['/p1', '/p2', '/p3'], `User-agent: *\nAllow: /\n${sitemaps.map((s) => `Sitemap: ${ORIGIN}${s}\n`).join('')}`);
    const kinds: string[] = [];
    for (let i = 0; i < 20; i++) {
      await d.advanceTime(1);
      for (const r of released(d)) {
        kinds.push(r.kind);
        await d.pipe('fetch-reports', HOST, done(r, d));
      }
    }
    assert.deepEqual(kinds, ['sitemap', 'page', 'sitemap', 'page', 'sitemap', 'page', 'sitemap']);
    await d.close();
  });
});
