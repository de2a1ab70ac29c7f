import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryLevel } from 'memory-level';
import { LocalSchemaRegistry } from '../avro/local-schema-registry.js';
import { TopicCodecs } from '../avro/topic-codecs.js';
import { defineProcessor, TopologyBuilder } from '../api.js';
import { lines, words, type Line } from '../examples/word-count.js';
import { IllegalTransitionError } from './task-lifecycle.js';
import { MAX_QUEUED_BYTES, StreamTask, type RawRecord } from './stream-task.js';

/** Waits for a condition by turns of the event loop, never by wall-clock time. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !condition(); i++) await new Promise((r) => setImmediate(r));
  assert.ok(condition(), 'condition reached');
}

/** A processor whose records finish only when the test says so (or are abandoned). */
async function slowTask(concurrency?: { maxInFlight: number; perKeyOrder: boolean }) {
  const release = new Map<string, () => void>();
  let abandoned = false;
  const slow = defineProcessor({
    name: 'slow', description: '', delivery: '', inputs: [lines], outputs: [words], stores: [], concurrency,
    create: () => ({
      async process(r, ctx) {
        await new Promise<void>((resolve) => release.set(r.value.doc, resolve));
        if (abandoned) return; // like fetch: an aborted request returns without output
        ctx.forward('words', r.value.text, { word: r.value.text, doc: r.value.doc });
      },
      abandon() {
        abandoned = true;
        for (const resolve of release.values()) resolve();
      },
    }),
  });
  const topology = new TopologyBuilder().topic(lines).topic(words).processor(slow).build();
  const db = new MemoryLevel<Buffer, Buffer>({ keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  const codecs = new TopicCodecs(new LocalSchemaRegistry(db.sublevel<string, string>('registry', { keyEncoding: 'utf8', valueEncoding: 'utf8' }) as never));
  for (const t of topology.topics.values()) await codecs.addTopic(t.name, t.schema);
  const warnings: string[] = [];
  const task = new StreamTask({
    node: topology.processors[0], partition: 0, services: {}, stores: [], codecs, logId: 'test', clock: () => 0,
    logger: { info: () => {}, warn: (m) => warnings.push(m) }, owns: () => true, onActivity: () => {},
  });
  task.restoring();
  await task.start(new Map([['lines', { base: 0, done: [] }]]));
  const record = (offset: number, text = `w${offset}`): RawRecord => {
    const value: Line = { doc: `d${offset}`, text };
    return { topic: 'lines', partition: 0, offset, timestamp: 0, key: value.doc, value: codecs.encode('lines', value) };
  };
  const finish = async (offset: number) => {
    await until(() => release.has(`d${offset}`));
    release.get(`d${offset}`)!();
  };
  return { task, release, record, warnings, finish };
}

const concurrent = { maxInFlight: 8, perKeyOrder: false };

describe('StreamTask exits', () => {
  it('should commit finished records on hand-over and leave the ones in flight, unfinished, to the next owner', async () => {
    const { task, record, warnings, finish } = await slowTask(concurrent);
    task.offer([record(0), record(1), record(2)]);
    await finish(0);
    await until(() => task.inFlightCount() === 2);
    await task.handOver();
    const commit = task.takeCommit();
    assert.ok(commit, 'the finished record must be committed');
    assert.deepEqual(commit.outputs.map((o) => o.topic), ['words'], 'only the finished record has output, and nothing went to dead letters');
    assert.deepEqual(commit.positions, [{ topic: 'lines', position: { base: 1, done: [] } }], 'the position stops below the first unfinished record');
    assert.deepEqual(warnings, []);
    assert.equal(task.capacity(), 0, 'a handed-over task takes no more records');
    assert.equal(task.lifecycle.state, 'handed-over');
  });

  it('should let records in progress finish on a clean close and commit all of them', async () => {
    const { task, record, finish } = await slowTask(concurrent);
    task.offer([record(0), record(1)]);
    await until(() => task.inFlightCount() === 2);
    const closing = task.close();
    assert.equal(task.lifecycle.state, 'closing');
    assert.equal(task.capacity(), 0, 'a closing task takes no more records');
    await finish(0);
    await finish(1);
    await closing;
    const commit = task.takeCommit();
    assert.equal(commit?.outputs.length, 2, 'both records\' outputs');
    assert.deepEqual(commit?.positions, [{ topic: 'lines', position: { base: 2, done: [] } }]);
  });

  it('should commit nothing once abandoned, whatever had finished', async () => {
    const { task, record, finish } = await slowTask(concurrent);
    task.offer([record(0), record(1)]);
    await finish(0);
    await until(() => task.inFlightCount() === 1);
    await task.abandon();
    assert.equal(task.takeCommit(), undefined, 'an abandoned task\'s work is its next owner\'s');
    assert.equal(task.lifecycle.state, 'abandoned');
  });

  it('should never hand a commit out while a sequential record is mid-way', async () => {
    const { task, record, finish } = await slowTask();
    task.offer([record(0)]);
    await until(() => task.isQuiescent() === false);
    assert.equal(task.takeCommit(), undefined, 'the record\'s writes are not complete');
    await finish(0);
    await until(() => task.isQuiescent());
    assert.equal(task.takeCommit()?.outputs.length, 1);
  });

  it('should refuse to leave twice', async () => {
    const { task } = await slowTask(concurrent);
    await task.handOver();
    await assert.rejects(task.handOver(), IllegalTransitionError);
    await assert.rejects(task.close(), IllegalTransitionError);
  });

  it('should take no more records while its read-ahead holds its bytes, however few records that is', async () => {
    const { task, record, finish } = await slowTask();
    const big = 'x'.repeat(Math.ceil(MAX_QUEUED_BYTES / 5));
    assert.ok(task.capacity() > 100, 'room for many small records');
    // The first runs (and waits); the other seven wait in the queue: more bytes than the read-ahead holds.
    task.offer([0, 1, 2, 3, 4, 5, 6, 7].map((i) => record(i, big)));
    await until(() => task.isQuiescent() === false);
    assert.equal(task.capacity(), 0, 'a task behind its producer holds a bounded read-ahead, in bytes');
    assert.ok(task.byteRoom() === 0);
    for (const offset of [0, 1, 2]) await finish(offset);
    await until(() => task.capacity() > 0);
    assert.ok(task.byteRoom() > 0 && task.byteRoom() < MAX_QUEUED_BYTES, 'room again once records ran, for what they freed');
    for (const offset of [3, 4, 5, 6, 7]) await finish(offset);
    await until(() => task.isQuiescent());
    assert.equal(task.byteRoom(), MAX_QUEUED_BYTES);
  });
});
