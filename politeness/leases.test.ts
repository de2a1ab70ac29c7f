import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { emptyBook, fetchIdOf, leaseRequests, LoopEstimate, lostAt, mayQueueBehind, MAX_LEASE, opened, owedCount, reported, restarted, type Lease, type LeaseBook } from './leases.js';
import { outcome } from './testing/outcomes.js';
import { PLAIN_REQUEST, type FetchRequest } from '../schemas/records.js';

const T = 1_000_000;
const A = { hi: 1, lo: 1 };
const B = { hi: 2, lo: 2 };
const C = { hi: 3, lo: 3 };

function lease(over: Partial<Lease> = {}): Lease {
  return { id: 'h#1', epoch: 0, releasedAt: T, queued: false, kind: 'urls', owed: [A, B], count: 2, size: 2, ...over };
}

const ok = { address: '10.0.0.1', epoch: 0, cut: false };

describe('leases: the book of a host\'s leases out', () => {
  it('should owe each URL until it reports, and close the lease with the last', () => {
    let book = opened(emptyBook(), lease(), T);
    assert.equal(owedCount(book), 2);
    const first = reported(book, 'h#1', A, ok, T + 10)!;
    assert.equal(first.closed, false);
    assert.deepEqual(first.book.open[0].owed, [B]);
    assert.equal(first.book.progressAt, T + 10);
    book = first.book;
    const second = reported(book, 'h#1', B, ok, T + 20)!;
    assert.equal(second.closed, true);
    assert.deepEqual(second.book.open, []);
    assert.equal(second.book.address, '', 'a host with nothing out is resolved afresh');
  });

  const stale: { name: string; id: string; ref: typeof A | undefined }[] = [
    { name: 'a lease not out (given up, or never)', id: 'h#9', ref: A },
    { name: 'a URL the lease does not owe (reported twice)', id: 'h#1', ref: C },
    { name: 'a report without a URL for a lease that names its URLs', id: 'h#1', ref: undefined },
  ];
  for (const s of stale) {
    it(`should ignore a report of ${s.name}`, () => {
      assert.equal(reported(opened(emptyBook(), lease(), T), s.id, s.ref, ok, T), undefined);
    });
  }

  it('should count a request released before leases (no URL named) by its number alone', () => {
    const book = opened(emptyBook(), lease({ owed: [], count: 1, size: 1 }), T);
    assert.equal(reported(book, 'h#1', C, ok, T)!.closed, true);
  });

  const generations: { name: string; bookEpoch: number; r: { epoch: number; cut: boolean }; after: number }[] = [
    { name: 'a success keeps the generation', bookEpoch: 3, r: { epoch: 3, cut: false }, after: 3 },
    { name: 'a failure in the current generation starts the next', bookEpoch: 3, r: { epoch: 3, cut: true }, after: 4 },
    { name: 'a failure in an older generation changes nothing', bookEpoch: 4, r: { epoch: 3, cut: true }, after: 4 },
  ];
  for (const g of generations) {
    it(`should keep backoff generations: ${g.name}`, () => {
      const book: LeaseBook = { ...opened(emptyBook(), lease({ epoch: g.r.epoch }), T), epoch: g.bookEpoch };
      assert.equal(reported(book, 'h#1', A, { address: '', ...g.r }, T)!.book.epoch, g.after);
    });
  }

  it('should pin the address the open leases\' requests reached, from the first report that names one', () => {
    const book = opened(emptyBook(), lease({ owed: [A, B, C], count: 3, size: 3 }), T);
    const none = reported(book, 'h#1', A, { ...ok, address: '' }, T)!.book;
    assert.equal(none.address, '');
    const pinned = reported(none, 'h#1', B, ok, T)!.book;
    assert.equal(pinned.address, '10.0.0.1');
  });

  const queueing: { name: string; book: LeaseBook; failures?: number; may: boolean }[] = [
    { name: 'nothing out', book: emptyBook(), may: false },
    { name: 'one lease out, no report yet', book: { ...opened(emptyBook(), lease(), T), address: '10.0.0.1' }, may: false },
    { name: 'one lease out that reported from an address', book: { ...opened(emptyBook(), lease({ count: 1 }), T), address: '10.0.0.1' }, may: true },
    { name: 'one that reported but without an address', book: opened(emptyBook(), lease({ count: 1 }), T), may: false },
    { name: 'a robots.txt lease', book: { ...opened(emptyBook(), lease({ kind: 'robots', count: 0, size: 1 }), T), address: '10.0.0.1' }, may: false },
    { name: 'a lease of a generation that failed', book: { ...opened(emptyBook(), lease({ count: 1 }), T), address: '10.0.0.1', epoch: 1 }, may: false },
    { name: 'a host backing off', book: { ...opened(emptyBook(), lease({ count: 1 }), T), address: '10.0.0.1' }, failures: 1, may: false },
    { name: 'two leases out', book: { ...opened(opened(emptyBook(), lease({ count: 1 }), T), lease({ id: 'h#2' }), T), address: '10.0.0.1' }, may: false },
  ];
  for (const q of queueing) {
    it(`should ${q.may ? '' : 'not '}queue a next lease behind: ${q.name}`, () => {
      assert.equal(mayQueueBehind(q.book, q.failures ?? 0), q.may);
    });
  }

  it('should give leases up as lost after a delay, twice the fetch timeout and a minute without a report, counted again after a restart', () => {
    const book = opened(emptyBook(), lease(), T);
    assert.equal(lostAt(book, 1000, 30_000), T + 1000 + 60_000 + 60_000);
    assert.equal(lostAt(restarted(book, T + 600_000), 1000, 30_000), T + 600_000 + 121_000);
    assert.deepEqual(restarted(emptyBook(), T), emptyBook(), 'a host with nothing out is left alone');
  });

  it('should split a lease into one request per URL, in order, each with its own fetch id', () => {
    const first: FetchRequest = {
      ...PLAIN_REQUEST, fetch_id: fetchIdOf('h#7', 0), url: 'http://h/a', host: 'h', kind: 'page', depth: 1, attempt: 1, via: 'link', source_url: '',
      redirect_hops: 0, delay_ms: 500, released_at: T, if_none_match: '', if_modified_since: '', lease_id: 'h#7', lease_epoch: 2,
    };
    const entry = { ...first, fetch_id: fetchIdOf('h#7', 1), url: 'http://h/s.xml', kind: 'sitemap' as const, sitemap_depth: 1 };
    const { delay_ms: _d, released_at: _r, host: _h, address: _a, lease_id: _l, lease_epoch: _e, more: _m, ...more } = entry;
    const split = leaseRequests({ ...first, more: [more] });
    assert.deepEqual(split.map((r) => [r.fetch_id, r.url, r.kind, r.delay_ms, r.lease_id, r.lease_epoch, r.more.length]),
      [['h#7', 'http://h/a', 'page', 500, 'h#7', 2, 0], ['h#7.1', 'http://h/s.xml', 'sitemap', 500, 'h#7', 2, 0]]);
  });
});

