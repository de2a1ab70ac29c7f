import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assignPartitions } from './co-partitioned-assigner.js';

const sizes = (m: Map<string, number[]>) => [...m.values()].map((l) => l.length).sort();
const all = (m: Map<string, number[]>) => [...m.values()].flat().sort((a, b) => a - b);

describe('co-partitioned assignment', () => {
  it('should give every partition to exactly one member, balanced', () => {
    const m = assignPartitions([{ memberId: 'b', previous: [] }, { memberId: 'a', previous: [] }, { memberId: 'c', previous: [] }], 8);
    assert.deepEqual(all(m), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(sizes(m), [2, 3, 3]);
  });

  it('should keep partitions where they were when a member joins, moving only what balance needs', () => {
    const before = assignPartitions([{ memberId: 'a', previous: [] }], 8);
    assert.deepEqual(before.get('a'), [0, 1, 2, 3, 4, 5, 6, 7]);
    const after = assignPartitions([{ memberId: 'a', previous: before.get('a')! }, { memberId: 'b', previous: [] }], 8);
    assert.deepEqual(sizes(after), [4, 4]);
    assert.ok(after.get('a')!.every((p) => before.get('a')!.includes(p)), 'a keeps a subset of what it had');
    assert.deepEqual(all(after), [0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('should hand a leaving member\'s partitions to the others and leave theirs in place', () => {
    const a = [0, 1, 2], b = [3, 4, 5], c = [6, 7];
    const after = assignPartitions([{ memberId: 'a', previous: a }, { memberId: 'b', previous: b }], 8);
    assert.deepEqual(all(after), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.ok(a.every((p) => after.get('a')!.includes(p)) && b.every((p) => after.get('b')!.includes(p)));
    assert.deepEqual(sizes(after), [4, 4]);
    assert.ok(c.every((p) => after.get('a')!.includes(p) || after.get('b')!.includes(p)));
  });

  it('should ignore claims on partitions that do not exist or that another member already holds', () => {
    const m = assignPartitions([{ memberId: 'a', previous: [0, 1, 9] }, { memberId: 'b', previous: [1, 2] }], 4);
    assert.deepEqual(all(m), [0, 1, 2, 3]);
    assert.deepEqual(sizes(m), [2, 2]);
  });
});
