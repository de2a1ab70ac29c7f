import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InputTracker } from './input-position.js';
import { outstandingWork, type TaskHoldings } from './task-outstanding.js';

const idle: TaskHoldings = { state: 'running', queued: 0, firstQueued: undefined, running: 0, midway: false, trackers: new Map(), outputs: 0 };

describe('outstandingWork (why a task is busy, for its status)', () => {
  it('should say nothing of a running task that holds nothing', () => {
    const t = new InputTracker('fetched', { base: 7, done: [] });
    assert.deepEqual(outstandingWork({ ...idle, trackers: new Map([['fetched', t]]) }), []);
  });

  it('should name queued and unfinished records with their offsets, and positions read past the commit', () => {
    const deduped = new InputTracker('deduped', { base: 10, done: [] });
    for (const o of [10, 11, 12]) deduped.read(o);
    deduped.finish(10);
    const fetched = new InputTracker('fetched', { base: 3, done: [] });
    fetched.pass(3); // finished, not yet committed
    const why = outstandingWork({
      ...idle, queued: 2, firstQueued: { topic: 'deduped', partition: 7, offset: 11, timestamp: 0, key: 'h', value: Buffer.alloc(0) },
      midway: true, outputs: 4, trackers: new Map([['deduped', deduped], ['fetched', fetched]]),
    });
    assert.deepEqual(why, [
      '2 queued from deduped@11',
      'a record or punctuation mid-way',
      'deduped read to 13, committed to 10, unfinished from 11',
      'fetched read to 4, committed to 3',
      '4 output(s) not committed',
    ]);
  });

  it('should name a task that is not running (a stop or hand-over under way) and concurrent records running', () => {
    assert.deepEqual(outstandingWork({ ...idle, state: 'handing-over', running: 3 }), ['task handing-over', '3 running']);
  });
});
