// A schedule record that fails mid-way: the engine undoes its store writes and outputs, and the
// schedule puts its in-memory copies (host, counts, queue heads, robots rules, budget) back from the
// stores, so the next record sees one consistent state and the crawl can still finish.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlTestDriver, type CrawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import { NO_HINTS, PLAIN_RESULT, type CanonicalUrl, type FetchRequest, type FetchResult } from '../../schemas/records.js';
import { CrawlBudget } from '../../contract/crawl-budget.js';
import { leaseRequests } from '../../politeness/leases.js';
import { hostsStore } from './host-state.js';

const HOST = '127.0.0.9:8080';
const ORIGIN = `http://${HOST}`;

const url = (path: string): CanonicalUrl =>
  ({ url: `${ORIGIN}${path}`, host: HOST, depth: 1, source_url: '', via: 'link', redirect_hops: 0, discovered_at: 0, ...NO_HINTS, inlinks: 1, more: [] });

function done(req: FetchRequest, d: CrawlTestDriver, body = ''): FetchResult {
  return {
    ...PLAIN_RESULT, fetch_id: req.fetch_id, url: req.url, host: req.host, kind: req.kind, depth: req.depth, attempt: req.attempt,
    via: req.via, source_url: req.source_url, redirect_hops: req.redirect_hops, status: 200, error: '', final_url: req.url,
    redirect_chain: [], headers: {}, started_at: d.now - 10, elapsed_ms: 10, ttfb_ms: 5, bytes: body.length, wire_bytes: 0,
    content_type: 'text/plain', charset: '', truncated: false, retry_after_ms: 0, conditional: false, remote_address: '',
    body_encoding: 'identity', body: Buffer.from(body), lease_id: req.lease_id, lease_epoch: req.lease_epoch, address: '',
  };
}

/** The shared page budget, failing at the `failAt`-th page taken from now: a fault in the middle of a record. */
class FailingBudget extends CrawlBudget {
  failAt = 0;
  override tryTake(): boolean {
    if (this.failAt > 0 && --this.failAt === 0) throw new Error('the budget failed');
    return super.tryTake();
  }
}

const released = (d: CrawlTestDriver) => d.readOutput('scheduled').flatMap((r) => leaseRequests(r.value));

describe('schedule when a record fails mid-way', () => {
  it('should undo it whole (no lease, its page back in the budget, its URL unknown) and go on from the stores', async () => {
    const budget = new FailingBudget(10);
    const control = { paused: false };
    const d = await crawlTestDriver({ processors: ['schedule'], config: { defaultDelayMs: 1000, sitemaps: false }, services: { budget, control } });
    await d.pipe('deduped', HOST, url('/x'));
    const [robots] = released(d);
    // Answered half a second after its release: the loop the schedule measures sizes leases to two URLs.
    await d.advanceTime(500);
    await d.pipe('fetch-reports', HOST, done(robots, d, 'User-agent: *\nAllow: /\n'));
    await d.advanceTime(2_000);
    const [x] = released(d);
    assert.equal(x.url, `${ORIGIN}/x`);
    await d.pipe('fetch-reports', HOST, done(x, d));
    await d.advanceTime(2_000);
    assert.equal(d.hasPendingWork('schedule'), false);

    // /y and /z wait while releases are paused; then /w comes, and its record queues /w, takes /y
    // and its page, and fails as /z is taken.
    control.paused = true;
    await d.pipe('deduped', HOST, url('/y'));
    await d.pipe('deduped', HOST, url('/z'));
    control.paused = false;
    const queued = d.store(hostsStore).get(HOST)!;
    budget.failAt = 2;
    await d.pipe('deduped', HOST, url('/w'));
    assert.equal(d.readOutput('dead-letters').length, 1, 'the failed record is a dead letter');
    assert.equal(d.counter('schedule', 'errors.deduped'), 1);
    assert.deepEqual(released(d), [], 'no lease of the failed record went out');
    assert.equal(budget.pagesReleased, 1, 'the page /y took is back in the budget');
    assert.deepEqual(d.store(hostsStore).get(HOST), queued, 'the host as it was before the record');

    // The next records see that state: /w, discovered again, is queued after /y and /z; each is leased
    // once, and the crawl ends.
    await d.pipe('deduped', HOST, url('/w'));
    const leased: string[] = [];
    for (let i = 0; i < 5 && d.hasPendingWork('schedule'); i++) {
      for (const r of released(d)) {
        leased.push(r.url);
        await d.pipe('fetch-reports', HOST, done(r, d));
      }
      await d.advanceTime(2_000);
    }
    assert.deepEqual(leased, [`${ORIGIN}/y`, `${ORIGIN}/z`, `${ORIGIN}/w`]);
    assert.equal(d.hasPendingWork('schedule'), false, 'nothing left in memory that the stores do not hold');
    assert.equal(d.store(hostsStore).get(HOST)!.queue.released, 4);
    assert.equal(budget.pagesReleased, 4);
    await d.close();
  });
});
