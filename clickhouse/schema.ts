// The crawl-history schema, one for both engines (chdb 26.x and servers back to 18.16).
//
// History is append-only: every fetch attempt, parse and duplicate finding is its own row, and
// "latest state" is a view. Rows written again for the same fetch (a replay, or a retried insert
// by a zombie writer) share the ORDER BY key of the row they supersede, so ReplacingMergeTree(version)
// collapses them and every view reads `FINAL`: current results show one row per fetch whatever
// merges have or have not run yet.
//
// Shaped by ClickHouse 18.16: no PARTITION BY (an INSERT that spans partitions writes one part per
// partition, so it would no longer land all-or-nothing); plain DateTime plus a *_ms UInt64 column
// (no DateTime64); String instead of LowCardinality/Enum/Map/Nullable; Array columns instead of
// Map/Nested; views built with one `ANY LEFT JOIN … USING` per SELECT level and aliased subqueries
// (26.x requires the aliases, 18.16 accepts them); no CREATE OR REPLACE VIEW, so a migration that
// changes a view drops and recreates it.
import type { ClickHouse } from './connection.js';

export interface Migration {
  version: number;
  name: string;
  /** Each statement must be idempotent: a crash between statements re-runs the whole migration. */
  statements(database: string): string[];
}

/** Columns every sunk row carries: who wrote it, from which record, and which write wins. */
export const SOURCE_COLUMNS = `
  sink_id String,
  src_topic String,
  src_partition UInt32,
  src_offset UInt64,
  version UInt64,
  sunk_at DateTime`;

const FETCHES = `CREATE TABLE IF NOT EXISTS fetches (
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
  header_values Array(String),${SOURCE_COLUMNS}
) ENGINE = ReplacingMergeTree(version) ORDER BY (host, fetch_id)`;

const PARSED_PAGES = `CREATE TABLE IF NOT EXISTS parsed_pages (
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
  link_nofollow Array(UInt8),${SOURCE_COLUMNS}
) ENGINE = ReplacingMergeTree(version) ORDER BY (host, fetch_id)`;

const ROBOTS = `CREATE TABLE IF NOT EXISTS robots (
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
  bytes UInt32,${SOURCE_COLUMNS}
) ENGINE = ReplacingMergeTree(version) ORDER BY (host, fetch_id)`;

const DUPLICATES = `CREATE TABLE IF NOT EXISTS duplicates (
  fetch_id String,
  url String,
  host String,
  duplicate_of String,
  duplicate_of_fetched_at DateTime,
  duplicate_of_fetched_at_ms UInt64,
  kind String,
  distance UInt8,
  detected_at DateTime,
  detected_at_ms UInt64,${SOURCE_COLUMNS}
) ENGINE = ReplacingMergeTree(version) ORDER BY (host, fetch_id, duplicate_of)`;

// Links live inside their parsed_pages row, so a re-parse that finds fewer links replaces the whole
// list instead of leaving the old tail behind.
function linksView(db: string): string {
  return `CREATE VIEW IF NOT EXISTS links AS
SELECT fetch_id, url AS from_url, host AS from_host, to_url, to_host, anchor, nofollow, position, fetched_at
FROM ${db}.parsed_pages FINAL
ARRAY JOIN link_urls AS to_url, link_hosts AS to_host, link_anchors AS anchor, link_nofollow AS nofollow,
  arrayEnumerate(link_urls) AS position`;
}

// The contract view: latest page outcome per URL, that fetch's content, and the earliest original
// it was found to duplicate (earliest by the original's fetch time, then by the original's URL).
function pagesView(db: string): string {
  return `CREATE VIEW IF NOT EXISTS pages AS
SELECT url, final_url, host, status, depth, fetched_at, bytes, content_hash, simhash,
  tupleElement(dup, 1) AS duplicate_of, tupleElement(dup, 2) AS duplicate_kind, title, error
FROM (
  SELECT url, final_url, host, status, depth, fetched_at, bytes, error, fetch_id, content_hash, simhash, title
  FROM (
    SELECT url,
      argMax(fetch_id, started_at_ms) AS fetch_id,
      argMax(final_url, started_at_ms) AS final_url,
      argMax(host, started_at_ms) AS host,
      argMax(status, started_at_ms) AS status,
      argMax(depth, started_at_ms) AS depth,
      argMax(started_at, started_at_ms) AS fetched_at,
      argMax(bytes, started_at_ms) AS bytes,
      argMax(error, started_at_ms) AS error
    FROM ${db}.fetches FINAL
    WHERE kind = 'page'
    GROUP BY url
  ) AS latest
  ANY LEFT JOIN (
    SELECT fetch_id, content_hash, simhash, title FROM ${db}.parsed_pages FINAL
  ) AS content USING (fetch_id)
) AS page
ANY LEFT JOIN (
  SELECT fetch_id, argMin(tuple(duplicate_of, kind), tuple(duplicate_of_fetched_at_ms, duplicate_of)) AS dup
  FROM ${db}.duplicates FINAL
  GROUP BY fetch_id
) AS dups USING (fetch_id)`;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'crawl history: fetches, parsed_pages, robots, duplicates; views links and pages',
    statements: (db) => [FETCHES, PARSED_PAGES, ROBOTS, DUPLICATES, linksView(db), pagesView(db)],
  },
];

/** Tables the sink writes, in the order of one flush (history first, derived facts after). */
export const SINK_TABLES = ['fetches', 'robots', 'parsed_pages', 'duplicates'] as const;
export type SinkTable = (typeof SINK_TABLES)[number];

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version UInt32,
  name String,
  applied_at DateTime
) ENGINE = ReplacingMergeTree ORDER BY version`;

/**
 * Brings the schema up to date; safe to run at every start and from several processes at once
 * (every statement is idempotent and schema_migrations collapses repeated entries).
 * Returns the versions applied now.
 */
export async function migrate(ch: ClickHouse, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  await ch.command(MIGRATIONS_TABLE);
  const done = new Set((await appliedMigrations(ch)).map((m) => m.version));
  const applied: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (done.has(m.version)) continue;
    for (const statement of m.statements(ch.database)) await ch.command(statement);
    await ch.insert('schema_migrations', [{ version: m.version, name: m.name, applied_at: Math.floor(Date.now() / 1000) }]);
    applied.push(m.version);
  }
  return applied;
}

export async function appliedMigrations(ch: ClickHouse): Promise<{ version: number; name: string }[]> {
  const rows = await ch.query<{ version: number | string; name: string }>(
    'SELECT version, any(name) AS name FROM schema_migrations GROUP BY version ORDER BY version',
  );
  return rows.map((r) => ({ version: Number(r.version), name: r.name }));
}

/** The schema version this build expects. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));
