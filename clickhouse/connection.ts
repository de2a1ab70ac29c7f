// One client API over both engines: embedded chdb (the default, data under the crawl's data
// directory) and a ClickHouse server over HTTP. Everything else in clickhouse/ talks to `ClickHouse`
// and must keep to SQL that both ClickHouse 26.x (chdb) and 18.16 (the oldest server we test) accept.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import type { Logger } from '../engine/api.js';
import { loadChdb, startChdbEngine } from './chdb-memory.js';
import { checkDamage, describeDamage, type DamageCheck, type DamagedPart } from './damage.js';
import { whyNotWritable } from '../engine/embedded/dir-access.js';

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

export type ClickHouseEngine = 'chdb' | 'server';

export interface ClickHouseOptions {
  /** http(s)://[user:password@]host:port[/database] of a ClickHouse server; when absent, embedded chdb is used. */
  url?: string;
  /** The crawl's data directory; chdb keeps its files in `<dataDir>/clickhouse`. */
  dataDir?: string;
  /** Database holding the crawl's tables; created when missing (unless read-only). Default 'crawlstream'. */
  database?: string;
  /**
   * Reads only: every statement runs with ClickHouse's readonly=2 (no DDL, no INSERT, no setting of
   * readonly), and nothing is created: a missing data directory or database is an error.
   */
  readOnly?: boolean;
  /** Told what the open found wrong (parts ClickHouse set aside), or that it could not check. */
  logger?: Logger;
}

export interface ClickHouse {
  readonly engine: ClickHouseEngine;
  readonly database: string;
  /** The server URL without credentials, or the chdb directory. */
  readonly location: string;
  readonly readOnly: boolean;
  /**
   * Parts of this database's tables that ClickHouse detached (e.g. unreadable at start): their rows
   * are missing from every query. Empty when none, or when `damageUnknown` says no check was possible.
   */
  readonly damage: readonly DamagedPart[];
  /** Why the damage check could not run (servers without system.detached_parts); undefined when it ran. */
  readonly damageUnknown?: string;
  /** The underlying client, for callers that need more than the helpers below. */
  readonly client: ClickHouseClient;
  /** Rows of a SELECT as plain objects. 64-bit integers come back as strings on both engines. */
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** The raw output of a SELECT in the given ClickHouse format (e.g. JSONEachRow, JSONCompact). */
  queryText(sql: string, format: 'JSONEachRow' | 'JSONCompact' | 'TabSeparatedWithNames'): Promise<string>;
  /** A statement without result rows (DDL, OPTIMIZE, SET on chdb). */
  command(sql: string): Promise<void>;
  /** One INSERT of the rows as JSONEachRow: one part on MergeTree, so all rows land or none do. */
  insert(table: string, rows: readonly Record<string, unknown>[], opts?: { queryId?: string }): Promise<void>;
  /**
   * One INSERT of lines already encoded as TabSeparated (clickhouse/tsv.ts, tsv-lines.ts), naming
   * their `columns` in order: what the sink writes the crawl's tables with, cheaper at both ends.
   */
  insertTsv(table: string, columns: readonly string[], values: Buffer | Iterable<Buffer>, opts?: { queryId?: string }): Promise<void>;
  /**
   * Whether a query is still executing. A server keeps running an INSERT whose client gave up
   * (timeout, dropped connection); only once it has finished does the table show its fate.
   */
  isRunning(queryId: string): Promise<boolean>;
  close(): Promise<void>;
}

export const DEFAULT_DATABASE = 'crawlstream';

/** Failures reach the caller as errors; the sink logs them once per burst, the client need not. */
const QUIET = { level: ClickHouseLogLevel.OFF };

export async function openClickHouse(opts: ClickHouseOptions): Promise<ClickHouse> {
  const { url, database: inUrl } = splitDatabase(opts.url);
  opts = { ...opts, url };
  const database = opts.database ?? inUrl ?? DEFAULT_DATABASE;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new Error(`invalid ClickHouse database name ${JSON.stringify(database)}`);
  const open = opts.url ? openServer(opts.url, database, opts.readOnly === true) : openLocal(opts, database);
  const { client, engine, location, version, rawInsert } = await open;
  let damage: DamageCheck;
  try {
    damage = await checkDamage(client, database, { local: engine === 'chdb', version });
    if (opts.readOnly) await enterReadOnly(client, engine);
  } catch (err) {
    await client.close();
    throw err;
  }
  for (const line of describeDamage(database, damage)) opts.logger?.warn(line);
  if (damage.unknown) opts.logger?.info(`cannot check ${location} for damaged parts: ${damage.unknown}`);
  return wrap({ engine, location, client, rawInsert }, database, opts.readOnly === true, damage);
}

interface Opened {
  client: ClickHouseClient;
  engine: ClickHouseEngine;
  location: string;
  version: string;
  /** chdb's own insert of bytes, handed to the engine without a copy to a JS string. */
  rawInsert?: RawInsert;
}

