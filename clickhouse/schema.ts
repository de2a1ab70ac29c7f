// The crawl-history schema, one for both engines (chdb 26.x and servers back to 18.16).
//
// History is append-only: every fetch attempt, parse and duplicate finding is its own row, and
// "latest state" is a view. Rows written again for the same fetch (a replay, or a retried insert
// by a zombie writer) share the ORDER BY key of the row they supersede, so ReplacingMergeTree(version)
// collapses them and every view reads `FINAL`: current results show one row per fetch whatever
// merges have or have not run yet.
//
// The key holds log_id, the identity of the crawl log the row came from (the part of the writer's
// sink_id after the first ':'). fetch_id is `<host>#<seq>` within one log, so without log_id the
// rows of a second crawl into the same database would replace the first crawl's; a replay of a log
// keeps its log_id and so still replaces what it rewrites.
//
// Shaped by ClickHouse 18.16: no PARTITION BY (an INSERT that spans partitions writes one part per
// partition, so it would no longer land all-or-nothing); plain DateTime plus a *_ms UInt64 column
// (no DateTime64); String instead of LowCardinality/Enum/Map/Nullable; Array columns instead of
// Map/Nested; views built with one `ANY LEFT JOIN … USING` per SELECT level and aliased subqueries
// (26.x requires the aliases, 18.16 accepts them); no CREATE OR REPLACE VIEW, so a migration that
// changes a view drops and recreates it; no ADD COLUMN IF NOT EXISTS, so a migration that adds one
// looks first; a column added to the sorting key must be added in the same ALTER and without a
// DEFAULT expression, so log_id of rows written before version 2 is ''.
import type { Logger } from '../engine/api.js';
import type { ClickHouse } from './connection.js';
import { sqlString } from './connection.js';
import { linksView, linksViewV1, pagesView, pagesViewV1, pagesViewV2, pagesViewV4, urlFreshnessView } from './schema-views.js';
import { focusHarvestView } from './focus-views.js';

export interface Migration {
  version: number;
  name: string;
  /**
   * Each statement must be idempotent (a crash between statements re-runs the whole migration)
   * and must hold against the current definition of every object, which `migrate` may have just
   * created in place of a dropped one.
   */
  statements?(database: string): string[];
  /** Steps that must look before they act; idempotent in the same way. Run after `statements`. */
  apply?(ch: ClickHouse): Promise<void>;
}

/** Columns every sunk row carries: who wrote it, from which record, and which write wins. */
export const SOURCE_COLUMNS = `
  sink_id String,
  src_topic String,
  src_partition UInt32,
  src_offset UInt64,
  version UInt64,
  sunk_at DateTime`;

/** Added in version 4: how the URL changes and when it is due again (--recrawl). */
const FRESHNESS_COLUMNS = `
  changed UInt8,
  etag String,
  last_modified String,
  priority Float64,
  recrawl_interval_ms UInt64,
  next_due_at_ms UInt64`;

/** Added in version 4: what a rendering browser did (--render). */
const RENDER_COLUMNS = `
  render_error String,
  subrequest_urls Array(String),
  subrequest_outcomes Array(String)`;

/** Added in version 5: why a certificate would have been refused (--tls-verify record). */
const TLS_COLUMNS = `
  tls_problem String`;

/** Added in version 5: how many URLs a skipped row stands for (normalize writes one per page and reason). */
const SKIPPED_COUNT_COLUMNS = `
  url_count UInt32 DEFAULT 1`;

/** Added in version 6: a focused crawl's judgement of the page (-1: not judged). */
const FOCUS_COLUMNS = `
  relevance Float32 DEFAULT -1,
  focus_threshold Float32 DEFAULT -1`;

const FETCHES_COLUMNS = `
  fetch_id String,
  url String,
  final_url String,
  host String,
  kind String,
  depth UInt16,
  attempt UInt16,
  via String,
  source_url String,
  redirect_hops UInt16,
  status UInt16,
  error String,
  error_kind String,
  redirect_location String,
  redirect_chain Array(String),
  started_at DateTime,
  started_at_ms UInt64,
  elapsed_ms UInt32,
  ttfb_ms UInt32,
  bytes UInt32,
  wire_bytes UInt64,
  content_type String,
  charset String,
  truncated UInt8,
  retry_after_ms UInt64,
  conditional UInt8,
  remote_address String,
  body_encoding String,
  header_names Array(String),
  header_values Array(String),${FRESHNESS_COLUMNS},${RENDER_COLUMNS},${TLS_COLUMNS},`;

