import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { freed, freedWithoutOutcome, fromSingleRelease, leased, newSlot, nextAllowedStart, pacingFields, pausedUntil, type HostSlot } from './host-politeness.js';
import { emptyBook, type LeaseBook } from './leases.js';
import { outcome } from './testing/outcomes.js';
import type { FetchResult } from '../schemas/records.js';

const HOST = 'a.test';
const URL_A = `http://${HOST}/a`;
const T = 1_000_000;
const noJitter = () => 0;

/** A slot with one lease released at T (its book is checked in leases.test.ts). */
function inFlight(over: Partial<HostSlot> = {}): HostSlot {
  return leased({ ...newSlot(1000), ...over }, emptyBook(), HOST, T, [{ hi: 1, lo: 2 }]).slot;
}

describe('host politeness: one lease at a time, the next a delay after the last request ended', () => {
  it('should allow a new host at once and no new lease while one is out', () => {
    const none = emptyBook();
    assert.equal(nextAllowedStart(newSlot(1000), none), 0);
    const { slot, book, lease } = leased(newSlot(1000), none, HOST, T, [{ hi: 1, lo: 2 }, { hi: 3, lo: 4 }]);
    assert.equal(lease.id, `${HOST}#1`);
    assert.deepEqual([lease.count, lease.size, lease.kind], [2, 2, 'urls']);
    assert.equal(nextAllowedStart(slot, book), Infinity);
    assert.equal(leased(slot, book, HOST, T, 'robots').lease.id, `${HOST}#2`, 'every lease has its own id');
    assert.equal(leased(slot, book, HOST, T, 'robots').lease.count, 1, 'robots.txt is a lease of one');
  });

  it('should keep the delay a request carries within an Avro int', () => {
    assert.deepEqual(pacingFields({ ...newSlot(1000), delayMs: 2 ** 53 }), { delay_ms: 2 ** 31 - 1 });
  });

  it('should turn a request in flight stored before leases into a lease of one', () => {
    const old: HostSlot = { ...newSlot(1000), inFlight: `${HOST}#7`, inFlightSince: T, releaseSeq: 7 };
    const { slot, book } = fromSingleRelease(old, emptyBook());
    assert.equal(slot.inFlight, '');
    assert.deepEqual(book.open.map((l) => [l.id, l.count, l.releasedAt]), [[`${HOST}#7`, 1, T]]);
    const none: LeaseBook = emptyBook();
    assert.deepEqual(fromSingleRelease(newSlot(1000), none), { slot: newSlot(1000), book: none });
  });

  const cases: { name: string; r: Partial<FetchResult>; endedAt?: number; now?: number; delay?: number; failures?: number;
    next: number; throttled?: boolean; failed?: boolean; failuresAfter?: number }[] = [
    { name: 'a success: the delay from its end', r: {}, next: T + 100 + 1000, failuresAfter: 0 },
    { name: 'a success learnt of late: the delay from when we learn of it', r: {}, endedAt: T + 100, now: T + 5000, next: T + 6000 },
    { name: 'a body that ends after we hear of it: from its end', r: {}, endedAt: T + 9000, now: T + 200, next: T + 10_000 },
    { name: 'the delay as of now (a Crawl-delay read meanwhile)', r: {}, delay: 3000, next: T + 100 + 3000 },
    { name: 'a success resets the failures', r: {}, failures: 2, next: T + 1100, failuresAfter: 0 },
    { name: '429 with Retry-After: that long', r: { status: 429, retry_after_ms: 5000 }, next: T + 100 + 5000, throttled: true, failuresAfter: 1 },
    { name: '429 without Retry-After: the backoff', r: { status: 429 }, next: T + 100 + 2000, throttled: true, failuresAfter: 1 },
    { name: '503 with Retry-After: throttled', r: { status: 503, retry_after_ms: 30_000 }, next: T + 100 + 30_000, throttled: true },
    { name: '503 without: a failure, backed off', r: { status: 503 }, next: T + 100 + 2000, failed: true, failuresAfter: 1 },
    { name: 'a third 5xx in a row: four times longer', r: { status: 500 }, failures: 2, next: T + 100 + 8000, failed: true, failuresAfter: 3 },
    { name: 'a timeout: a failure', r: { status: 0, error: 'timeout: no headers' }, next: T + 100 + 2000, failed: true },
    { name: 'a refused address: no failure, no backoff', r: { status: 0, error: 'network-refused: 10.0.0.1' }, next: T + 1100, failed: false },
    { name: 'a 404: no failure', r: { status: 404 }, next: T + 1100, failed: false, throttled: false },
    { name: 'a body cut short after a 200: no failure', r: { status: 200, error: 'body-incomplete: reset' }, next: T + 1100, failed: false },
  ];
  for (const c of cases) {
    it(`should time the next request after ${c.name}`, () => {
      const endedAt = c.endedAt ?? T + 100;
      const now = c.now ?? endedAt;
      const got = freed(inFlight({ failures: c.failures ?? 0 }), outcome(URL_A, endedAt, c.r), now, c.delay ?? 1000, 3, noJitter);
      assert.equal(got.slot.nextFetchAt, c.next);
      assert.equal(nextAllowedStart(got.slot, emptyBook()), c.next);
      if (c.throttled !== undefined) assert.equal(got.throttled, c.throttled);
      if (c.failed !== undefined) assert.equal(got.failed, c.failed);
      if (c.failuresAfter !== undefined) assert.equal(got.slot.failures, c.failuresAfter);
    });
  }

  it('should keep a backoff an earlier report of the lease set when a later one succeeds', () => {
    const backedOff = freed(inFlight(), outcome(URL_A, T + 100, { status: 503 }), T + 100, 1000, 3, noJitter).slot;
    const after = freed(backedOff, outcome(URL_A, T + 200), T + 200, 1000, 3, noJitter).slot;
    assert.equal(after.nextFetchAt, T + 100 + 2000);
  });

  it('should free a slot whose outcome cannot be read (a URL given back, a lost lease) a delay from now', () => {
    const slot = freedWithoutOutcome(inFlight(), T + 500);
    assert.equal(nextAllowedStart(slot, emptyBook()), T + 1500);
    const later = freedWithoutOutcome({ ...slot, nextFetchAt: T + 9000 }, T + 600);
    assert.equal(later.nextFetchAt, T + 9000, 'a backoff already set stands');
  });

  it('should look at a paused host again 200 ms later', () => {
    assert.equal(pausedUntil(T), T + 200);
  });
});
