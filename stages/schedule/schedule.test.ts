import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlTestDriver, type CrawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import { NO_HINTS, PLAIN_RESULT, type CanonicalUrl, type FetchRequest, type FetchResult } from '../../schemas/records.js';
import { hostsStore } from './host-state.js';
import { CrawlBudget } from '../../contract/crawl-budget.js';
import { leaseRequests } from '../../politeness/leases.js';

const HOST = '127.0.0.9:8080';
const ORIGIN = `http://${HOST}`;

function url(path: string, depth = 1): CanonicalUrl {
  return { url: `${ORIGIN}${path}`, host: HOST, depth, source_url: '', via: 'link', redirect_hops: 0, discovered_at: 0, ...NO_HINTS, inlinks: 1, more: [] };
}

function done(req: FetchRequest, driver: CrawlTestDriver, over: Partial<FetchResult> = {}): FetchResult {
  return {
    ...PLAIN_RESULT,
    fetch_id: req.fetch_id, url: req.url, host: req.host, kind: req.kind, depth: req.depth, attempt: req.attempt,
    via: req.via, source_url: req.source_url, redirect_hops: req.redirect_hops, status: 200, error: '',
    final_url: req.url, redirect_chain: [], headers: {}, started_at: driver.now - 10, elapsed_ms: 10, ttfb_ms: 5,
    bytes: 0, wire_bytes: 0, content_type: 'text/plain', charset: '', truncated: false, retry_after_ms: 0,
    conditional: false, remote_address: '', body_encoding: 'identity', body: Buffer.alloc(0), lease_id: req.lease_id, lease_epoch: req.lease_epoch,
    address: '', ...over,
  };
}

/** Every URL of the leases released since the last look, in the order they are to be fetched. */
function releasedUrls(d: CrawlTestDriver): FetchRequest[] {
  return d.readOutput('scheduled').flatMap((r) => leaseRequests(r.value));
}

/** Reports each request fetched at once (`answer` shapes each outcome). */
async function completeAll(d: CrawlTestDriver, requests: FetchRequest[], answer: (r: FetchRequest) => Partial<FetchResult> = () => ({})): Promise<void> {
  for (const r of requests) await d.pipe('fetch-reports', HOST, done(r, d, answer(r)));
}

const robotsBody = (text: string) => ({ body: Buffer.from(text), bytes: text.length });

async function driver(config: Record<string, unknown> = {}, budget?: CrawlBudget) {
  return crawlTestDriver({
    processors: ['schedule'],
    // Sitemaps have tests of their own; here robots.txt is followed by the host's pages only.
    config: { defaultDelayMs: 1000, sitemaps: false, ...config },
    services: budget ? { budget } : {},
  });
}

/**
 * Runs robots.txt for HOST with the given body and returns the driver once the host is ready. Its
 * answer comes half a second after its release: the loop the schedule measures, which sizes leases
 * (at the default 1 s delay, two URLs).
 */
async function readyHost(d: CrawlTestDriver, robots = 'User-agent: *\nAllow: /\n') {
  const [robotsReq] = d.readOutput('scheduled');
  assert.equal(robotsReq.value.kind, 'robots');
  await d.advanceTime(500);
  await d.pipe('fetch-reports', HOST, done(robotsReq.value, d, robotsBody(robots)));
  return d;
}