const PARSED_PAGES_COLUMNS = `
  fetch_id String,
  url String,
  final_url String,
  host String,
  depth UInt16,
  status UInt16,
  fetched_at DateTime,
  fetched_at_ms UInt64,
  content_type String,
  title String,
  canonical String,
  lang String,
  meta_noindex UInt8,
  meta_nofollow UInt8,
  text_length UInt32,
  content_hash String,
  simhash UInt64,
  parser_version String,
  error String,
  link_count UInt32,
  link_urls Array(String),
  link_hosts Array(String),
  link_anchors Array(String),
  link_nofollow Array(UInt8),
  text String,${FOCUS_COLUMNS},`;

const ROBOTS_COLUMNS = `
  fetch_id String,
  host String,
  url String,
  final_url String,
  fetched_at DateTime,
  fetched_at_ms UInt64,
  status UInt16,
  error String,
  outcome String,
  crawl_delay_ms UInt32,
  rules_digest String,
  bytes UInt32,`;

const DUPLICATES_COLUMNS = `
  fetch_id String,
  url String,
  host String,
  duplicate_of String,
  duplicate_of_fetched_at DateTime,
  duplicate_of_fetched_at_ms UInt64,
  kind String,
  distance UInt8,
  detected_at DateTime,
  detected_at_ms UInt64,`;


const SKIPPED_COLUMNS = `
  url String,
  host String,
  reason String,
  detail String,
  depth UInt16,
  source_url String,
  decided_at DateTime,
  decided_at_ms UInt64,${SKIPPED_COUNT_COLUMNS},`;

interface TableDef {
  name: string;
  columns: string;
  /** The sorting key before log_id joined it. */
  key: string[];
  /** The migration that created the table. */
  since: number;
}

/** The crawl's tables, each as its creating migration defined it. */
const TABLES: readonly TableDef[] = [
  { name: 'fetches', columns: FETCHES_COLUMNS, key: ['host', 'fetch_id'], since: 1 },
  { name: 'parsed_pages', columns: PARSED_PAGES_COLUMNS, key: ['host', 'fetch_id'], since: 1 },
  { name: 'robots', columns: ROBOTS_COLUMNS, key: ['host', 'fetch_id'], since: 1 },
  { name: 'duplicates', columns: DUPLICATES_COLUMNS, key: ['host', 'fetch_id', 'duplicate_of'], since: 1 },
  { name: 'skipped', columns: SKIPPED_COLUMNS, key: ['host', 'url', 'reason'], since: 3 },
];

const LOG_KEYED_SINCE = 2;

/** log_id comes last, after the source columns, where ALTER … ADD COLUMN put it on older tables. */
function createTable(t: TableDef, withLogId: boolean): string {
  const key = withLogId ? [...t.key, 'log_id'] : t.key;
  return `CREATE TABLE IF NOT EXISTS ${t.name} (${t.columns}${SOURCE_COLUMNS}${withLogId ? ',\n  log_id String' : ''}
) ENGINE = ReplacingMergeTree(version) ORDER BY (${key.join(', ')})`;
}

