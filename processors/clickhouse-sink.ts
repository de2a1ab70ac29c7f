// The sink: fetch attempts, robots.txt outcomes, parsed pages (with their links) and duplicate
// findings go to ClickHouse for people to query the crawl's history.
//
// Concurrent without per-key order: `process` only converts the record and queues its rows; the
// promise it returns settles once those rows are durably in ClickHouse, so the runtime commits
// input positions only below records whose rows are written. Batching, retries and the
// exactly-once bookkeeping live in clickhouse/sink-writer.ts.
import type { ClickHouse } from '../clickhouse/connection.js';
import { robotsSummary } from '../clickhouse/robots-digest.js';
import { rowsForRecord } from '../clickhouse/rows.js';
import { migrate } from '../clickhouse/schema.js';
import { SinkWriter } from '../clickhouse/sink-writer.js';
import { defineProcessor } from '../engine/topology.js';
import type { InputRecord, Processor, ProcessorContext } from '../engine/processor.js';

export const SINK_INPUTS = ['fetched', 'parsed', 'duplicates'] as const;

export const clickhouseSink = defineProcessor({
  name: 'sink',
  description: 'Writes every fetch attempt, robots.txt outcome, parsed page with its links, and duplicate finding to ClickHouse.',
  stores: [],
  concurrency: { maxInFlight: 20_000, perKeyOrder: false },
  delivery:
    'Exactly once: each row carries its source offset, a record counts as done only once its rows are written, ' +
    'and after a crash or a failed insert the sink skips what ClickHouse already holds; a replay writes newer rows that replace, never duplicate.',
  create(env) {
    const open = env.resources.clickhouse;
    if (typeof open !== 'function') {
      throw new Error('the sink needs resources.clickhouse: () => Promise<ClickHouse> (see clickhouse/connection.ts sharedClickHouse)');
    }
    const sinkId = typeof env.resources.sinkId === 'string' && env.resources.sinkId ? env.resources.sinkId : 'live';
    return new ClickHouseSinkProcessor(open as () => Promise<ClickHouse>, sinkId);
  },
});

/** Schemas are migrated once per process and ClickHouse connection, whatever the number of tasks. */
const migrated = new WeakMap<ClickHouse, Promise<unknown>>();

function migratedConnection(open: () => Promise<ClickHouse>): () => Promise<ClickHouse> {
  return async () => {
    const ch = await open();
    let done = migrated.get(ch);
    if (!done) {
      done = migrate(ch).catch((err: unknown) => {
        migrated.delete(ch);
        throw err;
      });
      migrated.set(ch, done);
    }
    await done;
    return ch;
  };
}

class ClickHouseSinkProcessor implements Processor<unknown> {
  private writer: SinkWriter | undefined;

  constructor(private readonly open: () => Promise<ClickHouse>, private readonly sinkId: string) {}

  init(ctx: ProcessorContext): void {
    this.writer = new SinkWriter({ connect: migratedConnection(this.open), sinkId: this.sinkId, log: ctx.log });
  }

  process(record: InputRecord<unknown>, ctx: ProcessorContext): Promise<void> {
    if (!this.writer) throw new Error('the sink got a record before init');
    const rows = rowsForRecord(record.topic, record.value, robotsSummary, ctx.config.productToken);
    ctx.metrics.count('sink.rows', rows.length);
    return this.writer.write({ topic: record.topic, partition: record.partition, offset: record.offset }, rows);
  }

  /** The task moved away: insert nothing more, the new owner writes what this one had not. */
  abandon(): void {
    void this.writer?.abort();
  }

  hasPendingWork(): boolean {
    return (this.writer?.pending ?? 0) > 0;
  }

  async close(): Promise<void> {
    await this.writer?.close();
  }
}