describe('schedule', () => {
  it('should fetch robots.txt before any page of a host', async () => {
    const d = await driver();
    await d.pipe('deduped', HOST, url('/a'));
    await d.pipe('deduped', HOST, url('/b'));
    const out = d.readOutput('scheduled');
    assert.equal(out.length, 1);
    assert.equal(out[0].value.kind, 'robots');
    assert.equal(out[0].value.url, `${ORIGIN}/robots.txt`);
    await d.close();
  });

  it('should queue every URL of a deduped batch, raise the known ones, and still release one lease at a time', async () => {
    const d = await driver();
    await d.pipe('deduped', HOST, url('/a'));
    await readyHost(d);
    await d.advanceTime(1000);
    const first = releasedUrls(d);
    assert.deepEqual(first.map((r) => r.url), [`${ORIGIN}/a`]);
    const entry = (path: string, inlinks: number) => ({ url: `${ORIGIN}${path}`, ...NO_HINTS, inlinks });
    // /c is new with one in-link; /b is new but already at two (it arrives reported twice over).
    await d.pipe('deduped', HOST, { ...url('/c'), more: [entry('/b', 2)] });
    assert.equal(releasedUrls(d).length, 0, 'the host\'s lease is out: nothing more is released');
    await completeAll(d, first);
    await d.advanceTime(1000);
    const next = releasedUrls(d);
    assert.deepEqual(next.map((r) => r.url), [`${ORIGIN}/b`, `${ORIGIN}/c`], 'the URL with more in-links first, both in one lease');
    await d.close();
  });

  it('should keep one lease out per host, however long its fetches take, and the next a delay after the last ended', async () => {
    const d = await driver();
    for (const p of ['/a', '/b', '/c', '/d', '/e']) await d.pipe('deduped', HOST, url(p));
    await readyHost(d);
    await d.advanceTime(1000);
    const lease = d.readOutput('scheduled');
    assert.equal(lease.length, 1, 'one lease');
    const first = leaseRequests(lease[0].value);
    assert.ok(first.length >= 1 && first.length < 5, `a lease holds a round trip of the host's pacing: ${first.length} URLs at a 1 s delay`);
    assert.equal(first[0].url, `${ORIGIN}/a`);
    assert.equal(first[0].delay_ms, 1000, 'the lease carries the host\'s delay for the fetch task to space its URLs');
    assert.deepEqual(first.map((r) => r.lease_id), first.map(() => first[0].fetch_id));
    assert.equal(new Set(first.map((r) => r.fetch_id)).size, first.length, 'each URL its own fetch id');
    await d.advanceTime(60_000); // the fetcher lags far behind: still nothing new may be released
    assert.equal(d.readOutput('scheduled').length, 0);
    await completeAll(d, first.slice(0, -1));
    assert.equal(d.readOutput('scheduled').length, 0, 'the lease still owes a URL');
    await completeAll(d, first.slice(-1));
    assert.equal(d.readOutput('scheduled').length, 0, 'the next lease waits the delay after the last request ended');
    await d.advanceTime(999);
    assert.equal(d.readOutput('scheduled').length, 0);
    await d.advanceTime(1);
    assert.equal(releasedUrls(d)[0].url, `${ORIGIN}/${'abcde'[first.length]}`);
    await d.close();
  });

  it('should measure the delay from when the last fetch finished, not from its release', async () => {
    const d = await driver();
    for (const p of ['/a', '/b', '/c', '/d', '/e']) await d.pipe('deduped', HOST, url(p));
    await readyHost(d);
    await d.advanceTime(1000);
    const first = releasedUrls(d);
    // The last fetch reports it ended 5 s in the future of the scheduler's clock (a slow body).
    await completeAll(d, first, (r) => (r === first.at(-1) ? { started_at: d.now, elapsed_ms: 5000 } : {}));
    await d.advanceTime(5999);
    assert.equal(d.readOutput('scheduled').length, 0);
    await d.advanceTime(1);
    assert.equal(d.readOutput('scheduled').length, 1);
    await d.close();
  });

  it('should honour Crawl-delay when it is longer than the default delay', async () => {
    const d = await driver();
    for (const p of ['/a', '/b', '/c', '/d']) await d.pipe('deduped', HOST, url(p));
    await readyHost(d, 'User-agent: *\nCrawl-delay: 3\nDisallow:\n');
    await d.advanceTime(2999);
    assert.equal(d.readOutput('scheduled').length, 0);
    await d.advanceTime(1);
    const first = releasedUrls(d);
    assert.equal(first[0].delay_ms, 3000);
    await completeAll(d, first);
    await d.advanceTime(2999);
    assert.equal(d.readOutput('scheduled').length, 0);
    await d.advanceTime(1);
    assert.equal(d.readOutput('scheduled').length, 1);
    await d.close();
  });

  it('should never release a URL that robots.txt disallows for our product token', async () => {
    const d = await driver();
    for (const p of ['/private/x', '/ok', '/not-for-crawlstream/y']) await d.pipe('deduped', HOST, url(p));
    await readyHost(d, 'User-agent: *\nDisallow: /private/\n\nUser-agent: crawlstream\nDisallow: /not-for-crawlstream/\n');
    const released: string[] = [];
    for (let i = 0; i < 5; i++) {
      await d.advanceTime(1000);
      for (const r of releasedUrls(d)) {
        released.push(r.url);
        await d.pipe('fetch-reports', HOST, done(r, d));
      }
    }
    // The group for our token replaces the * group, so /private/ is allowed for us.
    assert.deepEqual(released.sort(), [`${ORIGIN}/ok`, `${ORIGIN}/private/x`]);
    assert.equal(d.counter('schedule', 'dropped.robots-disallowed'), 1);
    await d.close();
  });

  it('should crawl without restrictions when robots.txt answers 4xx', async () => {
    const d = await driver();
    await d.pipe('deduped', HOST, url('/a'));
    const [robots] = d.readOutput('scheduled');
    await d.pipe('fetch-reports', HOST, done(robots.value, d, { status: 403 }));
    await d.advanceTime(1000);
    assert.deepEqual(d.readOutput('scheduled').map((r) => r.value.url), [`${ORIGIN}/a`]);
    await d.close();
  });

  it('should fetch nothing but robots.txt while it answers 5xx, then give the host up', async () => {
    const d = await driver({ maxAttempts: 3 });
    await d.pipe('deduped', HOST, url('/a'));
    const requested: string[] = [];
    for (let i = 0; i < 20; i++) {
      for (const r of d.readOutput('scheduled')) {
        requested.push(r.value.url);
        await d.pipe('fetch-reports', HOST, done(r.value, d, { status: 503 }));
      }
      await d.advanceTime(10_000);
    }
    assert.deepEqual(requested, Array(3).fill(`${ORIGIN}/robots.txt`));
    assert.equal(d.hasPendingWork('schedule'), false, 'a given-up host leaves no pending work');
    await d.pipe('deduped', HOST, url('/later'));
    assert.equal(d.readOutput('scheduled').length, 0);
    assert.equal(d.counter('schedule', 'dropped.robots-unreachable'), 2);
    await d.close();
  });

  it('should skip a host whose Crawl-delay is any number over the bound, 1e308 included, with a skipped row, and never wedge', async () => {
    const d = await driver();
    await d.pipe('deduped', HOST, url('/a'));
    await d.pipe('deduped', HOST, url('/b'));
    const [robots] = d.readOutput('scheduled');
    await d.pipe('fetch-reports', HOST, done(robots.value, d, robotsBody('User-agent: *\nCrawl-delay: 1e308\n')));
    assert.equal(d.counter('schedule', 'errors.fetched'), 0, 'the completion was handled');
    assert.deepEqual(d.readOutput('dead-letters'), []);
    const skipped = d.readOutput('skipped').map((r) => [r.value.url, r.value.reason]);
    assert.deepEqual(skipped, [[`${ORIGIN}/a`, 'crawl-delay-too-long'], [`${ORIGIN}/b`, 'crawl-delay-too-long']]);
    assert.equal(d.hasPendingWork('schedule'), false, 'nothing left in flight or ready: the crawl can finish');
    await d.pipe('deduped', HOST, url('/c'));
    assert.deepEqual(d.readOutput('skipped').map((r) => r.value.reason), ['crawl-delay-too-long'], 'later URLs are skipped at once');
    await d.close();
  });

  it('should follow robots.txt redirects, one request at a time with the delay', async () => {
    const d = await driver();
    await d.pipe('deduped', HOST, url('/private/a'));
    await d.pipe('deduped', HOST, url('/b'));
    const [robots] = d.readOutput('scheduled');
    await d.pipe('fetch-reports', HOST, done(robots.value, d, { status: 301, final_url: `${ORIGIN}/policy/robots.txt` }));
    assert.equal(d.readOutput('scheduled').length, 0);
    await d.advanceTime(1000);
    const [hop] = d.readOutput('scheduled');
    assert.equal(hop.value.url, `${ORIGIN}/policy/robots.txt`);
    await d.pipe('fetch-reports', HOST, done(hop.value, d, robotsBody('User-agent: *\nDisallow: /private/\n')));
    await d.advanceTime(1000);
    assert.deepEqual(d.readOutput('scheduled').map((r) => r.value.url), [`${ORIGIN}/b`]);
    await d.close();
  });

  it('should wait Retry-After after a 429 and retry the same URL', async () => {
    const d = await driver();
    await d.pipe('deduped', HOST, url('/busy'));
    await readyHost(d);
    await d.advanceTime(1000);
    const [first] = d.readOutput('scheduled');
    await d.pipe('fetch-reports', HOST, done(first.value, d, { status: 429, retry_after_ms: 5000 }));
    await d.advanceTime(4999);
    assert.equal(d.readOutput('scheduled').length, 0);
    await d.advanceTime(1);
    const [retry] = d.readOutput('scheduled');
    assert.equal(retry.value.url, `${ORIGIN}/busy`);
    assert.equal(retry.value.attempt, 2);
    await d.close();
  });

  it('should back off exponentially on 5xx and stop after the last attempt', async () => {
    const d = await driver({ maxAttempts: 3 });
    await d.pipe('deduped', HOST, url('/fails'));
    await readyHost(d);
    const times: number[] = [];
    for (let i = 0; i < 40; i++) {
      await d.advanceTime(500);
      for (const r of d.readOutput('scheduled')) {
        times.push(d.now);
        await d.pipe('fetch-reports', HOST, done(r.value, d, { status: 500 }));
      }
    }
    assert.equal(times.length, 3);
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    assert.ok(gaps[0] >= 2000 && gaps[1] >= 4000, `gaps ${gaps} must double`);
    assert.equal(d.counter('schedule', 'gave-up'), 1);
    await d.close();
  });

  it('should release breadth-first by depth within a host', async () => {
    const d = await driver({ defaultDelayMs: 0 });
    await d.pipe('deduped', HOST, url('/deep', 3));
    await d.pipe('deduped', HOST, url('/shallow', 1));
    await d.pipe('deduped', HOST, url('/middle', 2));
    await readyHost(d);
    const order: string[] = [];
    for (let i = 0; i < 5; i++) {
      await d.advanceTime(1);
      for (const r of releasedUrls(d)) {
        order.push(new URL(r.url).pathname);
        await d.pipe('fetch-reports', HOST, done(r, d));
      }
    }
    assert.deepEqual(order, ['/shallow', '/middle', '/deep']);
    await d.close();
  });

  it('should fetch no more distinct pages of a host than its budget, and drop the rest with the reason', async () => {
    const d = await driver({ maxPagesPerHost: 2, defaultDelayMs: 0 });
    for (const p of ['/1', '/2', '/3', '/4']) await d.pipe('deduped', HOST, url(p));
    await readyHost(d);
    const pages: string[] = [];
    for (let i = 0; i < 10; i++) {
      await d.advanceTime(1);
      for (const r of releasedUrls(d)) {
        pages.push(new URL(r.url).pathname);
        await d.pipe('fetch-reports', HOST, done(r, d));
      }
    }
    assert.deepEqual(pages, ['/1', '/2']);
    assert.equal(d.counter('schedule', 'dropped.host-budget'), 2);
    assert.equal(d.store(hostsStore).get(HOST)!.queue.ready, 0);
    await d.close();
  });

  it('should stop releasing pages once the crawl budget is spent', async () => {
    const budget = new CrawlBudget(1);
    const d = await driver({ defaultDelayMs: 0 }, budget);
    await d.pipe('deduped', HOST, url('/1'));
    await d.pipe('deduped', HOST, url('/2'));
    await readyHost(d);
    await d.advanceTime(1);
    const page = releasedUrls(d);
    assert.deepEqual(page.map((r) => r.url), [`${ORIGIN}/1`], 'a lease holds no more pages than the budget left');
    await completeAll(d, page);
    await d.advanceTime(10);
    assert.equal(d.readOutput('scheduled').length, 0);
    assert.equal(d.hasPendingWork('schedule'), false, 'a spent budget ends the crawl with URLs left');
    await d.close();
  });

  it('should ignore a second report of the same fetch (a redo after a crash)', async () => {
    const d = await driver({ defaultDelayMs: 0 });
    await d.pipe('deduped', HOST, url('/a'));
    await readyHost(d);
    await d.advanceTime(1);
    const [a] = releasedUrls(d);
    await d.pipe('fetch-reports', HOST, done(a, d));
    await d.pipe('deduped', HOST, url('/b'));
    const [b] = releasedUrls(d);
    assert.equal(b.url, `${ORIGIN}/b`);
    await d.pipe('fetch-reports', HOST, done(a, d)); // the redo of /a completes while /b is out
    await d.advanceTime(1000);
    assert.equal(d.readOutput('scheduled').length, 0, '/b is still out');
    assert.deepEqual(d.store(hostsStore).get(HOST)!.leases.open.map((l) => l.id), [b.lease_id]);
    assert.equal(d.counter('schedule', 'stale-completions'), 1);
    await d.close();
  });
});

