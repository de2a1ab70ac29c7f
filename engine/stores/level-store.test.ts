import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryLevel } from 'memory-level';
import { LevelStore, type BinaryDb } from './level-store.js';
import { defineStore, type KeyValueStore } from './key-value-store.js';
import { jsonValues } from './codecs.js';
import { bucketsOfPartition, partitionFor, virtualBucket } from '../partitioning.js';
import { TopologyBuilder, defineProcessor } from '../api.js';
import { TopologyTestDriver } from '../test-driver/topology-test-driver.js';
import { lines, words } from '../examples/word-count.js';

/** Keys are "host|name", routed by host. */
const spec = defineStore<string, string>({
  name: 'test-store', description: 'test',
  keys: { routingKey: (k) => k.slice(0, k.indexOf('|')), encode: (k) => Buffer.from(k), decode: (b) => b.toString() },
  values: jsonValues<string>(),
});

// With two partitions, partition 0 owns b.test and d.test but not a.test or c.test.
const OWNED = bucketsOfPartition(0, 2);
const MINE = 'b.test';
const OTHER_MINE = 'd.test';
const NOT_MINE = 'a.test';

async function open() {
  const db = new MemoryLevel<Buffer, Buffer>({ keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  const store = new LevelStore(db as unknown as BinaryDb, spec, OWNED);
  return { db, store };
}

/** What a runtime does at commit: the taken writes go to LevelDB in one batch. */
async function commit(db: MemoryLevel<Buffer, Buffer>, store: LevelStore<string, string>) {
  const writes = store.takeWrites();
  await db.batch(writes.map((w) => (w.value === null ? { type: 'del' as const, key: w.key } : { type: 'put' as const, key: w.key, value: w.value })));
  store.writesCommitted();
}

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of source) out.push(x);
  return out;
}

const k = (name: string, host = MINE) => `${host}|${name}`;

