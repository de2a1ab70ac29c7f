// Batches sink rows into ClickHouse, exactly once across retries, server restarts and sink restarts.
//
// How: every row carries its source coordinates (src_topic, src_partition, src_offset) and the
// writer's sink_id. Each flush writes ONE INSERT per table, which MergeTree applies atomically (the
// tables have no PARTITION BY and batches stay far below max_insert_block_size, so it is one part).
// Flushes of one writer run one after another, in offset order. So for every (table, topic,
// partition, sink_id), the rows in ClickHouse are exactly those at or below max(src_offset), and
// anything at or below it can be skipped. The writer reads those maxima before its first insert
// and again before retrying an insert that failed (it may have been applied all the same: the
// server can die after committing and before answering).
import { randomUUID } from 'node:crypto';
import type { Logger } from '../engine/api.js';
import type { ClickHouse } from './connection.js';
import { sqlString } from './connection.js';
import type { TableRow } from './rows.js';
import { LOG_KEYED_TABLES, logIdOfSink, SINK_TABLES } from './schema.js';
import { newRows, nextVersion, type Entry, type Owner, type SinkSource } from './sink-batch.js';
import { SinkLines, tsvPayload, tsvPieces, type Line } from './tsv-lines.js';
import { tsvString } from './tsv.js';
export type { SinkSource } from './sink-batch.js';

export interface SinkWriterOptions {
  /** Called again after a failure; should not cache a rejected open. */
  connect: () => Promise<ClickHouse>;
  /** 'live', or a replay id: positions are kept per sink id. */
  sinkId: string;
  /** Tables this writer inserts into, in flush order (default: the crawl's own). */
  tables?: readonly string[];
  logger: Logger;
  /** A batch is flushed at this many rows… */
  maxRows?: number;
  /** …or this many (estimated) bytes… */
  maxBytes?: number;
  /** …or when its oldest record has waited this long… */
  maxDelayMs?: number;
  /**
   * …or when no record came for this long (a crawl that went quiet, or ended: its last rows land now,
   * not up to maxDelayMs later). A crawl under way hands records over far more often than this.
   */
  lingerMs?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Told when an insert starts and ends, fails and works again (a stop says why rows were left). */
  trouble?: { begin(): () => void; failed(message: string): void; working(): void };
}

const TSV_TABLES: ReadonlySet<string> = new Set(SINK_TABLES);

const NO_TROUBLE = { begin: () => () => undefined, failed: () => undefined, working: () => undefined };
const DEFAULTS = { trouble: NO_TROUBLE, tables: SINK_TABLES, maxRows: 20_000, maxBytes: 8 * 1024 * 1024, maxDelayMs: 2_000, lingerMs: 500, minBackoffMs: 100, maxBackoffMs: 30_000 };

export class SinkWriter {
  private readonly opts: Required<SinkWriterOptions>;
  /** Goes into the key of the crawl's tables, so two crawls' rows never replace each other. */
  private readonly logId: string;
  private buffer: Entry[] = [];
  private bufferedRows = 0;
  private bufferedBytes = 0;
  private inFlight = 0;
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private closing = false;
  private aborted = false;
  private connection: ClickHouse | undefined;
  /** `${table}\0${topic}\0${partition}` → highest src_offset known to be in ClickHouse. */
  private positions = new Map<string, number>();
  /** `${topic}\0${partition}` whose positions were read since the last failure. */
  private known = new Set<string>();
  /** The INSERT whose fate a failure left unknown; its outcome is awaited before positions are read. */
  private unsettledQuery: string | undefined;
  private readonly lastWritten = new Map<string, number>();
  private readonly owners = new Map<object, Owner>();
  private readonly lines = new SinkLines();
  /** Owners waiting for their rows to be written now (closing tasks): the buffer is flushed at once. */
  private urgent = 0;
  /** Rows inserted and records skipped as already present, for tests and metrics. */
  readonly stats = { rowsInserted: 0, recordsSkipped: 0, inserts: 0, failures: 0 };