const table = (name: string) => TABLES.find((t) => t.name === name)!;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'crawl history: fetches, parsed_pages, robots, duplicates; views links and pages',
    statements: (db) => [...TABLES.filter((t) => t.since === 1).map((t) => createTable(t, false)), linksViewV1(db), pagesViewV1(db)],
  },
  {
    version: 2,
    name: 'log_id in the key of every crawl table: two crawls into one database keep each other\'s rows',
    async apply(ch) {
      for (const t of TABLES.filter((t) => t.since < LOG_KEYED_SINCE)) await addLogIdToKey(ch, t);
      for (const [name, create] of [['links', linksView], ['pages', pagesViewV2]] as const) {
        await ch.command(`DROP TABLE IF EXISTS ${name}`); // 18.16 has no DROP VIEW
        await ch.command(create(ch.database));
      }
    },
  },
  {
    version: 3,
    name: 'skipped: URLs the crawler decided not to fetch, and why',
    statements: () => [createTable(table('skipped'), true)],
  },
  {
    version: 4,
    name: 'freshness and rendering: fetches gain changed, validators, interval and due time, what a browser fetched; pages gain content_type and text (latest content, also after a 304); view url_freshness',
    async apply(ch) {
      await addColumns(ch, 'fetches', `${FRESHNESS_COLUMNS},${RENDER_COLUMNS}`);
      await addColumns(ch, 'parsed_pages', 'text String');
      for (const [name, create] of [['pages', pagesViewV4], ['url_freshness', urlFreshnessView]] as const) {
        await ch.command(`DROP TABLE IF EXISTS ${name}`); // 18.16 has no DROP VIEW
        await ch.command(create(ch.database));
      }
    },
  },
  {
    version: 5,
    name: 'the real web: fetches gain tls_problem (--tls-verify record); skipped gains url_count (normalize writes one row per page and reason)',
    async apply(ch) {
      await addColumns(ch, 'fetches', TLS_COLUMNS);
      await addColumns(ch, 'skipped', SKIPPED_COUNT_COLUMNS);
    },
  },
  {
    version: 6,
    name: 'focused crawls: parsed_pages gain relevance and focus_threshold, pages gains relevance; view focus_harvest',
    async apply(ch) {
      await addColumns(ch, 'parsed_pages', FOCUS_COLUMNS);
      for (const [name, create] of [['pages', pagesView], ['focus_harvest', focusHarvestView]] as const) {
        await ch.command(`DROP TABLE IF EXISTS ${name}`); // 18.16 has no DROP VIEW
        await ch.command(create(ch.database));
      }
    },
  },
];

/** Adds the columns a table lacks (18.16 has no ADD COLUMN IF NOT EXISTS). */
async function addColumns(ch: ClickHouse, tableName: string, columns: string): Promise<void> {
  for (const line of columns.split(',').map((c) => c.trim()).filter(Boolean)) {
    const name = line.split(/\s+/)[0];
    if (await hasColumn(ch, tableName, name)) continue;
    try {
      await ch.command(`ALTER TABLE ${tableName} ADD COLUMN ${line}`);
    } catch (err) {
      if (!(await hasColumn(ch, tableName, name))) throw err; // another process added it first
    }
  }
}

/** The rows of existing parts keep log_id '': they cannot be told apart after the fact. */
async function addLogIdToKey(ch: ClickHouse, t: TableDef): Promise<void> {
  if (await hasColumn(ch, t.name, 'log_id')) return;
  try {
    await ch.command(`ALTER TABLE ${t.name} ADD COLUMN log_id String, MODIFY ORDER BY (${[...t.key, 'log_id'].join(', ')})`);
  } catch (err) {
    // Another process migrating at the same time may have added it first.
    if (!(await hasColumn(ch, t.name, 'log_id'))) throw err;
  }
}

async function hasColumn(ch: ClickHouse, tableName: string, column: string): Promise<boolean> {
  const rows = await ch.query(
    `SELECT name FROM system.columns WHERE database = ${sqlString(ch.database)} AND table = ${sqlString(tableName)} AND name = ${sqlString(column)}`,
  );
  return rows.length > 0;
}

/** Tables the sink writes, in the order of one flush (history first, derived facts after). */
export const SINK_TABLES = ['fetches', 'robots', 'parsed_pages', 'duplicates', 'skipped'] as const;
export type SinkTable = (typeof SINK_TABLES)[number];

/** Tables whose rows carry the log identity in their key (the writer fills log_id). */
export const LOG_KEYED_TABLES: ReadonlySet<string> = new Set(TABLES.map((t) => t.name));

/** The log identity in a sink id `<sink name>:<log identity>`; '' for a sink id without one. */
export function logIdOfSink(sinkId: string): string {
  const colon = sinkId.indexOf(':');
  return colon < 0 ? '' : sinkId.slice(colon + 1);
}

