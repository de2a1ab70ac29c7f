// A task sharing the ClickHouse writer moves away (its task is abandoned): what it handed over and was
// not yet being inserted is forgotten, and the writes waiting on it settle at once.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testWriter } from './testing/test-harness.js';

describe('ClickHouse sink writer: a task that moves away', () => {
  it('should settle its waiting writes at once, unwritten, and keep the other task\'s', async () => {
    // Never flushed within the test: nothing reaches a ClickHouse, so none is needed.
    const writer = testWriter(() => Promise.reject(new Error('no ClickHouse in this test')), { maxDelayMs: 60_000, lingerMs: 60_000, maxRows: 1_000_000 });
    const [mine, theirs] = [{}, {}];
    let settled = 0;
    const waits = [0, 1, 2].map((offset) => writer.write({ topic: 'parsed', partition: 0, offset }, [], mine).then(() => settled++));
    void writer.write({ topic: 'parsed', partition: 1, offset: 0 }, [], theirs);
    try {
      writer.dropOwner(mine);
      // No clock involved: settled writes have run their callbacks once the microtasks queued now ran.
      await new Promise((r) => setImmediate(r));
      assert.equal(settled, 3, 'the dropped writes settled');
      await Promise.all(waits);
      assert.equal(writer.pendingOf(mine), 0);
      assert.equal(writer.pendingOf(theirs), 1, 'the other task\'s write still waits for its flush');
    } finally {
      await writer.abort();
    }
  });
});
