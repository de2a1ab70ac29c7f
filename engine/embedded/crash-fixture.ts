// A child process for the kill -9 tests of the embedded runtime: a two-stage topology over N seeded
// records, with a store updated per record. Prints `DONE <json>` with what the log and stores hold.
import { EmbeddedRuntime } from './embedded-runtime.js';
import { defaultCrawlConfig } from '../../crawl/config.js';
import type { KeyValueStore } from '../stores/key-value-store.js';
import { countingRecord, countingTopology } from '../test-driver/counting-topology.js';

const [dataDir, total] = [process.argv[2], Number(process.argv[3])];
const started = Date.now();
const topology = countingTopology();

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
    const { key, value } = countingRecord(i);
    chunk.push(runtime.produce('in', key, value));
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