  constructor(options: SinkWriterOptions) {
    // An option given as undefined (no trouble to tell) keeps its default.
    this.opts = { ...DEFAULTS, ...options, trouble: options.trouble ?? NO_TROUBLE } as Required<SinkWriterOptions>;
    if (!/^[\w.:-]{1,128}$/.test(this.opts.sinkId)) throw new Error(`invalid sink id ${JSON.stringify(this.opts.sinkId)}`);
    this.logId = logIdOfSink(this.opts.sinkId);
  }

  /** Records handed over and not yet durable. */
  get pending(): number {
    return this.buffer.length + this.inFlight;
  }

  /**
   * Resolves once the record's rows are in ClickHouse (or were already there). Records of one
   * topic-partition must come in offset order: a later offset flushed first would make an earlier
   * one look written.
   */
  write(source: SinkSource, rows: TableRow[], owner?: object): Promise<void> {
    if (this.closing || this.aborted) return Promise.reject(new Error('the ClickHouse sink writer is closed'));
    // A row for a table the writer does not flush would be dropped without a word.
    const unknown = rows.find((r) => !this.opts.tables.includes(r.table));
    if (unknown) return Promise.reject(new Error(`the sink ${this.opts.sinkId} does not write table ${unknown.table} (it writes ${this.opts.tables.join(', ')})`));
    const key = `${source.topic}\0${source.partition}`;
    const last = this.lastWritten.get(key);
    if (last !== undefined && source.offset <= last) {
      return Promise.reject(new Error(`sink records out of order: ${source.topic}/${source.partition}@${source.offset} after @${last}`));
    }
    let entry: Entry;
    try {
      entry = this.entryOf(source, rows, owner);
    } catch (err) {
      return Promise.reject(err);
    }
    this.lastWritten.set(key, source.offset);
    const o = owner ? this.ownerOf(owner) : undefined;
    if (o) {
      o.pending++;
      o.sources.add(key);
    }
    // Nothing of `rows` may be reachable from the promise's resolver, which lives until the flush.
    let done!: () => void;
    const written = new Promise<void>((resolve) => (done = resolve));
    entry.resolve = o ? () => { done(); this.settled(o); } : done;
    this.buffer.push(entry);
    this.bufferedRows += entry.count;
    this.bufferedBytes += entry.bytes;
    this.kick();
    return written;
  }

  private entryOf(source: SinkSource, rows: TableRow[], owner: object | undefined): Entry {
    const lines: Line[] = [];
    const objects: TableRow[] = [];
    let bytes = 0;
    const stamps = `${this.opts.sinkId}\t${tsvString(source.topic)}\t${source.partition}\t${source.offset}`;
    for (const r of rows) {
      if (TSV_TABLES.has(r.table)) {
        const line = this.lines.add(r.table, r.row, stamps);
        lines.push(line);
        bytes += line.bytes.length;
      } else {
        objects.push(r);
        bytes += r.bytes;
      }
    }
    return { source, lines, rows: objects, count: lines.length + objects.length, bytes, since: Date.now(), resolve: () => undefined, owner };
  }

  /** Records `owner` handed over and not yet durable. */
  pendingOf(owner: object): number {
    return this.owners.get(owner)?.pending ?? 0;
  }

  /** Writes what `owner` handed over now (not at the next due flush), and resolves once it is durable. */
  async flushOwner(owner: object): Promise<void> {
    const o = this.owners.get(owner);
    if (!o || o.pending === 0) return;
    this.urgent++;
    try {
      const drained = new Promise<void>((resolve) => o.drained.push(resolve));
      this.kick();
      await drained;
    } finally {
      this.urgent--;
    }
  }

