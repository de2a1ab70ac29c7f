import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { failureLine, restartWait, toldFailure } from './restart-backoff.js';

describe('restarting what a broker refused', () => {
  it('should wait 250 ms, doubling, and never more than 2 s: a worker is back within 2 s of a broker that serves again', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 10, 60].map(restartWait), [250, 500, 1000, 2000, 2000, 2000, 2000]);
  });

  it('should tell the first failure and then every tenth, saying how many attempts it has made', () => {
    assert.deepEqual([0, 1, 9, 10, 11, 20].map(toldFailure), [true, false, false, true, false, true]);
    const err = new Error('The coordinator is loading');
    assert.equal(failureLine('fetch-2', err, 0), 'fetch-2: cannot start (The coordinator is loading); trying again in 250 ms');
    assert.equal(failureLine('fetch-2', err, 10), 'fetch-2: cannot start (The coordinator is loading); trying again in 2000 ms (attempt 11; told every 10 attempts)');
  });
});
