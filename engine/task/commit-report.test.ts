import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { commitReport } from './commit-report.js';
import type { TaskCommit } from './stream-task.js';

const out = (topic: string) => ({ topic, key: 'k', value: Buffer.alloc(0), timestamp: 0 });
const commit = (topics: string[], counters: [string, number][]): TaskCommit => ({ outputs: topics.map(out), stores: [], positions: [], counters: new Map(counters) });

describe('commitReport', () => {
  it('should count records per topic and report how much each counter grew since the last commit', () => {
    const totals = new Map([['rejected.too-long', 5]]); // restored from an earlier run
    const first = commitReport('normalize', 2, commit(['normalized', 'normalized', 'dead-letters'], [['rejected.too-long', 7], ['normalized', 2]]), totals)!;
    assert.deepEqual(first.produced, new Map([['normalized', 2], ['dead-letters', 1]]));
    assert.deepEqual(first.counted, new Map([['rejected.too-long', 2], ['normalized', 2]]), 'growth, not totals');
    assert.equal(first.processor, 'normalize');
    assert.equal(first.partition, 2);
    const second = commitReport('normalize', 2, commit([], [['normalized', 3]]), totals)!;
    assert.deepEqual(second.counted, new Map([['normalized', 1]]));
    assert.equal(second.produced.size, 0);
  });

  it('should report nothing for a commit of positions alone', () => {
    assert.equal(commitReport('sink', 0, commit([], []), new Map()), undefined);
  });
});
