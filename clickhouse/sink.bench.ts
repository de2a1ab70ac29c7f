// Sink throughput: records handed over as the runtime does (one sink task per partition, up to
// 20 000 records pending each), batched by the writer with its production bounds, into embedded
// chdb and, when CLICKHOUSE_URL is set, a server.
//   node dist/clickhouse/sink.bench.js [records] [partitions]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openClickHouse, type ClickHouse, type ClickHouseOptions } from './connection.js';
import { robotsSummary } from './robots-digest.js';
import { rowsForRecord } from './rows.js';
import { migrate } from './schema.js';
import { SinkWriter } from './sink-writer.js';
import { feed } from './testing/test-harness.js';
import { recordStream } from './testing/test-fixtures.js';

export interface SinkBenchResult {
  chdbRowsPerSecond: number;
  /** CPU of the whole process per row into chdb (its own threads included: parsing the insert, merges). */
  chdbCpuMicrosPerRow?: number;
  serverRowsPerSecond?: number;
}

export async function benchSink(opts: { records?: number; partitions?: number; serverUrl?: string } = {}): Promise<SinkBenchResult> {
  const partitions = opts.partitions ?? 4;
  const perPartition = Math.ceil((opts.records ?? 100_000) / partitions);
  const records = Array.from({ length: partitions }, (_, p) => recordStream(perPartition, p, p + 1));
  const dir = mkdtempSync(join(tmpdir(), 'crawlstream-sink-bench-'));
  try {
    const chdb = await measure({ dataDir: dir, database: 'bench' }, records);
    const local = { chdbRowsPerSecond: chdb.rowsPerSecond, chdbCpuMicrosPerRow: chdb.cpuMicrosPerRow };
    const url = opts.serverUrl ?? process.env.CLICKHOUSE_URL;
    if (!url) return local;
    return { ...local, serverRowsPerSecond: (await measure({ url, database: `bench_${process.pid}` }, records)).rowsPerSecond };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(options: ClickHouseOptions, partitions: ReturnType<typeof recordStream>[]): Promise<{ rowsPerSecond: number; cpuMicrosPerRow: number }> {
  const ch: ClickHouse = await openClickHouse(options);
  try {
    await migrate(ch);
    const quiet = { info: () => {}, warn: (m: string) => process.stderr.write(`${m}\n`) };
    const writers = partitions.map(() => new SinkWriter({ connect: async () => ch, sinkId: 'bench', logger: quiet }));
    // Rows are built inside the timed part: turning records into rows is part of the sink's cost.
    const started = performance.now();
    const cpu0 = process.cpuUsage();
    await Promise.all(partitions.map((records, p) =>
      feed(records, (r) => writers[p].write(r, rowsForRecord(r, robotsSummary, 'crawlstream')), { maxInFlight: 20_000 })));
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const rows = writers.reduce((n, w) => n + w.stats.rowsInserted, 0);
    return { rowsPerSecond: Math.round(rows / seconds), cpuMicrosPerRow: Math.round(((cpu.user + cpu.system) / rows) * 10) / 10 };
  } finally {
    if (options.url) await ch.command(`DROP DATABASE IF EXISTS ${ch.database}`).catch(() => undefined);
    await ch.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await benchSink({ records: Number(process.argv[2] ?? 100_000), partitions: Number(process.argv[3] ?? 4) });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
