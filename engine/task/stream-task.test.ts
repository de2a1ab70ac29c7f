import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryLevel } from 'memory-level';
import { LocalSchemaRegistry } from '../avro/local-schema-registry.js';
import { loadSchema } from '../../schemas/schema-files.js';
import { TopicCodecs } from '../avro/topic-codecs.js';
import type { CanonicalUrl, DiscoveredUrl } from '../../schemas/records.js';
import { defaultCrawlConfig } from '../../crawl/config.js';
import { TopologyBuilder, defineProcessor } from '../topology.js';
import { StreamTask, type RawRecord } from './stream-task.js';

/** A concurrent processor whose records finish only when the test says so (or are abandoned). */
async function slowTask() {
  const release = new Map<string, () => void>();
  let abandoned = false;
  const topology = new TopologyBuilder()
    .topic({ name: 'in', schema: 'discovered-url', retention: 'until-consumed', maxRecordBytes: 1 << 20, description: '' })
    .topic({ name: 'out', schema: 'canonical-url', retention: 'until-consumed', maxRecordBytes: 1 << 20, description: '' })
    .topic({ name: 'dead-letters', schema: 'dead-letter', retention: { ms: 1e9 }, maxRecordBytes: 1 << 20, description: '' })
    .processor(defineProcessor({
      name: 'slow', description: '', delivery: '', stores: [], concurrency: { maxInFlight: 8, perKeyOrder: false },
      create: () => ({
        async process(r, ctx) {
          const v = r.value as DiscoveredUrl;
          await new Promise<void>((resolve) => release.set(v.url, resolve));
          if (abandoned) return; // like fetch: an aborted request returns without output
          const out: CanonicalUrl = { url: v.url, host: r.key, depth: 0, source_url: '', via: 'link', redirect_hops: 0, discovered_at: 0 };
          ctx.forward('out', r.key, out);
        },
        abandon() {
          abandoned = true;
          for (const resolve of release.values()) resolve();
        },
      }),
    }), { from: ['in'], to: ['out'] })
    .build();
  const db = new MemoryLevel<Buffer, Buffer>({ keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  const codecs = new TopicCodecs(new LocalSchemaRegistry(db.sublevel<string, string>('registry', { keyEncoding: 'utf8', valueEncoding: 'utf8' }) as never));
  for (const t of topology.topics.values()) await codecs.addTopic(t.name, loadSchema(t.schema));
  const node = topology.processors[0];
  const warnings: string[] = [];
  const task = new StreamTask({
    node, partition: 0, processor: node.create({ config: defaultCrawlConfig({}), resources: {} }), stores: [],
    positions: new Map([['in', { base: 0, done: [] }]]), codecs, config: defaultCrawlConfig({}), clock: () => 0,
    log: { info: () => {}, warn: (m) => warnings.push(m) }, owns: () => true, onActivity: () => {},
  });
  await task.init();
  const record = (offset: number): RawRecord => {
    const value: DiscoveredUrl = { url: `http://127.0.0.1/p${offset}`, source_url: '', depth: 0, anchor: '', via: 'seed', redirect_hops: 0, discovered_at: 0 };
    return { topic: 'in', partition: 0, offset, timestamp: 0, key: '127.0.0.1', value: codecs.encode('in', value) };
  };
  return { task, release, record, warnings };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('StreamTask.handOver', () => {
  it('should commit finished records and leave the ones in flight, unfinished, to the next owner', async () => {
    const { task, release, record, warnings } = await slowTask();
    task.offer([record(0), record(1), record(2)]);
    await settle();
    release.get('http://127.0.0.1/p0')!();
    await settle();
    await task.handOver();
    await settle();
    const commit = task.takeCommit();
    assert.ok(commit, 'the finished record must be committed');
    assert.deepEqual(commit.outputs.map((o) => o.topic), ['out'], 'only the finished record has output, and nothing went to dead letters');
    assert.deepEqual(commit.positions, [{ topic: 'in', position: { base: 1, done: [] } }], 'the position stops below the first unfinished record');
    assert.deepEqual(warnings, []);
    assert.equal(task.capacity(), 0, 'a handed-over task takes no more records');
  });
});
