// node --expose-gc dist/bench/frontier-memory.js [--urls N]: what a frontier of N queued URLs on one
// host costs the schedule processor, on the embedded runtime with its real LevelDB. The host's
// robots.txt is never answered, so every URL stays queued, as behind a slow host. Prints the heap
// (after a full GC) and RSS before and after, and the data directory's size on disk.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { EmbeddedRuntime } from '../engine/embedded/embedded-runtime.js';
import { crawlTopology } from '../crawl/topology.js';
import { testServices } from '../crawl/testing/crawl-test-driver.js';
import { NO_HINTS, type CanonicalUrl } from '../schemas/records.js';

const { values } = parseArgs({ options: { urls: { type: 'string', default: '1000000' } } });
const total = Number(values.urls);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const HOST = '127.0.0.77:8080';
const dir = mkdtempSync(join(tmpdir(), 'crawlstream-frontier-'));
const heap = () => {
  gc();
  gc();
  return process.memoryUsage();
};
const mb = (n: number) => Math.round(n / 1048576);

const runtime = await EmbeddedRuntime.open({
  dataDir: dir, topology: crawlTopology(), processors: ['schedule'], partitions: 1, services: testServices({}),
  logger: { info: () => {}, warn: (m) => console.error(m) },
});
await runtime.start();
const url = (i: number): CanonicalUrl => ({
  url: `http://${HOST}/section-${i % 97}/item-${i}`, host: HOST, depth: 2, source_url: `http://${HOST}/`, via: 'link', redirect_hops: 0,
  discovered_at: 1_700_000_000_000, ...NO_HINTS, inlinks: 1, more: [],
});
// Not whenIdle: the robots.txt fetch the schedule released stays in flight for good, by design.
const caughtUp = async () => {
  while (runtime.lag().some((l) => l.topic === 'deduped' && l.records > 0)) await new Promise((r) => setTimeout(r, 20));
};
// Warm up (stores opened, codecs compiled) before the baseline.
for (let i = 0; i < 1000; i++) await runtime.produce('deduped', HOST, url(i));
await caughtUp();
const before = heap();
const started = performance.now();
const BATCH = 10_000;
for (let i = 1000; i < total; i += BATCH) {
  for (let j = i; j < Math.min(total, i + BATCH); j++) await runtime.produce('deduped', HOST, url(j));
  await caughtUp();
}
const seconds = (performance.now() - started) / 1000;
const after = heap();
await runtime.stop();
const disk = Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
console.log(JSON.stringify({
  urls: total, seconds: Math.round(seconds), urlsPerSecond: Math.round(total / seconds),
  heapUsedMb: [mb(before.heapUsed), mb(after.heapUsed)], rssMb: [mb(before.rss), mb(after.rss)],
  heapBytesPerUrl: +((after.heapUsed - before.heapUsed) / total).toFixed(2), diskBytesPerUrl: Math.round(disk / total),
}));
rmSync(dir, { recursive: true, force: true });
