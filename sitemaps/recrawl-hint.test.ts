import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstRecrawlIntervalHint } from './recrawl-hint.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2025, 0, 1);
const MIN = 10 * 60_000;
const MAX = 90 * DAY;

test('should map each changefreq to its documented interval', () => {
  const expected = { always: MIN, hourly: HOUR, daily: DAY, weekly: 7 * DAY, monthly: 30 * DAY, yearly: MAX, never: MAX } as const;
  for (const [changefreq, ms] of Object.entries(expected)) {
    assert.equal(firstRecrawlIntervalHint({ changefreq: changefreq as keyof typeof expected }, NOW, MIN, MAX), ms, changefreq);
  }
});

test('should clamp a changefreq interval into [min, max]', () => {
  assert.equal(firstRecrawlIntervalHint({ changefreq: 'hourly' }, NOW, 2 * HOUR, MAX), 2 * HOUR);
  assert.equal(firstRecrawlIntervalHint({ changefreq: 'weekly' }, NOW, MIN, 3 * DAY), 3 * DAY);
});

test('should prefer changefreq over lastmod', () => {
  assert.equal(firstRecrawlIntervalHint({ changefreq: 'daily', lastmod: NOW - 300 * DAY }, NOW, MIN, MAX), DAY);
});

test('should use half the lastmod age when there is no changefreq', () => {
  assert.equal(firstRecrawlIntervalHint({ lastmod: NOW - 20 * DAY }, NOW, MIN, MAX), 10 * DAY);
  assert.equal(firstRecrawlIntervalHint({ lastmod: NOW - 60_000 }, NOW, MIN, MAX), MIN);
  assert.equal(firstRecrawlIntervalHint({ lastmod: NOW - 3000 * DAY }, NOW, MIN, MAX), MAX);
});

test('should give no hint for a future lastmod or an entry without hints', () => {
  assert.equal(firstRecrawlIntervalHint({ lastmod: NOW + DAY }, NOW, MIN, MAX), undefined);
  assert.equal(firstRecrawlIntervalHint({}, NOW, MIN, MAX), undefined);
});

test('should throw on bounds that cannot be satisfied', () => {
  assert.throws(() => firstRecrawlIntervalHint({}, NOW, MAX, MIN), RangeError);
  assert.throws(() => firstRecrawlIntervalHint({}, NOW, -1, MIN), RangeError);
  assert.throws(() => firstRecrawlIntervalHint({}, NOW, 0, Number.NaN), RangeError);
});

test('should give whole milliseconds, which an Avro long can hold, for half of an odd age', () => {
  assert.equal(firstRecrawlIntervalHint({ lastmod: 1_000 }, 6_001, 1, 1e9), 2_501);
});
