// A child process for the kill -9 tests of the embedded runtime: a two-stage topology over N seeded
// records, with a store updated per record. Prints `DONE <json>` with what the log and stores hold.
import { EmbeddedRuntime } from './embedded-runtime.js';
import { TopologyBuilder, defineProcessor } from '../../topology/topology.js';
import { defineStore } from '../../state-stores/key-value-store.js';
import { jsonValues, stringKey } from '../../state-stores/codecs.js';
import { defaultCrawlConfig } from '../../topology/crawl-config.js';
import type { CanonicalUrl, DiscoveredUrl } from '../../schemas/records.js';
import type { KeyValueStore } from '../../state-stores/key-value-store.js';

const [dataDir, total] = [process.argv[2], Number(process.argv[3])];
const started = Date.now();
const counts = defineStore<string, number>({ name: 'counts', description: 'records per host', keys: stringKey, values: jsonValues<number>() });
const seen = defineStore<string, number>({ name: 'seen', description: 'times each url arrived', keys: { routingKey: (k) => k.split('/')[2], encode: (k) => Buffer.from(k), decode: (b) => b.toString() }, values: jsonValues<number>() });

const topology = new TopologyBuilder()
  .topic({ name: 'in', schema: 'discovered-url', retention: 'until-consumed', maxRecordBytes: 1 << 20, description: '' })
  .topic({ name: 'mid', schema: 'canonical-url', retention: 'until-consumed', maxRecordBytes: 1 << 20, description: '' })
  .topic({ name: 'dead-letters', schema: 'dead-letter', retention: { ms: 1e9 }, maxRecordBytes: 1 << 20, description: '' })
  .processor(defineProcessor({
    name: 'copy', description: '', delivery: '', stores: [counts],
    create: () => ({
      process(r, ctx) {
        const v = r.value as DiscoveredUrl;
        const store = ctx.store<string, number>('counts');
        store.put(r.key, (store.get(r.key) ?? 0) + 1);
        // Some CPU per record widens the window in which a kill lands mid-batch.
        let x = 0;
        for (let i = 0; i < 20_000; i++) x += i;
        const out: CanonicalUrl = { url: v.url, host: r.key, depth: x > 0 ? 1 : 0, source_url: '', via: 'link', redirect_hops: 0, discovered_at: 0 };
        ctx.forward('mid', r.key, out);
      },
    }),
  }), { from: ['in'], to: ['mid'] })
  .processor(defineProcessor({
    name: 'check', description: '', delivery: '', stores: [seen],
    create: () => ({
      process(r, ctx) {
        const store = ctx.store<string, number>('seen');
        const url = (r.value as CanonicalUrl).url;
        store.put(url, (store.get(url) ?? 0) + 1);
      },
    }),
  }), { from: ['mid'], to: [] })
  .build();

const runtime = await EmbeddedRuntime.open({
  dataDir, topology, config: defaultCrawlConfig(), partitions: 3, resources: {},
  log: { info: () => {}, warn: (m) => process.stderr.write(m + '\n') },
});
await runtime.start();
let present = 0;
for (let p = 0; p < runtime.partitions; p++) present += runtime.log('in', p).end;
// Seeding in chunks: each chunk is one commit, so a kill leaves whole chunks and the count tells where to go on.
for (let start = present; start < total; start += 500) {
  const chunk = [];
  for (let i = start; i < Math.min(total, start + 500); i++) {
    const host = `h${i % 7}.test`;
    chunk.push(runtime.produce('in', host, { url: `http://${host}/p${i}`, source_url: '', depth: 0, anchor: '', via: 'seed', redirect_hops: 0, discovered_at: i } satisfies DiscoveredUrl));
  }
  await Promise.all(chunk);
}
process.stdout.write(`SEEDED ${Date.now() - started}\n`);
await runtime.whenIdle();
let countSum = 0;
let seenEntries = 0;
let seenTwice = 0;
for (const task of runtime.tasks) {
  // Reach into the task's stores through a processor context-free path: iterate entries.
  const stores = (task as unknown as { stores: KeyValueStore<string, number>[] }).stores;
  for (const s of stores) {
    for await (const [, v] of s.entries()) {
      if (s.name === 'counts') countSum += v;
      else {
        seenEntries++;
        if (v !== 1) seenTwice++;
      }
    }
  }
}
let midRecords = 0;
for (let p = 0; p < runtime.partitions; p++) midRecords += runtime.log('mid', p).end;
await runtime.stop();
process.stdout.write(`DONE ${JSON.stringify({ countSum, seenEntries, seenTwice, midRecords })}\n`);
