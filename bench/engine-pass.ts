// The engine's own cost per record: a one-processor topology that forwards every record unchanged, on
// the EMBEDDED runtime (partitioned log on disk, LevelDB positions and log ends, group commits), not the
// test driver. Run as its own process by the harness:
//   node dist/bench/engine-pass.js [--records 200000] [--partitions 8]
// The input is appended first (untimed); then the runtime starts and the clock and the process's CPU
// time (every thread: LevelDB's compaction and libuv's pool included) run until it is idle, every
// record read, decoded, processed, encoded, appended to `out` and committed. Prints one JSON line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defineProcessor, defineTopic, TopologyBuilder } from '../engine/api.js';
import { EmbeddedRuntime } from '../engine/embedded/embedded-runtime.js';
import { NO_HINTS, type DiscoveredUrl } from '../schemas/records.js';
import { loadSchema } from '../schemas/schema-files.js';

const { values } = parseArgs({ options: { records: { type: 'string', default: '200000' }, partitions: { type: 'string', default: '8' } } });
const records = Number(values.records);
const partitions = Number(values.partitions);
const HOSTS = 200;
const PRODUCE_BATCH = 5000;

const topic = <N extends string>(name: N) =>
  defineTopic<DiscoveredUrl>()({ name, key: 'host', schema: loadSchema('discovered-url'), retention: 'until-consumed', maxRecordBytes: 1 << 20, description: name });
const input = topic('in');
const output = topic('out');
const pass = defineProcessor({
  name: 'pass', description: 'forwards every record unchanged', inputs: [input], outputs: [output], stores: [], delivery: 'exactly once',
  create: () => ({ process: (r, ctx) => ctx.forward('out', r.key, r.value) }),
});
const topology = new TopologyBuilder().topic(input).topic(output).processor(pass).build();

const host = (i: number) => `127.20.${(i % HOSTS) >> 8}.${(i % HOSTS) + 1}:41234`;
const value = (i: number): DiscoveredUrl => ({
  url: `http://${host(i)}/p/${i}`, source_url: `http://${host(i + 7)}/p/${i >> 3}`, depth: 2, anchor: `link ${i % 25}`, via: 'link',
  redirect_hops: 0, discovered_at: 1_700_000_000_000 + i, ...NO_HINTS, more: [],
});

const dir = mkdtempSync(join(tmpdir(), 'crawlstream-bench-engine-'));
const warnings: string[] = [];
try {
  const runtime = await EmbeddedRuntime.open({
    dataDir: dir, topology, services: {}, partitions, logger: { info: () => {}, warn: (m) => warnings.push(m) },
  });
  for (let i = 0; i < records; i += PRODUCE_BATCH) {
    const batch: Promise<void>[] = [];
    for (let j = i; j < Math.min(records, i + PRODUCE_BATCH); j++) batch.push(runtime.produce('in', host(j), value(j)));
    await Promise.all(batch);
  }
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await runtime.start();
  await runtime.whenIdle();
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  let out = 0;
  for (let p = 0; p < runtime.partitions; p++) out += runtime.log('out', p).end;
  await runtime.stop();
  if (out !== records) throw new Error(`pass-through wrote ${out} records for ${records} read`);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  process.stdout.write(`${JSON.stringify({
    records,
    partitions,
    wallSeconds: Math.round(wall * 100) / 100,
    recordsPerSecond: Math.round(records / wall),
    cpuSeconds: Math.round(cpuSeconds * 100) / 100,
    recordsPerCpuSecond: Math.round(records / cpuSeconds),
    cpuMicrosPerRecord: Math.round((cpuSeconds / records) * 1e6 * 100) / 100,
    what: 'EmbeddedRuntime, one pass-through processor, discovered-url records (Avro) in and out, log appends + LevelDB group commits; wall includes the idle check (3 polls 40 ms apart)',
    warnings,
  })}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
