// Drives a sink the way the runtime drives a concurrent processor: records handed over in offset
// order without waiting, at most `maxInFlight` pending, and input positions committed periodically
// at the oldest record still pending. A "crash" stops feeding and keeps only the last commit.
import type { Logger } from '../../engine/api.js';
import type { ClickHouse } from '../connection.js';
import { robotsSummary } from '../robots-digest.js';
import { rowsForRecord, type SinkInput } from '../rows.js';
import { SINK_TABLES } from '../schema.js';
import { SinkWriter, type SinkWriterOptions } from '../sink-writer.js';
import type { SourcedRecord } from './test-fixtures.js';

export type Positions = Record<string, number>;

export interface FeedOptions {
  maxInFlight?: number;
  commitEveryMs?: number;
  /** Checked before each record; true simulates a crash at that point. */
  crashWhen?: (handedOver: number, committed: Positions) => boolean;
  /** Pause between records now and then, so flushes interleave with the stream. */
  pauseEvery?: number;
  /** Called with every commit, e.g. to persist positions the way the runtime does. */
  onCommit?: (committed: Positions) => void;
}

export interface FeedResult {
  crashed: boolean;
  /** Where a restarted consumer resumes: the last committed position per topic. */
  committed: Positions;
}

export async function feed(
  records: SourcedRecord[], write: (r: SourcedRecord) => Promise<void>, opts: FeedOptions = {},
): Promise<FeedResult> {
  const maxInFlight = opts.maxInFlight ?? 20_000;
  const pending = new Map<string, Set<number>>();
  const next: Positions = {};
  let committed: Positions = {};
  let inFlight = 0;
  let failure: unknown;
  const position = (): Positions => {
    const out: Positions = {};
    for (const [topic, n] of Object.entries(next)) {
      const open = pending.get(topic);
      out[topic] = open && open.size > 0 ? Math.min(...open) : n;
    }
    return out;
  };
  const commit = () => {
    committed = position();
    opts.onCommit?.(committed);
  };
  const timer = setInterval(commit, opts.commitEveryMs ?? 50);
  try {
    let handed = 0;
    for (const r of records) {
      if (opts.crashWhen?.(handed, committed)) return { crashed: true, committed };
      while (inFlight >= maxInFlight) await new Promise((res) => setTimeout(res, 1));
      if (failure) throw failure;
      let open = pending.get(r.topic);
      if (!open) pending.set(r.topic, (open = new Set()));
      open.add(r.offset);
      next[r.topic] = r.offset + 1;
      inFlight++;
      handed++;
      const set = open;
      write(r).then(
        () => {
          set.delete(r.offset);
          inFlight--;
        },
        (err: unknown) => (failure = err),
      );
      if (opts.pauseEvery && handed % opts.pauseEvery === 0) await new Promise((res) => setTimeout(res, 2));
    }
    while (inFlight > 0) {
      if (failure) throw failure;
      if (opts.crashWhen?.(handed, committed)) return { crashed: true, committed };
      await new Promise((res) => setTimeout(res, 2));
    }
    commit();
    return { crashed: false, committed };
  } finally {
    clearInterval(timer);
  }
}

/** The records a consumer restarted at `committed` sees again. */
export function resumeFrom(records: SourcedRecord[], committed: Positions): SourcedRecord[] {
  return records.filter((r) => r.offset >= (committed[r.topic] ?? 0));
}

/** Every physical row the sink wrote (no FINAL: replaced rows not yet merged count too). */
export async function physicalRowKeys(ch: ClickHouse, sinkId = 'live'): Promise<string[]> {
  const keys: string[] = [];
  for (const table of SINK_TABLES) {
    const rows = await ch.query<{ k: string }>(
      `SELECT concat('${table}@', src_topic, '/', toString(src_offset)) AS k FROM ${table} WHERE sink_id = '${sinkId}'`,
    );
    for (const r of rows) keys.push(r.k);
  }
  return keys.sort();
}

