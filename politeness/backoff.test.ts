import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backoffMs, MAX_BACKOFF_MS, MAX_RETRY_AFTER_MS } from './backoff.js';

const low = () => 0;
const high = () => 0.999_999;

describe('the backoff curve', () => {
  const cases: { name: string; failures: number; delay: number; retryAfter: number; max?: number; random: () => number; expect: number | [number, number] }[] = [
    { name: 'the first failure waits twice the delay', failures: 1, delay: 1000, retryAfter: 0, random: low, expect: 2000 },
    { name: 'each further failure doubles it', failures: 3, delay: 1000, retryAfter: 0, random: low, expect: 8000 },
    { name: 'a zero delay still backs off, from 250 ms', failures: 1, delay: 0, retryAfter: 0, random: low, expect: 500 },
    { name: 'the doubling stops at the attempt limit', failures: 9, delay: 1000, retryAfter: 0, max: 3, random: low, expect: 8000 },
    { name: 'jitter lengthens by up to a quarter, never shortens', failures: 1, delay: 1000, retryAfter: 0, random: high, expect: [2499, 2500] },
    { name: 'at most five minutes, jitter included', failures: 3, delay: 60_000, retryAfter: 0, random: high, expect: MAX_BACKOFF_MS },
    { name: 'a longer Retry-After wins', failures: 1, delay: 1000, retryAfter: 5000, random: high, expect: 5000 },
    { name: 'a shorter Retry-After does not shorten the backoff', failures: 2, delay: 1000, retryAfter: 100, random: low, expect: 4000 },
    { name: 'Retry-After is honoured up to an hour', failures: 1, delay: 1000, retryAfter: 10 * MAX_RETRY_AFTER_MS, random: low, expect: MAX_RETRY_AFTER_MS },
    { name: 'a Retry-After that is no number is ignored', failures: 1, delay: 1000, retryAfter: Number.NaN, random: low, expect: 2000 },
  ];
  for (const c of cases) {
    it(`should wait as the curve says: ${c.name}`, () => {
      const got = backoffMs(c.failures, c.delay, c.retryAfter, c.max ?? 10, c.random);
      if (typeof c.expect === 'number') assert.equal(got, c.expect);
      else assert.ok(got >= c.expect[0] && got <= c.expect[1], `${got} within ${c.expect}`);
    });
  }
});
