import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_RETRY_AFTER_MS, parseHttpDate, parseRetryAfter } from './retry-after.js';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

test('should turn delta-seconds into milliseconds', () => {
  assert.equal(parseRetryAfter('120', NOW), 120_000);
  assert.equal(parseRetryAfter(' 5 ', NOW), 5_000);
  assert.equal(parseRetryAfter('0', NOW), 0);
});

test('should turn an HTTP-date into the milliseconds left until it', () => {
  assert.equal(parseRetryAfter('Wed, 15 Jan 2025 12:01:30 GMT', NOW), 90_000);
  assert.equal(parseRetryAfter('Wednesday, 15-Jan-25 12:00:10 GMT', NOW), 10_000);
  assert.equal(parseRetryAfter('Wed Jan 15 12:00:02 2025', NOW), 2_000);
  assert.equal(parseRetryAfter('Wed Jan  5 12:00:00 2025', Date.UTC(2025, 0, 5, 11, 59, 59)), 1_000);
});

test('should return 0 for absent, negative, past and invalid values', () => {
  for (const v of [undefined, '', '   ', '-5', '1.5', '1e3', 'soon', 'Wed, 15 Jan 2025 11:00:00 GMT',
    'Wed, 32 Jan 2025 12:00:00 GMT', 'Wed, 31 Feb 2025 12:00:00 GMT', 'Wed, 15 Foo 2025 12:00:00 GMT',
    '2025-01-16T00:00:00Z', 'Thu, 16 Jan 2025 12:00:00', 'x'.repeat(10_000)]) {
    assert.equal(parseRetryAfter(v, NOW), 0, String(v).slice(0, 40));
  }
});

test('should cap absurd waits at 24 hours', () => {
  assert.equal(parseRetryAfter('99999999999999999999999', NOW), MAX_RETRY_AFTER_MS);
  assert.equal(parseRetryAfter('86401', NOW), MAX_RETRY_AFTER_MS);
  assert.equal(parseRetryAfter('Fri, 15 Jan 2100 12:00:00 GMT', NOW), MAX_RETRY_AFTER_MS);
  assert.equal(MAX_RETRY_AFTER_MS, 86_400_000);
});

test('should parse the three HTTP-date formats to the same instant', () => {
  const t = Date.UTC(1994, 10, 6, 8, 49, 37);
  assert.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'), t);
  assert.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT'), t);
  assert.equal(parseHttpDate('Sun Nov  6 08:49:37 1994'), t);
  assert.ok(Number.isNaN(parseHttpDate('yesterday')));
});