  /**
   * Forgets what `owner` handed over and is not yet being inserted (its task moved away: the new owner
   * writes it); an insert already under way still lands. Its partitions may start again at any offset.
   * The forgotten writes settle now, unwritten: their task was told to stop first, so their records
   * count as unfinished (StreamTask.recordEnded) and are its next owner's. Left pending, they held
   * every abandon to its 5 s bound, and after a broker restart every task's re-open with it.
   */
  dropOwner(owner: object): void {
    const o = this.owners.get(owner);
    if (!o) return;
    const kept: Entry[] = [];
    const dropped: Entry[] = [];
    for (const e of this.buffer) {
      if (e.owner !== owner) kept.push(e);
      else {
        this.bufferedRows -= e.count;
        this.bufferedBytes -= e.bytes;
        dropped.push(e);
      }
    }
    this.buffer = kept;
    for (const e of dropped) e.resolve();
    for (const key of o.sources) this.lastWritten.delete(key);
    this.owners.delete(owner);
  }

  private ownerOf(owner: object): Owner {
    let o = this.owners.get(owner);
    if (!o) this.owners.set(owner, (o = { pending: 0, sources: new Set(), drained: [] }));
    return o;
  }

  private settled(o: Owner): void {
    if (--o.pending > 0) return;
    for (const wake of o.drained.splice(0)) wake();
  }

  /** Writes everything handed over so far, waiting (and retrying) as long as it takes. */
  async close(): Promise<void> {
    this.closing = true;
    this.kick();
    while (this.flushing) await this.flushing;
    this.clearTimer();
  }

  /** Stops at once, as a crash would: nothing more is inserted once an insert in flight settles. */
  async abort(): Promise<void> {
    this.aborted = true;
    this.clearTimer();
    this.wake?.();
    while (this.flushing) await this.flushing.catch(() => undefined);
  }