describe('LevelStore', () => {
  it('should let reads see pending writes and deletes before anything is committed', async () => {
    const { db, store } = await open();
    store.put(k('x'), 'one');
    assert.equal(store.get(k('x')), 'one');
    await commit(db, store);
    store.put(k('x'), 'two');
    assert.equal(store.get(k('x')), 'two', 'the overlay shadows LevelDB');
    store.delete(k('x'));
    assert.equal(store.get(k('x')), undefined, 'a pending delete hides the committed value');
    assert.equal(store.pendingWrites, 1);
    await db.close();
  });

  it('should hand its writes over once and keep serving them until the batch is durable', async () => {
    const { db, store } = await open();
    store.put(k('x'), 'one');
    store.put(k('y'), 'gone');
    store.delete(k('y'));
    const writes = store.takeWrites();
    assert.deepEqual(writes.map((w) => [w.key.subarray(w.key.length - 1).toString(), w.value === null ? null : JSON.parse(w.value.toString())]).sort(),
      [['x', 'one'], ['y', null]], 'one operation per key, the last write winning');
    assert.equal(store.pendingWrites, 0);
    assert.deepEqual(store.takeWrites(), [], 'nothing is handed over twice');
    assert.equal(store.get(k('x')), 'one', 'readable while the batch is being written');
    store.put(k('z'), 'later');
    assert.throws(() => store.takeWrites(), /commit is already in progress/);
    await db.batch(writes.map((w) => (w.value === null ? { type: 'del' as const, key: w.key } : { type: 'put' as const, key: w.key, value: w.value })));
    store.writesCommitted();
    assert.equal(store.get(k('x')), 'one');
    // The committed layer is released (memory stays bounded): reads now go to LevelDB itself.
    await db.del(writes.find((w) => w.value !== null)!.key);
    assert.equal(store.get(k('x')), undefined);
    assert.equal(store.takeWrites().length, 1, 'writes made during the commit go with the next one');
    await db.close();
  });

  it('should scan the overlay and LevelDB merged in key order, hiding deleted keys', async () => {
    const { db, store } = await open();
    for (const n of ['k1', 'k3', 'k5', 'k7']) store.put(k(n), `db-${n}`);
    store.put(k('k4', OTHER_MINE), 'elsewhere');
    await commit(db, store);
    store.put(k('k9'), 'new-k9');
    store.put(k('k2'), 'new-k2');
    store.put(k('k5'), 'new-k5');
    store.delete(k('k3'));
    store.delete(k('k8'));
    store.put(k('k6'), 'new-k6');
    const all = await collect(store.scan(MINE, Buffer.from(`${MINE}|`)));
    assert.deepEqual(all, [
      [k('k1'), 'db-k1'], [k('k2'), 'new-k2'], [k('k5'), 'new-k5'], [k('k6'), 'new-k6'], [k('k7'), 'db-k7'], [k('k9'), 'new-k9'],
    ]);
    assert.deepEqual((await collect(store.scan(MINE, Buffer.from(`${MINE}|`), 3))).map(([key]) => key), [k('k1'), k('k2'), k('k5')]);
    assert.deepEqual((await collect(store.scan(MINE, Buffer.from(`${MINE}|k6`)))).map(([key]) => key), [k('k6')]);
    // Half committed, half pending, one pending delete of a key in the batch being written.
    const taken = store.takeWrites();
    store.delete(k('k9'));
    assert.deepEqual((await collect(store.scan(MINE, Buffer.from(`${MINE}|`)))).map(([key]) => key), [k('k1'), k('k2'), k('k5'), k('k6'), k('k7')]);
    assert.ok(taken.length > 0);
    await db.close();
  });

  it('should list every owned entry, bucket by bucket, overlay included', async () => {
    assert.ok(partitionFor(MINE, 2) === 0 && partitionFor(OTHER_MINE, 2) === 0, 'fixture: both hosts are owned');
    assert.ok(virtualBucket(OTHER_MINE) < virtualBucket(MINE), 'fixture: bucket order differs from name order');
    const { db, store } = await open();
    store.put(k('a'), '1');
    store.put(k('b', OTHER_MINE), '2');
    await commit(db, store);
    store.put(k('c'), '3');
    store.delete(k('a'));
    assert.deepEqual(await collect(store.entries()), [[k('b', OTHER_MINE), '2'], [k('c'), '3']]);
    await db.close();
  });

  it('should refuse keys of buckets the task does not own', async () => {
    assert.equal(partitionFor(NOT_MINE, 2), 1, 'fixture: partition 1 owns this host');
    const { db, store } = await open();
    assert.throws(() => store.get(k('x', NOT_MINE)), /not owned by this task/);
    assert.throws(() => store.put(k('x', NOT_MINE), 'v'), /not owned by this task/);
    assert.throws(() => store.delete(k('x', NOT_MINE)), /not owned by this task/);
    await assert.rejects(collect(store.scan(NOT_MINE, Buffer.alloc(0))), /not owned by this task/);
    assert.equal(store.pendingWrites, 0);
    await db.close();
  });

  it('should roll back exactly the writes made after a mark', async () => {
    const { db, store } = await open();
    store.put(k('z'), 'committed');
    await commit(db, store);
    store.put(k('x'), 'kept');
    const mark = store.journalMark();
    store.put(k('x'), 'failed');
    store.put(k('x'), 'failed again');
    store.put(k('y'), 'failed');
    store.delete(k('z'));
    store.rollbackTo(mark);
    assert.equal(store.get(k('x')), 'kept');
    assert.equal(store.get(k('y')), undefined);
    assert.equal(store.get(k('z')), 'committed');
    const writes = store.takeWrites();
    assert.equal(writes.length, 1, 'only the earlier record\'s write is committed');
    assert.equal(JSON.parse(writes[0].value!.toString()), 'kept');
    await db.close();
  });

  it('should leave no trace of a record whose processor failed, through a task', async () => {
    const counts = defineStore<string, number>({ name: 'counts', description: 'test', keys: { routingKey: (k) => k, encode: (k) => Buffer.from(k), decode: (b) => b.toString() }, values: jsonValues<number>() });
    const flaky = defineProcessor({
      name: 'flaky', description: '', delivery: '', inputs: [lines], outputs: [words], stores: [counts],
      create: () => ({
        process(r, ctx) {
          const store = ctx.store(counts);
          store.put(r.key, (store.get(r.key) ?? 0) + 1);
          ctx.forward('words', r.key, { word: r.value.text, doc: r.key });
          if (r.value.text === 'fail') throw new Error('boom');
        },
      }),
    });
    const topology = new TopologyBuilder().topic(lines).topic(words).processor(flaky).build();
    const d = await TopologyTestDriver.create({ topology, services: {} });
    await d.pipe('lines', 'ok', { doc: 'ok', text: 'fine' });
    await d.pipe('lines', 'bad', { doc: 'bad', text: 'fail' });
    const store: KeyValueStore<string, number> = d.store(counts);
    assert.equal(store.get('ok'), 1);
    assert.equal(store.get('bad'), undefined, 'the failed record\'s store write is undone');
    assert.deepEqual(d.readOutput('words').map((r) => r.value.word), ['fine'], 'and its output dropped');
    const dead = d.readOutput('dead-letters');
    assert.equal(dead.length, 1);
    assert.match(dead[0].value.reason, /boom/);
    await d.close();
  });
});