/** What the current schema holds, each with the statement that creates it as it is now. */
const CURRENT_TABLES = TABLES.map((t) => ({ name: t.name, since: t.since, create: () => createTable(t, true) }));
const CURRENT_VIEWS = [
  { name: 'links', since: 1, create: linksView },
  { name: 'pages', since: 1, create: pagesView },
  { name: 'url_freshness', since: 4, create: urlFreshnessView },
  { name: 'focus_harvest', since: 6, create: focusHarvestView },
];

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version UInt32,
  name String,
  applied_at DateTime
) ENGINE = ReplacingMergeTree ORDER BY version`;

export interface MigrateResult {
  /** Versions applied by this run. */
  applied: number[];
  /**
   * Tables and views that an applied migration had created and that were missing, created again
   * from the current schema. A restored table is empty: the rows it held are gone.
   */
  restored: string[];
  /** The schema version the database is at now. */
  version: number;
}

/**
 * Brings the schema up to date and puts back any table or view of it that is missing; safe to run
 * at every start and from several processes at once (every statement is idempotent and
 * schema_migrations collapses repeated entries). Says what it restored through `log`.
 */
export async function migrate(ch: ClickHouse, opts: { logger?: Logger; migrations?: readonly Migration[] } = {}): Promise<MigrateResult> {
  const migrations = [...(opts.migrations ?? MIGRATIONS)].sort((a, b) => a.version - b.version);
  await ch.command(MIGRATIONS_TABLE);
  const done = new Set((await appliedMigrations(ch)).map((m) => m.version));
  const reached = Math.max(0, ...done);
  const before = await objectNames(ch);
  const restored: string[] = [];
  // Tables first, as they are now (a migration still to run checks before it alters), so that the
  // migrations and views below find them.
  for (const t of CURRENT_TABLES) {
    if (t.since > reached || before.has(t.name)) continue;
    await ch.command(t.create());
    restored.push(t.name);
    opts.logger?.warn(`ClickHouse table ${ch.database}.${t.name} was missing and has been created again, empty: the rows it held are lost`);
  }
  const applied: number[] = [];
  for (const m of migrations) {
    if (done.has(m.version)) continue;
    for (const statement of m.statements?.(ch.database) ?? []) await ch.command(statement);
    await m.apply?.(ch);
    await ch.insert('schema_migrations', [{ version: m.version, name: m.name, applied_at: Math.floor(Date.now() / 1000) }]);
    applied.push(m.version);
  }
  const after = await objectNames(ch);
  for (const v of CURRENT_VIEWS) {
    if (after.has(v.name)) continue;
    await ch.command(v.create(ch.database));
    if (v.since <= reached) {
      restored.push(v.name);
      opts.logger?.info(`ClickHouse view ${ch.database}.${v.name} was missing and has been created again`);
    }
  }
  return { applied, restored, version: Math.max(reached, ...applied) };
}

export async function appliedMigrations(ch: ClickHouse): Promise<{ version: number; name: string }[]> {
  const rows = await ch.query<{ version: number | string; name: string }>(
    'SELECT version, any(name) AS name FROM schema_migrations GROUP BY version ORDER BY version',
  );
  return rows.map((r) => ({ version: Number(r.version), name: r.name }));
}

export interface SchemaState {
  /** Highest applied migration; 0 when none (or no schema_migrations table). */
  version: number;
  /** Tables and views of the schema at that version that are not there. */
  missing: string[];
}

/** Read-only look at the schema, for commands that must not change it. */
export async function schemaState(ch: ClickHouse): Promise<SchemaState> {
  const names = await objectNames(ch);
  const version = names.has('schema_migrations') ? Math.max(0, ...(await appliedMigrations(ch)).map((m) => m.version)) : 0;
  const missing = [...CURRENT_TABLES, ...CURRENT_VIEWS].filter((o) => o.since <= version && !names.has(o.name)).map((o) => o.name);
  return { version, missing };
}

async function objectNames(ch: ClickHouse): Promise<Set<string>> {
  const rows = await ch.query<{ name: string }>(`SELECT name FROM system.tables WHERE database = ${sqlString(ch.database)}`);
  return new Set(rows.map((r) => r.name));
}

/** The schema version this build expects. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));