/** Keys that occur more than once, and expected keys that are missing. */
export function compareKeys(actual: string[], expected: string[]): { duplicates: string[]; missing: string[]; extra: string[] } {
  const counts = new Map<string, number>();
  for (const k of actual) counts.set(k, (counts.get(k) ?? 0) + 1);
  const expectedSet = new Set(expected);
  return {
    duplicates: [...counts].filter(([, n]) => n > 1).map(([k]) => k),
    missing: expected.filter((k) => !counts.has(k)),
    extra: [...counts.keys()].filter((k) => !expectedSet.has(k)),
  };
}

export interface Faults {
  /** Probability that an INSERT is applied but its answer is lost (the caller sees an error). */
  lostAnswer?: number;
  /** Probability that an INSERT fails before anything is written. */
  refused?: number;
  /** Probability that a SELECT fails. */
  queryFails?: number;
  seed?: number;
}

/** `ch` with injected failures, counting what it did. */
export function faultyClickHouse(ch: ClickHouse, faults: Faults): ClickHouse & { injected: { lost: number; refused: number; queries: number } } {
  let x = faults.seed ?? 7;
  const rnd = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  const injected = { lost: 0, refused: 0, queries: 0 };
  return {
    ...ch,
    injected,
    async query<T>(sql: string): Promise<T[]> {
      if (rnd() < (faults.queryFails ?? 0)) {
        injected.queries++;
        throw new Error('injected: query failed');
      }
      return ch.query<T>(sql);
    },
    // The sink writes the crawl's tables as TabSeparated and a user module's as JSON: both fail alike.
    insert: (table, rows) => faulty(() => ch.insert(table, rows)),
    insertTsv: (table, columns, values) => faulty(() => ch.insertTsv(table, columns, values)),
  };

  async function faulty(insert: () => Promise<void>): Promise<void> {
    const roll = rnd();
    if (roll < (faults.refused ?? 0)) {
      injected.refused++;
      throw new Error('injected: connection refused');
    }
    await insert();
    if (roll < (faults.refused ?? 0) + (faults.lostAnswer ?? 0)) {
      injected.lost++;
      throw new Error('injected: socket hang up after the insert');
    }
  }
}

/** Rows in a TabSeparated payload: a newline inside a value is escaped, so each raw one ends a row. */
export function tsvRows(values: Buffer): number {
  let n = 0;
  for (let at = values.indexOf(10); at !== -1; at = values.indexOf(10, at + 1)) n++;
  return n;
}

export function collectingLog(): Logger & { warnings: string[]; infos: string[] } {
  const warnings: string[] = [];
  const infos: string[] = [];
  return { warnings, infos, warn: (m) => warnings.push(m), info: (m) => infos.push(m) };
}

export function testWriter(connect: ClickHouse | (() => Promise<ClickHouse>), opts: Partial<SinkWriterOptions> = {}): SinkWriter {
  return new SinkWriter({
    connect: typeof connect === 'function' ? connect : async () => connect,
    sinkId: 'live', logger: collectingLog(), maxRows: 200, maxDelayMs: 20, minBackoffMs: 5, maxBackoffMs: 40,
    ...opts,
  });
}

export function writeRecord(writer: SinkWriter): (r: SourcedRecord) => Promise<void> {
  return (r) => writer.write(r, rowsForRecord(r, robotsSummary, 'crawlstream'));
}

/** Sinks values through the real writer, offsets numbered per topic in the given order. */
export async function sinkValues(ch: ClickHouse, values: SinkInput[], sinkId = 'live'): Promise<void> {
  const next: Record<string, number> = {};
  const records: SourcedRecord[] = values.map((v) => ({ ...v, partition: 0, offset: (next[v.topic] = (next[v.topic] ?? -1) + 1) }));
  const writer = testWriter(ch, { sinkId });
  await Promise.all(records.map(writeRecord(writer)));
  await writer.close();
}
