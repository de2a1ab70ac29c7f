// What one worker of a process opens: all of the process's parse workers and sockets alone, a part of
// them as one of N threads (`worker --threads N`), never none.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { shareOf } from './open-services.js';
import { DEFAULT_MAX_CONNECTIONS } from '../fetching/http-fetcher.js';

describe('a worker\'s share of the process', () => {
  it('should give a worker alone a parse worker for every core but one, and every socket', () => {
    assert.deepEqual(shareOf(1, 16), { parseWorkers: 15, sockets: DEFAULT_MAX_CONNECTIONS });
    assert.deepEqual(shareOf(1, 1), { parseWorkers: 1, sockets: DEFAULT_MAX_CONNECTIONS });
  });

  it('should split them among threads, so that N threads open what one worker would', () => {
    for (const [cores, threads] of [[16, 4], [16, 16], [64, 8], [2, 2]]) {
      const each = shareOf(1 / threads, cores);
      assert.ok(each.parseWorkers * threads <= Math.max(threads, cores - 1), `${cores} cores, ${threads} threads: ${each.parseWorkers} parse workers each`);
      assert.ok(each.sockets * threads <= Math.max(16 * threads, DEFAULT_MAX_CONNECTIONS), `${threads} threads: ${each.sockets} sockets each`);
    }
    assert.deepEqual(shareOf(1 / 4, 16), { parseWorkers: 3, sockets: 64 });
  });

  it('should leave every thread at least one parse worker and a few sockets', () => {
    assert.deepEqual(shareOf(1 / 256, 2), { parseWorkers: 1, sockets: 16 });
  });
});
