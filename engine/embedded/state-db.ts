// Layout of the embedded runtime's LevelDB: one database per data directory holds every task's
// stores, every consumer position, the committed end of every log partition, counters and the
// schema registry — so that one batch can commit all of them together. Meta keys: `log-id` (the log
// identity, also in log/IDENTITY), `format` (data format, see data-dir.ts), `commit-round` (the last
// group commit's number, written by every commit), `partitions`, `scale-events`.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { Level } from 'level';
import { whyNotWritable } from './dir-access.js';
import type { InputPosition } from '../task/input-position.js';
import type { LogEnd } from './partition-log.js';

export type StateDb = Level<Buffer, Buffer>;

export async function openStateDb(path: string): Promise<StateDb> {
  const db = new Level<Buffer, Buffer>(path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  try {
    await db.open();
  } catch (err) {
    const cause = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
    // Checked first: on a read-only disk LevelDB cannot take its LOCK either, which is no other process.
    const problem = whyNotWritable(existsSync(path) ? path : dirname(path));
    if (problem) throw new Error(`the data directory ${dirname(path)} cannot be used: ${problem}; the crawl's log and state are written there`);
    if (/lock/i.test(cause)) {
      throw new Error(`the data directory ${path} is in use by another crawlstream process (${cause}); stop it first or pass another --data-dir`);
    }
    throw new Error(`cannot open the state database at ${path}: ${cause}`);
  }
  return db;
}

const key = (s: string) => Buffer.from(s, 'utf8');
const json = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8');

export const positionKey = (group: string, topic: string, partition: number) => key(`p!${group}!${topic}!${partition}`);
export const logEndKey = (topic: string, partition: number) => key(`e!${topic}!${partition}`);
export const counterKey = (processor: string, partition: number, name: string) => key(`m!${processor}!${partition}!${name}`);
export const metaKey = (name: string) => key(`meta!${name}`);
export const encodeJson = json;

export async function readJson<T>(db: StateDb, k: Buffer): Promise<T | undefined> {
  const v = await db.get(k);
  return v === undefined ? undefined : (JSON.parse(v.toString('utf8')) as T);
}

export async function readPosition(db: StateDb, group: string, topic: string, partition: number): Promise<InputPosition | undefined> {
  return readJson<InputPosition>(db, positionKey(group, topic, partition));
}

export async function readLogEnd(db: StateDb, topic: string, partition: number): Promise<LogEnd | undefined> {
  return readJson<LogEnd>(db, logEndKey(topic, partition));
}

export async function readCounters(db: StateDb, processor: string, partition: number): Promise<Map<string, number>> {
  const prefix = `m!${processor}!${partition}!`;
  const out = new Map<string, number>();
  for await (const [k, v] of db.iterator({ gte: key(prefix), lt: key(prefix + '\uffff') })) {
    out.set(k.toString('utf8').slice(prefix.length), Number(v.toString('utf8')));
  }
  return out;
}

/** Every position stored for one group, keyed `topic!partition`. */
export async function readGroupPositions(db: StateDb, group: string): Promise<Map<string, InputPosition>> {
  const prefix = `p!${group}!`;
  const out = new Map<string, InputPosition>();
  for await (const [k, v] of db.iterator({ gte: key(prefix), lt: key(prefix + '\uffff') })) {
    out.set(k.toString('utf8').slice(prefix.length), JSON.parse(v.toString('utf8')) as InputPosition);
  }
  return out;
}
