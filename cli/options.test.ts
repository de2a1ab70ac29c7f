import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlConfigFrom, durationOption, intOption, LIMITS, TIMER_MAX_MS, UsageError } from './options.js';
import { parseSince } from './replay-command.js';

const usage = (pattern: RegExp) => (e: Error) => e instanceof UsageError && pattern.test(e.message);

describe('intOption', () => {
  const bounds = { min: 1, max: 4096, why: 'hosts hash to 4096 buckets' };

  it('should accept both ends of the range and leave an absent option undefined', () => {
    assert.equal(intOption({ n: '1' }, 'n', bounds), 1);
    assert.equal(intOption({ n: '4096' }, 'n', bounds), 4096);
    assert.equal(intOption({ n: '007' }, 'n', bounds), 7);
    assert.equal(intOption({}, 'n', bounds), undefined);
  });

  it('should refuse values outside the range, naming the flag, the range and why', () => {
    assert.throws(() => intOption({ partitions: '0' }, 'partitions', bounds),
      usage(/^--partitions must be an integer from 1 to 4096, got 0$/));
    assert.throws(() => intOption({ partitions: '100000' }, 'partitions', bounds),
      usage(/^--partitions must be an integer from 1 to 4096, got 100000 \(hosts hash to 4096 buckets\)$/));
  });

  it('should refuse what is not plain decimal digits', () => {
    for (const bad of ['', ' 5', '5 ', '+5', '-1', '1e3', '0x10', '5.0', '5.5', 'Infinity', 'NaN', '9'.repeat(17), '１２']) {
      assert.throws(() => intOption({ n: bad }, 'n', { min: 0, max: Number.MAX_SAFE_INTEGER }), usage(/^--n must be an integer/), bad);
    }
  });
});

describe('durationOption', () => {
  const bounds = { min: 1_000, max: 7 * 86_400_000 };

  it('should accept both ends of the range in any unit', () => {
    assert.equal(durationOption({ t: '1s' }, 't', bounds), 1_000);
    assert.equal(durationOption({ t: '1000ms' }, 't', bounds), 1_000);
    assert.equal(durationOption({ t: '7d' }, 't', bounds), 7 * 86_400_000);
    assert.equal(durationOption({ t: '168h' }, 't', bounds), 7 * 86_400_000);
    assert.equal(durationOption({}, 't', bounds), undefined);
  });

  it('should refuse values outside the range, naming the flag and the range as durations', () => {
    assert.throws(() => durationOption({ 'run-for': '999ms' }, 'run-for', bounds),
      usage(/^--run-for must be a duration from 1s to 7d, got 999ms$/));
    assert.throws(() => durationOption({ 'run-for': '7.5d' }, 'run-for', { ...bounds, why: 'a week at most' }),
      usage(/^--run-for must be a duration from 1s to 7d, got 7\.5d \(a week at most\)$/));
  });

  it('should refuse a bare number unless the flag reads bare numbers in a legacy unit', () => {
    assert.throws(() => durationOption({ t: '30' }, 't', bounds), usage(/^--t must be a duration from 1s to 7d: "30" has no unit/));
    assert.throws(() => durationOption({ t: 'soon' }, 't', bounds), usage(/"soon" is not a duration; give a number and a unit/));
    assert.equal(durationOption({ t: '30' }, 't', { ...bounds, plainNumbersIn: 's' }), 30_000);
    assert.equal(durationOption({ t: '2m' }, 't', { ...bounds, plainNumbersIn: 's' }), 120_000);
    assert.throws(() => durationOption({ t: '0' }, 't', { ...bounds, plainNumbersIn: 's' }), usage(/got 0$/));
  });
});

describe('LIMITS', () => {
  it('should keep every delay and timeout below the point where Node timers overflow', () => {
    for (const key of ['defaultDelayMs', 'fetchTimeoutMs', 'sessionTimeoutMs', 'waitTimeoutMs'] as const) {
      assert.ok(LIMITS[key].max <= TIMER_MAX_MS, key);
    }
  });

  it('should give every range a minimum not above its maximum', () => {
    for (const [key, b] of Object.entries(LIMITS)) assert.ok(b.min <= b.max && Number.isSafeInteger(b.max), key);
  });
});

