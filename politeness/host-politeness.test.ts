import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { freed, freedWithoutOutcome, newSlot, nextAllowedStart, pausedUntil, released, restarted, staleAt, type HostSlot } from './host-politeness.js';
import { outcome } from './testing/outcomes.js';
import type { FetchResult } from '../schemas/records.js';

const HOST = 'a.test';
const URL_A = `http://${HOST}/a`;
const T = 1_000_000;
const noJitter = () => 0;

/** A slot with one request released at T. */
function inFlight(over: Partial<HostSlot> = {}): HostSlot {
  return released({ ...newSlot(1000), ...over }, HOST, T).slot;
}

describe('host politeness: one request at a time, the next a delay after the last ended', () => {
  it('should allow a new host at once and nothing while a request is in flight', () => {
    assert.equal(nextAllowedStart(newSlot(1000)), 0);
    const slot = inFlight();
    assert.equal(slot.inFlight, `${HOST}#1`);
    assert.equal(nextAllowedStart(slot), Infinity);
    assert.equal(released(slot, HOST, T).fetchId, `${HOST}#2`, 'every release has its own id');
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
      assert.equal(got.slot.inFlight, '');
      assert.equal(nextAllowedStart(got.slot), c.next);
      if (c.throttled !== undefined) assert.equal(got.throttled, c.throttled);
      if (c.failed !== undefined) assert.equal(got.failed, c.failed);
      if (c.failuresAfter !== undefined) assert.equal(got.slot.failures, c.failuresAfter);
    });
  }

  it('should free a slot whose outcome cannot be read a delay from now', () => {
    const slot = freedWithoutOutcome(inFlight(), T + 500);
    assert.equal(slot.inFlight, '');
    assert.equal(nextAllowedStart(slot), T + 1500);
  });

  it('should give a request up as lost only after twice the fetch timeout and a grace, counted again after a restart', () => {
    assert.equal(staleAt(inFlight(), 30_000), T + 60_000 + 60_000);
    const after = restarted(inFlight(), T + 10 * 60_000);
    assert.equal(staleAt(after, 30_000), T + 10 * 60_000 + 120_000);
    assert.deepEqual(restarted(newSlot(1000), T), newSlot(1000), 'a free slot is left alone');
  });

  it('should look at a paused host again 200 ms later', () => {
    assert.equal(pausedUntil(T), T + 200);
  });
});
