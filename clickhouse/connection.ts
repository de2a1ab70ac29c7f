// One client API over both engines: embedded chdb (the default, data under the crawl's data
// directory) and a ClickHouse server over HTTP. Everything else in clickhouse/ talks to `ClickHouse`
// and must keep to SQL that both ClickHouse 26.x (chdb) and 18.16 (the oldest server we test) accept.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

export type ClickHouseEngine = 'chdb' | 'server';

export interface ClickHouseOptions {
  /** http(s)://[user:password@]host:port[/database] of a ClickHouse server; when absent, embedded chdb is used. */
  url?: string;
  /** The crawl's data directory; chdb keeps its files in `<dataDir>/clickhouse`. */
  dataDir?: string;
  /** Database holding the crawl's tables; created when missing. Default 'crawlstream'. */
  database?: string;
}

export interface ClickHouse {
  readonly engine: ClickHouseEngine;
  readonly database: string;
  /** The server URL without credentials, or the chdb directory. */
  readonly location: string;
  /** The underlying client, for callers that need more than the helpers below. */
  readonly client: ClickHouseClient;
  /** Rows of a SELECT as plain objects. 64-bit integers come back as strings on both engines. */
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** The raw output of a SELECT in the given ClickHouse format (e.g. JSONEachRow, JSONCompact). */
  queryText(sql: string, format: 'JSONEachRow' | 'JSONCompact' | 'TabSeparatedWithNames'): Promise<string>;
  /** A statement without result rows (DDL, OPTIMIZE, SET on chdb). */
  command(sql: string): Promise<void>;
  /** One INSERT of JSONEachRow rows: one part on MergeTree, so all rows land or none do. */
  insert(table: string, rows: readonly Record<string, unknown>[], opts?: { queryId?: string }): Promise<void>;
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
  if (opts.url) return openServer(opts.url, database);
  if (!opts.dataDir) throw new Error('openClickHouse needs either a server url or the crawl data directory');
  return openChdb(join(resolve(opts.dataDir), 'clickhouse'), database);
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

async function openServer(url: string, database: string): Promise<ClickHouse> {
  const location = redactUrl(url);
  // The database must exist before a client may name it on every request.
  const bootstrap = createClient({ url, request_timeout: 10_000, log: QUIET });
  try {
    await bootstrap.query({ query: 'SELECT version()', format: 'JSONEachRow' }).then((r) => r.json());
  } catch (err) {
    await bootstrap.close();
    throw new Error(`ClickHouse server at ${location} is unreachable: ${(err as Error).message}`, { cause: err });
  }
  try {
    await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  } finally {
    await bootstrap.close();
  }
  const client = createClient({ url, database, request_timeout: 60_000, log: QUIET });
  return wrap('server', database, location, client);
}

async function openChdb(dir: string, database: string): Promise<ClickHouse> {
  mkdirSync(dir, { recursive: true });
  let connection;
  try {
    connection = createChdbConnection({ path: dir });
  } catch (err) {
    throw new Error(explainChdbOpenFailure(dir, err as Error), { cause: err });
  }
  // chdb types its connection against its own copy of @clickhouse/client-common; the shapes agree.
  const client = createClient({ connection: connection as unknown as ClientConnection, log: QUIET });
  try {
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
    // chdb sessions keep USE and SET for later statements. Its default async_insert=1 would let an
    // INSERT return before its part is written and merge several inserts into one; the sink's
    // exactly-once bookkeeping needs each INSERT to be its own atomic, synchronous part.
    await client.command({ query: `USE ${database}` });
    await client.command({ query: 'SET async_insert = 0' });
    // The server quotes 64-bit integers in JSON by default (so simhash and offsets keep every bit);
    // chdb does not. Same output on both engines.
    await client.command({ query: 'SET output_format_json_quote_64bit_integers = 1' });
  } catch (err) {
    await client.close();
    throw err;
  }
  return wrap('chdb', database, dir, client);
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

function wrap(engine: ClickHouseEngine, database: string, location: string, client: ClickHouseClient): ClickHouse {
  let closed = false;
  return {
    engine,
    database,
    location,
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