describe('leases: how many URLs a lease holds', () => {
  const measured = (loopMs: number, fetchMs = 10) => {
    const e = new LoopEstimate(0, fetchMs);
    e.observe(lease({ id: 'x#1' }), outcome('http://x/', T + loopMs + fetchMs, { fetch_id: 'x#1', elapsed_ms: fetchMs }), T + loopMs + fetchMs);
    return e;
  };
  const sizes: { name: string; estimate: LoopEstimate; delay: number; size: number }[] = [
    { name: 'one until a loop is measured', estimate: new LoopEstimate(), delay: 0, size: 1 },
    { name: 'a round trip of a fast host\'s pacing, and one to queue behind', estimate: measured(300), delay: 0, size: 31 },
    { name: 'never more than the cap', estimate: measured(5000), delay: 0, size: MAX_LEASE },
    { name: 'two at a delay near the loop', estimate: measured(500), delay: 1000, size: 2 },
    { name: 'one when the delay dwarfs the loop (no queueing behind)', estimate: measured(50), delay: 1000, size: 1 },
  ];
  for (const s of sizes) {
    it(`should size leases: ${s.name}`, () => {
      assert.equal(s.estimate.size(s.delay), s.size);
    });
  }

  it('should measure the loop only from the first URL of a lease onto a free host', () => {
    const e = measured(300);
    e.observe(lease({ id: 'x#2', queued: true }), outcome('http://x/', T + 9000, { fetch_id: 'x#2' }), T + 9000);
    e.observe(lease({ id: 'x#3' }), outcome('http://x/', T + 9000, { fetch_id: 'x#3.1' }), T + 9000);
    assert.equal(e.loopMs, 300);
  });
});
