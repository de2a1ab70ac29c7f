import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { partitionFor } from '../partitioning.js';
import type { LevelStore } from '../stores/level-store.js';
import { KafkaNames } from './kafka-names.js';
import { transactionRecords, type GroupOffsets, type Part } from './transaction-records.js';

const names = new KafkaNames('t.');
const store = { name: 'seen', storedName: 'seen-set' } as unknown as LevelStore<unknown, unknown>;

function part(leaving: boolean): Part {
  return {
    m: { id: 'dedup/2', node: { name: 'dedup', storedName: 'dedup-v1' }, partition: 2, partitions: 4, leaving, takeCommit: () => undefined, committed: async () => {} },
    commit: {
      outputs: [{ topic: 'deduped', key: 'example.org', value: Buffer.from('o'), timestamp: 7 }],
      stores: [{ store, writes: [{ key: Buffer.from('k'), value: Buffer.from('v') }, { key: Buffer.from('gone'), value: null }] }],
      positions: [{ topic: 'normalized', position: { base: 41, done: [43] } }],
      counters: new Map([['urls', 12]]),
    },
    leaving,
  };
}

describe('transactionRecords', () => {
  it("should write a task's outputs, store writes, positions and counters under its stored names, and its claim before and release after them", () => {
    const offsets: GroupOffsets = new Map();
    const byTopic = transactionRecords([part(true)], [{ task: 'dedup/2' }], names, 'w1', offsets);
    assert.deepEqual([...byTopic.keys()], ['t.crawlstream.task-owners', 't.deduped', 't.crawlstream.dedup-v1.seen-set.changelog', 't.crawlstream.dedup-v1.positions.changelog']);
    const owners = byTopic.get('t.crawlstream.task-owners')!.map((m) => JSON.parse(String(m.value)));
    assert.deepEqual(owners, [{ owner: 'w1', released: false }, { owner: 'w1', released: true }]);
    assert.equal(byTopic.get('t.deduped')![0].partition, partitionFor('example.org', 4), 'an output goes to the partition of its key');
    assert.deepEqual(byTopic.get('t.crawlstream.dedup-v1.seen-set.changelog')!.map((m) => [String(m.key), m.value === null ? null : String(m.value), m.partition]), [['k', 'v', 2], ['gone', null, 2]]);
    const positions = byTopic.get('t.crawlstream.dedup-v1.positions.changelog')!.map((m) => [String(m.key), String(m.value)]);
    assert.deepEqual(positions, [['pos!normalized', '{"base":41,"done":[43]}'], ['ctr!urls', '12']]);
    // Group offsets: the oldest unfinished offset, under the stored group name.
    assert.deepEqual([...offsets.get('t.crawlstream.dedup-v1')!.get('t.normalized')!], [[2, '41']]);
  });

  it('should leave the owners topic alone for a task that neither is claimed nor leaves', () => {
    const byTopic = transactionRecords([part(false)], [], names, 'w1', new Map());
    assert.equal(byTopic.has('t.crawlstream.task-owners'), false);
  });
});