describe('schedule: priority, recrawl, sitemaps', () => {
  /** Runs the host until nothing more is released: each request completes at once (`answer` shapes it). */
  async function drain(d: CrawlTestDriver, answer: (r: FetchRequest) => Partial<FetchResult> = () => ({}), rounds = 400): Promise<FetchRequest[]> {
    const released: FetchRequest[] = [];
    for (let i = 0; i < rounds; i++) {
      await d.advanceTime(100);
      for (const r of releasedUrls(d)) {
        released.push(r);
        await d.pipe('fetch-reports', HOST, done(r, d, answer(r)));
      }
    }
    return released;
  }

  it('should spend a host\'s page budget on its most linked pages: hubs before the leaves that link to them', async () => {
    const d = await driver({ maxPagesPerHost: 12, defaultDelayMs: 0 });
    await d.pipe('deduped', HOST, url('/', 0));
    for (let i = 1; i <= 60; i++) await d.pipe('deduped', HOST, url(`/leaf/${i}`, 1));
    await readyHost(d);
    const released: string[] = [];
    for (let round = 0; round < 50 && released.length < 12; round++) {
      await d.advanceTime(1);
      for (const r of releasedUrls(d)) {
        const path = new URL(r.url).pathname;
        released.push(path);
        await d.pipe('fetch-reports', HOST, done(r, d));
        // Each leaf fetched links to the five hubs; dedup reports a hub's in-links at 1, 2, 4, 8, …
        if (path.startsWith('/leaf/')) {
          const n = Number(path.slice(6));
          for (let h = 1; h <= 5; h++) {
            if ((n & (n - 1)) === 0) await d.pipe('deduped', HOST, { ...url(`/hub/${h}`, 2), inlinks: n });
          }
        }
      }
    }
    assert.equal(released.length, 12, released.join(' '));
    const hubs = released.filter((p) => p.startsWith('/hub/'));
    assert.equal(hubs.length, 5, `every hub within a budget of 12 pages, out of 66: ${released.join(' ')}`);
    await d.close();
  });
});
