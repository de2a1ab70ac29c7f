// A sequential task offered records while its drain is ending must still process them: the records
// of an input partition's last batch, left queued, kept a Kafka task busy for good (issue 18).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryLevel } from 'memory-level';
import { LocalSchemaRegistry } from '../avro/local-schema-registry.js';
import { TopicCodecs } from '../avro/topic-codecs.js';
import { defineProcessor, TopologyBuilder } from '../api.js';
import { lines, words, type Line } from '../examples/word-count.js';
import { StreamTask, type RawRecord } from './stream-task.js';

async function sequentialTask() {
  const seen: string[] = [];
  const echo = defineProcessor({
    name: 'echo', description: '', delivery: '', inputs: [lines], outputs: [words], stores: [],
    create: () => ({
      async process(r) {
        await Promise.resolve(); // a processor that awaits (a store scan, a gate)
        seen.push(r.value.doc);
      },
    }),
  });
  const topology = new TopologyBuilder().topic(lines).topic(words).processor(echo).build();
  const db = new MemoryLevel<Buffer, Buffer>({ keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  const codecs = new TopicCodecs(new LocalSchemaRegistry(db.sublevel<string, string>('registry', { keyEncoding: 'utf8', valueEncoding: 'utf8' }) as never));
  for (const t of topology.topics.values()) await codecs.addTopic(t.name, t.schema);
  const task = new StreamTask({
    node: topology.processors[0], partition: 0, services: {}, stores: [], codecs, logId: 'test', clock: () => 0,
    logger: { info: () => {}, warn: () => {} }, owns: () => true, onActivity: () => {},
  });
  task.restoring();
  await task.start(new Map([['lines', { base: 0, done: [] }]]));
  const record = (offset: number): RawRecord => {
    const value: Line = { doc: `d${offset}`, text: `w${offset}` };
    return { topic: 'lines', partition: 0, offset, timestamp: 0, key: value.doc, value: codecs.encode('lines', value) };
  };
  return { task, record, seen };
}

describe('StreamTask sequential drain', () => {
  it('should process a record offered at any moment of the previous drain, however its ticks fall', async () => {
    for (let ticks = 0; ticks < 40; ticks++) {
      const { task, record, seen } = await sequentialTask();
      task.offer([record(0)]);
      for (let i = 0; i < ticks; i++) await Promise.resolve();
      task.offer([record(1)]);
      for (let i = 0; i < 200 && seen.length < 2; i++) await new Promise((r) => setImmediate(r));
      assert.deepEqual(seen, ['d0', 'd1'], `second record offered ${ticks} microtask(s) after the first: ${task.inFlightCount()} left queued`);
      assert.ok(task.isQuiescent());
    }
  });
});
