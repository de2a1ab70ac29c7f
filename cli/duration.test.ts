import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DurationError, formatDuration, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it('should read each unit as milliseconds', () => {
    assert.equal(parseDuration('500ms'), 500);
    assert.equal(parseDuration('30s'), 30_000);
    assert.equal(parseDuration('5m'), 300_000);
    assert.equal(parseDuration('2h'), 7_200_000);
    assert.equal(parseDuration('7d'), 604_800_000);
    assert.equal(parseDuration('0s'), 0);
    assert.equal(parseDuration(' 90m '), 5_400_000);
  });

  it('should read fractions exactly when they make whole milliseconds', () => {
    assert.equal(parseDuration('1.5h'), 5_400_000);
    assert.equal(parseDuration('1.1s'), 1_100); // 1.1 * 1000 is 1100.0000000000002 in floating point
    assert.equal(parseDuration('0.001s'), 1);
    assert.equal(parseDuration('0.25d'), 21_600_000);
    assert.throws(() => parseDuration('0.5ms'), /not a whole number of milliseconds/);
    assert.throws(() => parseDuration('0.0001s'), /not a whole number of milliseconds/);
  });

  it('should refuse a bare number, saying which units to add', () => {
    assert.throws(() => parseDuration('30'), (e: Error) => e instanceof DurationError &&
      e.message === '"30" has no unit; write 30ms, 30s, 30m, 30h or 30d');
    assert.throws(() => parseDuration('1.5'), /has no unit/);
  });

  it('should refuse what is not one number and one lower-case unit', () => {
    for (const bad of ['', '  ', 's', '5w', '5min', '5S', '5M', '1h30m', '.5s', '5.s', '1e3ms', '0x10s', 'Infinitys',
      'NaNs', '+5s', '5 s 5', '٣s']) {
      assert.throws(() => parseDuration(bad), DurationError, JSON.stringify(bad));
    }
    assert.throws(() => parseDuration('-5s'), /negative/);
  });

  it('should refuse durations too long to count exactly and texts too long to be durations', () => {
    assert.throws(() => parseDuration('104249992d'), /too long a duration/); // > 2^53 ms
    assert.equal(parseDuration('104249991d'), 104_249_991 * 86_400_000);
    assert.throws(() => parseDuration('1'.repeat(100) + 's'), /too long for a duration/);
  });
});

describe('formatDuration', () => {
  it('should spell a duration in its largest exact unit', () => {
    assert.equal(formatDuration(0), '0s');
    assert.equal(formatDuration(1), '1ms');
    assert.equal(formatDuration(1_500), '1500ms');
    assert.equal(formatDuration(90_000), '90s');
    assert.equal(formatDuration(5_400_000), '90m');
    assert.equal(formatDuration(604_800_000), '7d');
  });

  it('should give back a text that parses to the same duration', () => {
    for (const ms of [0, 1, 999, 1_000, 61_000, 3_600_000, 86_400_000 * 3650, 2 ** 31 - 1]) {
      assert.equal(parseDuration(formatDuration(ms)), ms);
    }
  });
});
