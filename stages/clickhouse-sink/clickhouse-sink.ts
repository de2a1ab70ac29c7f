// clickhouse-sink: fetch attempts, robots.txt outcomes, parsed pages (with their links) and duplicate
// findings go to ClickHouse for people to query the crawl's history.
//
// Concurrent without per-key order: `process` only converts the record and queues its rows; the
// promise it returns settles once those rows are durably in ClickHouse, so the runtime commits
// input positions only below records whose rows are written. Batching, retries and the
// exactly-once bookkeeping live in clickhouse/sink-writer.ts.
import type { ClickHouse } from '../../clickhouse/connection.js';
import { robotsSummary } from '../../clickhouse/robots-digest.js';
import { rowsForRecord } from '../../clickhouse/rows.js';
import { migrate } from '../../clickhouse/schema.js';
import { SinkWriter } from '../../clickhouse/sink-writer.js';
import { defineProcessor, type Logger, type Processor, type ProcessorContext, type RecordOf, type TopicValues } from '../../engine/api.js';
import type { CrawlConfig } from '../../contract/config.js';
import { duplicates, fetched, parsed, skipped } from '../../contract/topics.js';
import type { OutputTrouble, Troubles } from '../../contract/troubles.js';

const inputs = [fetched, parsed, duplicates, skipped] as const;
type In = TopicValues<typeof inputs>;
type Out = TopicValues<readonly []>;

export interface SinkServices {
  config: CrawlConfig;
  clickhouse: () => Promise<ClickHouse>;
  /** 'live', or a replay's own name: its positions are kept apart from the crawl's. */
  sinkName: string;
  troubles?: Troubles;
}

export const clickhouseSink = defineProcessor({
  name: 'clickhouse-sink',
  // Its first name, kept by its consumer group, task ids and metrics label on every existing crawl: see README (stored names).
  storedAs: 'sink',
  description: 'Writes every fetch attempt, robots.txt outcome, parsed page with its links, and duplicate finding to ClickHouse.',
  inputs,
  kind: 'sink', outputs: [],
  stores: [],
  concurrency: { maxInFlight: 20_000, perKeyOrder: false },
  // A page's text (~17 KB on the bench web) goes from the record's bytes into the INSERT's bytes,
  // escaped on the way, never a JavaScript string: decoding, checking and re-encoding it was the sink's largest cost.
  asBytes: { parsed: ['text'] },
  delivery:
    'Exactly once: each row carries its source offset, a record counts as done only once its rows are written, ' +
    'and after a crash or a failed insert the sink skips what ClickHouse already holds; a replay writes newer rows that replace, never duplicate.',
  create: (s: SinkServices) => new ClickHouseSinkProcessor(s),
});

/**
 * One writer per process, ClickHouse and sink id, shared by every sink task: one INSERT per table and
 * flush for all partitions (each task's own writer made one per task, and chdb as many parts to
 * merge). Positions stay per topic-partition, so sharing changes nothing about exactly-once.
 */
const writers = new WeakMap<() => Promise<ClickHouse>, Map<string, { writer: SinkWriter; tasks: number }>>();

function sharedWriter(clickhouse: () => Promise<ClickHouse>, sinkId: string, logger: Logger, trouble?: OutputTrouble): { writer: SinkWriter; release(): Promise<void> } {
  let bySink = writers.get(clickhouse);
  if (!bySink) writers.set(clickhouse, (bySink = new Map()));
  let shared = bySink.get(sinkId);
  if (!shared) bySink.set(sinkId, (shared = { writer: new SinkWriter({ connect: migratedConnection(clickhouse), sinkId, logger: logger, trouble }), tasks: 0 }));
  shared.tasks++;
  const entry = shared;
  let released = false;
  return {
    writer: entry.writer,
    async release() {
      if (released) return;
      released = true;
      if (--entry.tasks > 0) return;
      if (bySink.get(sinkId) === entry) bySink.delete(sinkId);
      await entry.writer.close();
    },
  };
}

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

class ClickHouseSinkProcessor implements Processor<In, Out> {
  private shared: ReturnType<typeof sharedWriter> | undefined;

  constructor(private readonly s: SinkServices) {}

  init(ctx: ProcessorContext<Out>): void {
    // Positions belong to the log they came from: a new data directory or recreated topics get a
    // new log identity, so their offsets never hide behind an earlier log's.
    this.shared = sharedWriter(this.s.clickhouse, `${this.s.sinkName}:${ctx.logId}`, ctx.logger, this.s.troubles?.of('clickhouse'));
  }

  process(record: RecordOf<In>, ctx: ProcessorContext<Out>): Promise<void> {
    if (!this.shared) throw new Error('the sink got a record before init');
    const rows = rowsForRecord(record, robotsSummary, this.s.config.productToken);
    ctx.metrics.count('sink.rows', rows.length);
    return this.shared.writer.write({ topic: record.topic, partition: record.partition, offset: record.offset }, rows, this);
  }

  /** The task moved away: insert nothing more of its rows, the new owner writes what this one had not. */
  abandon(): void {
    this.shared?.writer.dropOwner(this);
    void this.shared?.release();
  }

  hasPendingWork(): boolean {
    return (this.shared?.writer.pendingOf(this) ?? 0) > 0;
  }

  async close(): Promise<void> {
    if (!this.shared) return;
    await this.shared.writer.flushOwner(this);
    await this.shared.release();
  }
}