describe('crawlConfigFrom', () => {
  const flags = {
    'max-depth': LIMITS.maxDepth, 'max-pages': LIMITS.maxPages, 'max-pages-per-host': LIMITS.maxPagesPerHost,
    'default-delay-ms': LIMITS.defaultDelayMs, 'fetch-timeout-ms': LIMITS.fetchTimeoutMs,
  };

  it('should accept both ends of every crawl-level range', () => {
    for (const [flag, b] of Object.entries(flags)) {
      assert.doesNotThrow(() => crawlConfigFrom({ [flag]: String(b.min) }), flag);
      assert.doesNotThrow(() => crawlConfigFrom({ [flag]: String(b.max) }), flag);
    }
    const c = crawlConfigFrom({ 'fetch-timeout-ms': '100', 'default-delay-ms': '0', 'max-depth': '1000' });
    assert.deepEqual([c.fetchTimeoutMs, c.connectTimeoutMs, c.headersTimeoutMs, c.defaultDelayMs, c.maxDepth], [100, 100, 100, 0, 1000]);
  });

  it('should refuse one past either end of every crawl-level range', () => {
    for (const [flag, b] of Object.entries(flags)) {
      assert.throws(() => crawlConfigFrom({ [flag]: String(b.max + 1) }), usage(new RegExp(`^--${flag} must be an integer from`)), flag);
      if (b.min > 0) assert.throws(() => crawlConfigFrom({ [flag]: String(b.min - 1) }), usage(new RegExp(`^--${flag} must be`)), flag);
    }
  });

  it('should refuse a fetch timeout that would overflow the timer and time every fetch out at once', () => {
    assert.throws(() => crawlConfigFrom({ 'fetch-timeout-ms': '99999999999' }),
      usage(/^--fetch-timeout-ms must be an integer from 100 to 3600000, got 99999999999 \(a single request may take at most an hour\)$/));
  });
});

describe('parseSince', () => {
  const now = Date.UTC(2026, 10, 20, 12);

  it('should read a duration back from now', () => {
    assert.equal(parseSince('90m', now), now - 5_400_000);
    assert.equal(parseSince('1.5h', now), now - 5_400_000);
    assert.equal(parseSince('7d', now), now - 7 * 86_400_000);
  });

  it('should read ISO dates', () => {
    assert.equal(parseSince('2026-11-20', now), Date.UTC(2026, 10, 20));
    assert.equal(parseSince('2026-11-20T08:00:00Z', now), Date.UTC(2026, 10, 20, 8));
    assert.equal(parseSince('2026-11-20T08:00:00.5+01:00', now), Date.UTC(2026, 10, 20, 7, 0, 0, 500));
    assert.equal(parseSince('2099-01-01T00:00:00Z', now), Date.UTC(2099, 0, 1)); // replays nothing, as asked
  });

  it('should refuse a bare number instead of reading it as a year', () => {
    // Date.parse('1') is 2001-01-01: a forgotten unit must not replay 25 years.
    assert.throws(() => parseSince('1', now), usage(/^--since must be a duration from 1ms to 3650d: "1" has no unit.*\(or a date: 2026-11-20/));
  });

  it('should refuse dates that do not exist and durations out of range', () => {
    assert.throws(() => parseSince('2026-02-30', now), usage(/"2026-02-30" is not a valid date/));
    assert.throws(() => parseSince('2026-11-20T25:00Z', now), usage(/not a valid date/));
    assert.throws(() => parseSince('2026-11', now), usage(/not a date in the form/));
    assert.throws(() => parseSince('3651d', now), usage(/from 1ms to 3650d, got 3651d/));
    assert.throws(() => parseSince('0s', now), usage(/got 0s/));
    assert.throws(() => parseSince('yesterday', now), usage(/"yesterday" is not a duration/));
  });
});
