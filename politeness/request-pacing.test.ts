import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LeaseCuts, pacingOf, releasedBeforeStart, SubrequestSpacing } from './request-pacing.js';
import { PLAIN_REQUEST, type FetchRequest } from '../schemas/records.js';

const T = 1_000_000;

function request(over: Partial<FetchRequest> = {}): FetchRequest {
  return {
    ...PLAIN_REQUEST, fetch_id: 'h#1', url: 'http://h/a', host: 'h', kind: 'page', depth: 1, attempt: 1, via: 'link', source_url: '',
    redirect_hops: 0, delay_ms: 700, released_at: T, if_none_match: '', if_modified_since: '', lease_id: 'h#1', lease_epoch: 2, ...over,
  };
}

describe('request pacing in the fetch task', () => {
  it('should pace a request by the delay its host was released with', () => {
    assert.deepEqual(pacingOf(request()), { delayMs: 700, notBefore: 700 });
  });

  it('should start no page a delay sooner than the task started (the previous owner\'s last request may end then), robots.txt at once', () => {
    assert.deepEqual(pacingOf(request(), T), { delayMs: 700, notBefore: T + 700 });
    assert.deepEqual(pacingOf(request({ kind: 'sitemap' }), T), { delayMs: 700, notBefore: T + 700 });
    assert.deepEqual(pacingOf(request({ kind: 'robots' }), T), { delayMs: 700, notBefore: 0 });
  });

  const starts: { name: string; releasedAt: number; timestamp: number; startedAt: number; before: boolean }[] = [
    { name: 'released after the task started', releasedAt: T + 5, timestamp: T + 6, startedAt: T, before: false },
    { name: 'released before it started (a redo after a crash or a move)', releasedAt: T - 5, timestamp: T - 4, startedAt: T, before: true },
    { name: 'a release time from a clock that ran ahead, bounded by the record\'s time', releasedAt: T + 60_000, timestamp: T - 1, startedAt: T, before: true },
    { name: 'no release time: the record\'s time', releasedAt: 0, timestamp: T + 1, startedAt: T, before: false },
  ];
  for (const s of starts) {
    it(`should tell a request ${s.name}`, () => {
      assert.equal(releasedBeforeStart(request({ released_at: s.releasedAt }), s.timestamp, s.startedAt), s.before);
    });
  }

  const cuts: { name: string; outcome: { status: number; retry_after_ms?: number; error?: string }; cut: boolean }[] = [
    { name: 'a 200 cuts nothing', outcome: { status: 200 }, cut: false },
    { name: 'a 404 cuts nothing', outcome: { status: 404 }, cut: false },
    { name: 'a 429 cuts the generation', outcome: { status: 429 }, cut: true },
    { name: 'a 503 with Retry-After cuts it', outcome: { status: 503, retry_after_ms: 1000 }, cut: true },
    { name: 'a 500 cuts it', outcome: { status: 500 }, cut: true },
    { name: 'a timeout cuts it', outcome: { status: 0, error: 'timeout: headers' }, cut: true },
    { name: 'a refused address cuts nothing', outcome: { status: 0, error: 'network-refused: 10.0.0.1' }, cut: false },
  ];
  for (const c of cuts) {
    it(`should cut a lease short by the outcome: ${c.name}`, () => {
      const leases = new LeaseCuts();
      leases.ended(request(), { retry_after_ms: 0, error: '', ...c.outcome });
      assert.equal(leases.isCut(request({ fetch_id: 'h#1.1' })), c.cut, 'the next URL of the lease');
      assert.equal(leases.isCut(request({ fetch_id: 'h#2', lease_id: 'h#2' })), c.cut, 'a lease queued behind it, same generation');
    });
  }

  it('should let a newer generation through and forget the cut then, and judge hosts apart', () => {
    const leases = new LeaseCuts();
    leases.ended(request(), { status: 429, retry_after_ms: 0, error: '' });
    assert.equal(leases.isCut(request({ host: 'other' })), false);
    assert.equal(leases.isCut(request({ lease_id: '' })), false, 'requests released before leases are not judged');
    assert.equal(leases.isCut(request({ lease_id: 'h#3', lease_epoch: 3 })), false);
    assert.equal(leases.isCut(request()), false, 'the mark is gone once a newer generation went ahead');
  });

  it('should space a browser\'s requests a delay apart, from the page\'s end', async () => {
    let now = T;
    const spacing = new SubrequestSpacing(request({ delay_ms: 0 }), T - 1, () => now);
    await spacing.turn();
    now = T + 50;
    spacing.ended();
    const pageEnded = Date.now();
    const paced = new SubrequestSpacing(request({ delay_ms: 40 }), pageEnded, Date.now);
    await paced.turn();
    assert.ok(Date.now() - pageEnded >= 40, 'waited the whole delay after the page ended');
  });
});
