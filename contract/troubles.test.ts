import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Troubles } from './troubles.js';

test('should say what an output is failing at, and forget it once a write works again', () => {
  let now = 1_795_000_000_000;
  const troubles = new Troubles(() => now);
  const ch = troubles.of('clickhouse');
  assert.equal(troubles.why('clickhouse'), undefined);
  // Attempts begun in the same millisecond are kept apart.
  const endA = ch.begin();
  const endB = ch.begin();
  endA();
  now += 5_000;
  assert.deepEqual(troubles.why('clickhouse'), { failure: undefined, silentMs: 5_000 });
  endB();
  ch.failed('Code: 241.\n DB::Exception: Memory limit');
  assert.deepEqual(troubles.why('clickhouse'), { failure: 'Code: 241. DB::Exception: Memory limit', silentMs: undefined });
  const endC = ch.begin();
  now += 2_000;
  assert.deepEqual(troubles.why('clickhouse'), { failure: 'Code: 241. DB::Exception: Memory limit', silentMs: 2_000 });
  endC();
  ch.working();
  assert.equal(troubles.why('clickhouse'), undefined);
  assert.equal(troubles.why('warc'), undefined);
});