type RawInsert = (p: { table: string; values: Buffer; format: 'TabSeparated'; columns: readonly string[] }) => Promise<unknown>;

function openLocal(opts: ClickHouseOptions, database: string): Promise<Opened> {
  if (!opts.dataDir) throw new Error('openClickHouse needs either a server url or the crawl data directory');
  const dataDir = resolve(opts.dataDir);
  if (opts.readOnly) {
    // Reading a directory that is not there would create an empty store and answer every query
    // with nothing, as if the crawl had found nothing.
    if (!existsSync(dataDir)) throw new Error(`the data directory ${dataDir} does not exist (give the --data-dir of a crawl, or --clickhouse-url)`);
    if (!existsSync(join(dataDir, 'clickhouse'))) throw new Error(`${dataDir} holds no crawl history (no clickhouse/ directory): has a crawl run with this --data-dir?`);
  }
  return openChdb(join(dataDir, 'clickhouse'), database, opts.readOnly === true);
}

/**
 * chdb applies per-query settings as session-wide SETs, so the session itself becomes read-only
 * (for good: readonly cannot be lowered from inside). A server gets it with every request.
 */
async function enterReadOnly(client: ClickHouseClient, engine: ClickHouseEngine): Promise<void> {
  if (engine === 'chdb') await client.command({ query: 'SET readonly = 2' });
}

/**
 * A process-wide factory for `env.resources.clickhouse`: every caller shares one connection, and a
 * failed open is not remembered, so a sink retrying while ClickHouse is down gets a fresh attempt.
 */
export function sharedClickHouse(opts: ClickHouseOptions): (() => Promise<ClickHouse>) & { close(): Promise<void> } {
  let opened: Promise<ClickHouse> | undefined;
  const get = () => {
    opened ??= openClickHouse(opts).catch((err: unknown) => {
      opened = undefined;
      throw err;
    });
    return opened;
  };
  return Object.assign(get, {
    async close() {
      const current = opened;
      opened = undefined;
      if (current) await (await current.catch(() => undefined))?.close();
    },
  });
}

/** `http://host:8123/analytics` names the database in the path, as clickhouse-client URLs do. */
function splitDatabase(url: string | undefined): { url?: string; database?: string } {
  if (!url) return { url };
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`--clickhouse-url ${JSON.stringify(url)} is not a URL (expected http://host:8123[/database])`);
  }
  const database = decodeURIComponent(u.pathname.replace(/^\/+|\/+$/g, ''));
  u.pathname = '/';
  return { url: u.toString().replace(/\/$/, ''), database: database || undefined };
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '<invalid url>';
  }
}

const READ_ONLY = { readonly: '2' } as const;

async function openServer(url: string, database: string, readOnly: boolean): Promise<Opened> {
  const location = redactUrl(url);
  // The database must exist before a client may name it on every request.
  const bootstrap = createClient({ url, request_timeout: BOOTSTRAP_TIMEOUT_MS, log: QUIET, clickhouse_settings: readOnly ? READ_ONLY : undefined });
  let version: string;
  try {
    const [row] = await bootstrap.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' }).then((r) => r.json<{ v?: string }>());
    version = row?.v ?? 'unknown';
  } catch (err) {
    await bootstrap.close();
    throw new Error(explainServerFailure(location, err as Error), { cause: err });
  }
  try {
    if (readOnly) await assertDatabase(bootstrap, database, location);
    else await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  } finally {
    await bootstrap.close();
  }
  const client = createClient({ url, database, request_timeout: 60_000, log: QUIET, clickhouse_settings: readOnly ? READ_ONLY : undefined });
  return { client, engine: 'server', location, version };
}

const BOOTSTRAP_TIMEOUT_MS = 10_000;

/** A server that answers with an error, closes, or does not answer at all: three different things to fix. */
function explainServerFailure(location: string, err: Error): string {
  const code = (err as { code?: unknown }).code;
  if (/^timeout error/i.test(err.message)) return `ClickHouse server at ${location} did not answer within ${BOOTSTRAP_TIMEOUT_MS / 1000} s (${err.message})`;
  if ((typeof code === 'string' && /^\d+$/.test(code)) || /^Code: \d+[.,]/.test(err.message)) return `ClickHouse server at ${location} answered with an error: ${err.message.trim()}`;
  return `ClickHouse server at ${location} is unreachable: ${err.message}`;
}

async function assertDatabase(client: ClickHouseClient, database: string, location: string): Promise<void> {
  const found = await client.query({ query: `SELECT name FROM system.databases WHERE name = ${sqlString(database)}`, format: 'JSONEachRow' }).then((r) => r.json());
  if (found.length === 0) throw new Error(`${location} has no database ${database}: nothing was crawled into it (or give the right one in --clickhouse-url http://host:8123/<database>)`);
}

