// What one flush of the sink writer inserts: the rows of its records that ClickHouse does not hold
// yet, by table, with the highest source offset each table will hold once they are in.
import type { TableRow } from './rows.js';
import { LOG_KEYED_TABLES } from './schema.js';
import type { Line } from './tsv-lines.js';

export interface SinkSource {
  topic: string;
  partition: number;
  offset: number;
}

/** One record handed to the writer. */
export interface Entry {
  source: SinkSource;
  /** Rows of the crawl's own tables, as TabSeparated, encoded when handed over (clickhouse/tsv-lines.ts says why). */
  lines: Line[];
  /** Rows of a user module's tables, which may hold anything JSON can say: stamped and sent as JSONEachRow. */
  rows: TableRow[];
  count: number;
  bytes: number;
  since: number;
  resolve: () => void;
  /** The task that handed it over, when several share the writer. */
  owner: object | undefined;
}

/** What one task sharing a writer has handed over and not yet seen written. */
export interface Owner {
  pending: number;
  sources: Set<string>;
  drained: (() => void)[];
}

export interface TableBatch {
  lines: Line[];
  rows: Record<string, unknown>[];
}

/**
 * The rows of `batch` above what `positions` (`${table}\0${topic}\0${partition}` → highest src_offset
 * in ClickHouse) says is there. User modules' rows are stamped in place: the writer owns them, and
 * stamping is much cheaper than copying (a retry stamps the same values again, with its batch's version).
 */
export function newRows(batch: readonly Entry[], positions: ReadonlyMap<string, number>,
  stamp: { sinkId: string; logId: string; version: number; sunkAt: number }): { byTable: Map<string, TableBatch>; top: Map<string, number>; skipped: number } {
  const byTable = new Map<string, TableBatch>();
  const top = new Map<string, number>();
  const of = (table: string) => {
    let t = byTable.get(table);
    if (!t) byTable.set(table, (t = { lines: [], rows: [] }));
    return t;
  };
  let skipped = 0;
  for (const e of batch) {
    const { topic, partition, offset } = e.source;
    let skip = false;
    const fresh = (table: string): boolean => {
      const key = `${table}\0${topic}\0${partition}`;
      if (offset <= (positions.get(key) ?? -1)) return !(skip = true);
      top.set(key, Math.max(offset, top.get(key) ?? -1));
      return true;
    };
    for (const line of e.lines) if (fresh(line.table)) of(line.table).lines.push(line);
    for (const r of e.rows) {
      if (!fresh(r.table)) continue;
      const row = r.row;
      row.sink_id = stamp.sinkId;
      row.src_topic = topic;
      row.src_partition = partition;
      row.src_offset = offset;
      row.version = stamp.version;
      row.sunk_at = stamp.sunkAt;
      if (LOG_KEYED_TABLES.has(r.table)) row.log_id = stamp.logId;
      of(r.table).rows.push(row);
    }
    if (skip) skipped++;
  }
  return { byTable, top, skipped };
}

let lastVersion = 0;

/** Microseconds of wall clock, increasing within the process: a later write of the same fetch wins. */
export function nextVersion(): number {
  lastVersion = Math.max(lastVersion + 1, Date.now() * 1000);
  return lastVersion;
}