  private kick(): void {
    if (this.flushing || this.aborted || this.buffer.length === 0) return;
    const wait = this.due();
    if (wait > 0) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.kick();
      }, wait);
      return;
    }
    this.clearTimer();
    this.flushing = this.flushLoop().finally(() => {
      this.flushing = undefined;
      this.kick();
    });
  }

  /** 0 when the buffer should be flushed now, else how long until its oldest record is due. */
  private due(): number {
    if (this.closing || this.urgent > 0 || this.bufferedRows >= this.opts.maxRows || this.bufferedBytes >= this.opts.maxBytes) return 0;
    const due = Math.min(this.buffer[0].since + this.opts.maxDelayMs, this.buffer[this.buffer.length - 1].since + this.opts.lingerMs);
    return Math.max(0, due - Date.now());
  }

  private async flushLoop(): Promise<void> {
    while (this.buffer.length > 0 && !this.aborted && this.due() === 0) {
      const batch = this.take();
      this.inFlight += batch.length;
      try {
        const done = await this.insertWithRetry(batch);
        if (done) for (const e of batch) e.resolve();
      } finally {
        this.inFlight -= batch.length;
      }
    }
  }

  /** Whole records, up to the row and byte bounds (at least one record). */
  private take(): Entry[] {
    let rows = 0;
    let bytes = 0;
    let n = 0;
    while (n < this.buffer.length) {
      const e = this.buffer[n];
      if (n > 0 && (rows + e.count > this.opts.maxRows || bytes + e.bytes > this.opts.maxBytes)) break;
      rows += e.count;
      bytes += e.bytes;
      n++;
    }
    const batch = this.buffer.splice(0, n);
    this.bufferedRows -= rows;
    this.bufferedBytes -= bytes;
    return batch;
  }

  /** True once the batch is durable; false only when aborted first. */
  private async insertWithRetry(batch: Entry[]): Promise<boolean> {
    let failures = 0;
    const sunkAt = Math.floor(Date.now() / 1000);
    const version = nextVersion();
    for (;;) {
      if (this.aborted) return false;
      const ended = this.opts.trouble.begin();
      try {
        const ch = (this.connection ??= await this.opts.connect());
        await this.awaitUnsettled(ch);
        await this.readPositions(ch, batch);
        await this.insertBatch(ch, batch, version, sunkAt);
        ended();
        this.opts.trouble.working();
        if (failures > 0) this.opts.logger.info(`ClickHouse sink ${this.opts.sinkId}: writing again after ${failures} failed attempt(s)`);
        return true;
      } catch (err) {
        ended();
        this.opts.trouble.failed((err as Error).message);
        // The insert may have been applied before the error reached us: re-read what is there.
        this.known.clear();
        this.stats.failures++;
        failures++;
        if (failures === 1) {
          this.opts.logger.warn(`ClickHouse sink ${this.opts.sinkId}: write failed, retrying with backoff until it succeeds: ${(err as Error).message}`);
        }
        await this.sleep(Math.min(this.opts.maxBackoffMs, this.opts.minBackoffMs * 2 ** Math.min(failures - 1, 20)));
      }
    }
  }

  private async insertBatch(ch: ClickHouse, batch: Entry[], version: number, sunkAt: number): Promise<void> {
    const { byTable, top, skipped } = newRows(batch, this.positions, { sinkId: this.opts.sinkId, logId: this.logId, version, sunkAt });
    for (const table of this.opts.tables) {
      const t = byTable.get(table);
      if (!t) continue;
      const queryId = `crawlstream-sink-${randomUUID()}`;
      this.unsettledQuery = queryId;
      if (t.lines.length > 0) {
        const logKeyed = LOG_KEYED_TABLES.has(table);
        const columns = this.lines.columns(table, logKeyed);
        const end = `\t${version}\t${sunkAt}${logKeyed ? `\t${this.logId}` : ''}\n`;
        await ch.insertTsv(table, columns, ch.engine === 'server' ? tsvPieces(t.lines, end) : tsvPayload(t.lines, end), { queryId });
      } else {
        await ch.insert(table, t.rows, { queryId });
      }
      this.unsettledQuery = undefined;
      this.stats.inserts++;
      this.stats.rowsInserted += t.lines.length + t.rows.length;
      for (const [key, offset] of top) {
        if (key.startsWith(`${table}\0`) && offset > (this.positions.get(key) ?? -1)) this.positions.set(key, offset);
      }
    }
    this.stats.recordsSkipped += skipped;
  }

  /** Positions read while a failed INSERT still runs on the server could miss its rows. */
  private async awaitUnsettled(ch: ClickHouse): Promise<void> {
    const queryId = this.unsettledQuery;
    if (!queryId) return;
    for (let wait = 10; await ch.isRunning(queryId); wait = Math.min(wait * 2, 1000)) {
      if (this.aborted) throw new Error('aborted');
      await this.sleep(wait);
    }
    this.unsettledQuery = undefined;
  }

  private async readPositions(ch: ClickHouse, batch: Entry[]): Promise<void> {
    const wanted = new Map<string, SinkSource>();
    for (const e of batch) {
      const key = `${e.source.topic}\0${e.source.partition}`;
      if (!this.known.has(key)) wanted.set(key, e.source);
    }
    if (wanted.size === 0) return;
    const partitions = [...new Set([...wanted.values()].map((s) => s.partition))];
    for (const table of this.opts.tables) {
      const rows = await ch.query<{ src_topic: string; src_partition: number | string; max_offset: string }>(
        `SELECT src_topic, src_partition, toString(max(src_offset)) AS max_offset FROM ${table}
         WHERE sink_id = ${sqlString(this.opts.sinkId)} AND src_partition IN (${partitions.join(', ')})
         GROUP BY src_topic, src_partition`,
      );
      for (const key of wanted.keys()) this.positions.delete(`${table}\0${key}`);
      for (const r of rows) {
        const key = `${r.src_topic}\0${Number(r.src_partition)}`;
        if (wanted.has(key)) this.positions.set(`${table}\0${key}`, Number(r.max_offset));
      }
    }
    for (const key of wanted.keys()) this.known.add(key);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    });
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