async function openChdb(dir: string, database: string, readOnly: boolean): Promise<Opened> {
  if (!readOnly) mkdirSync(dir, { recursive: true });
  const { createChdbConnection } = await loadChdb();
  let connection;
  try {
    const release = await startChdbEngine(dir, readOnly);
    try {
      connection = createChdbConnection({ path: dir });
    } finally {
      release();
    }
  } catch (err) {
    throw new Error(explainChdbOpenFailure(dir, err as Error), { cause: err });
  }
  // chdb types its connection against its own copy of @clickhouse/client-common; the shapes agree.
  const client = createClient({ connection: connection as unknown as ClientConnection, log: QUIET });
  let version: string;
  try {
    if (readOnly) await assertDatabase(client, database, dir);
    else await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
    // chdb sessions keep USE and SET for later statements. Its default async_insert=1 would let an
    // INSERT return before its part is written and merge several inserts into one; the sink's
    // exactly-once bookkeeping needs each INSERT to be its own atomic, synchronous part.
    await client.command({ query: `USE ${database}` });
    await client.command({ query: 'SET async_insert = 0' });
    // The server quotes 64-bit integers in JSON by default (so simhash and offsets keep every bit);
    // chdb does not. Same output on both engines.
    await client.command({ query: 'SET output_format_json_quote_64bit_integers = 1' });
    const [row] = await client.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' }).then((r) => r.json<{ v?: string }>());
    version = row?.v ?? 'unknown';
  } catch (err) {
    await client.close();
    throw err;
  }
  const rawInsert: RawInsert = (p) => (connection as unknown as { chdb: { rawInsert: RawInsert } }).chdb.rawInsert(p);
  return { client, engine: 'chdb', location: dir, version, rawInsert };
}

function explainChdbOpenFailure(dir: string, err: Error): string {
  const status = join(dir, 'status');
  if (existsSync(status)) {
    // ClickHouse writes its owner's PID into the lock file and removes it on a clean close.
    const pid = Number(/PID:\s*(\d+)/.exec(safeRead(status))?.[1] ?? NaN);
    if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) {
      return `the embedded ClickHouse store ${dir} is locked by process ${pid} (probably a crawl in progress); ` +
        'stop that crawl, or run this command with the same data directory once it has finished';
    }
  }
  // Embedded ClickHouse writes its status file even to read: a read-only copy of a crawl cannot be opened.
  const problem = whyNotWritable(dir);
  if (problem) return `cannot open the embedded ClickHouse store ${dir}: ${problem}, and embedded ClickHouse writes there even to read (copy the data directory somewhere writable)`;
  return `cannot open the embedded ClickHouse store ${dir}: ${err.message}`;
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** An INSERT's payload in one buffer (chdb takes one; a server's comes as pieces made while it streams: read them once). */
export function wholePayload(values: Buffer | Iterable<Buffer>): Buffer {
  return Buffer.isBuffer(values) ? values : Buffer.concat([...values]);
}

function wrap(opened: Omit<Opened, 'version'>, database: string, readOnly: boolean, damage: DamageCheck): ClickHouse {
  const { engine, location, client, rawInsert } = opened;
  let closed = false;
  const insertTsv: ClickHouse['insertTsv'] = async (table, columns, values, opts) => {
    if (Buffer.isBuffer(values) && values.length === 0) return;
    // chdb takes one buffer; a server's insert streams pieces as they are made (tsvPieces).
    if (rawInsert) await rawInsert({ table, values: wholePayload(values), format: 'TabSeparated', columns });
    else await client.insert({ table, values: Readable.from(Buffer.isBuffer(values) ? [values] : values, { objectMode: false }), format: 'TabSeparated', columns: columns as [string, ...string[]], query_id: opts?.queryId });
  };
  return {
    engine,
    database,
    location,
    readOnly,
    damage: damage.parts,
    damageUnknown: damage.unknown,
    client,
    async query<T>(sql: string): Promise<T[]> {
      const result = await client.query({ query: sql, format: 'JSONEachRow' });
      return result.json<T>();
    },
    async queryText(sql, format) {
      const result = await client.query({ query: sql, format });
      return result.text();
    },
    async command(sql) {
      await client.command({ query: sql });
    },
    async insert(table, rows, opts) {
      if (rows.length === 0) return;
      await client.insert({ table, values: rows as Record<string, unknown>[], format: 'JSONEachRow', query_id: opts?.queryId });
    },
    insertTsv,
    async isRunning(queryId) {
      // In-process chdb finishes (or dies with us) before the call returns.
      if (engine === 'chdb') return false;
      const result = await client.query({ query: `SELECT count() AS n FROM system.processes WHERE query_id = ${sqlString(queryId)}`, format: 'JSONEachRow' });
      const [row] = await result.json<{ n: string | number }>();
      return Number(row?.n ?? 0) > 0;
    },
    async close() {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}

/** A ClickHouse string literal. The server of 18.16 has no query parameters, so values are inlined. */
export function sqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
