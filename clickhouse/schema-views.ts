// The views over the crawl history, in each version a migration created (18.16 has no CREATE OR
// REPLACE VIEW: a migration that changes a view drops it and creates the new one).
//
// Since schema version 2 a fetch is identified by (fetch_id, log_id): fetch_id is `<host>#<seq>`
// within one crawl log, so two crawls into one database reuse the same fetch ids.

// Links live inside their parsed_pages row, so a re-parse that finds fewer links replaces the whole
// list instead of leaving the old tail behind.
export function linksViewV1(db: string): string {
  return `CREATE VIEW IF NOT EXISTS links AS
SELECT fetch_id, url AS from_url, host AS from_host, to_url, to_host, anchor, nofollow, position, fetched_at
FROM ${db}.parsed_pages FINAL
ARRAY JOIN link_urls AS to_url, link_hosts AS to_host, link_anchors AS anchor, link_nofollow AS nofollow,
  arrayEnumerate(link_urls) AS position`;
}

export function linksView(db: string): string {
  return `CREATE VIEW IF NOT EXISTS links AS
SELECT fetch_id, url AS from_url, host AS from_host, to_url, to_host, anchor, nofollow, position, fetched_at, log_id
FROM ${db}.parsed_pages FINAL
ARRAY JOIN link_urls AS to_url, link_hosts AS to_host, link_anchors AS anchor, link_nofollow AS nofollow,
  arrayEnumerate(link_urls) AS position`;
}

// The contract view: latest page outcome per URL, that fetch's content, and the earliest original
// it was found to duplicate (earliest by the original's fetch time, then by the original's URL).
export function pagesViewV1(db: string): string {
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

// The latest fetch of a URL across every crawl in the database; two fetches started in the same
// millisecond (two crawls) are told apart by log and fetch id, so every column comes from one row.
// The key is computed a level down: in the same SELECT, the aliases fetch_id and log_id would
// stand for the aggregates themselves.
const LATEST = 'k';

export function pagesView(db: string): string {
  return `CREATE VIEW IF NOT EXISTS pages AS
SELECT url, final_url, host, status, depth, fetched_at, bytes, content_hash, simhash,
  tupleElement(dup, 1) AS duplicate_of, tupleElement(dup, 2) AS duplicate_kind, title, error
FROM (
  SELECT url, final_url, host, status, depth, fetched_at, bytes, error, fetch_id, log_id, content_hash, simhash, title
  FROM (
    SELECT url,
      argMax(fetch_id, ${LATEST}) AS fetch_id,
      argMax(log_id, ${LATEST}) AS log_id,
      argMax(final_url, ${LATEST}) AS final_url,
      argMax(host, ${LATEST}) AS host,
      argMax(status, ${LATEST}) AS status,
      argMax(depth, ${LATEST}) AS depth,
      argMax(started_at, ${LATEST}) AS fetched_at,
      argMax(bytes, ${LATEST}) AS bytes,
      argMax(error, ${LATEST}) AS error
    FROM (
      SELECT url, fetch_id, log_id, final_url, host, status, depth, started_at, bytes, error,
        tuple(started_at_ms, log_id, fetch_id) AS k
      FROM ${db}.fetches FINAL
      WHERE kind = 'page'
    ) AS attempts
    GROUP BY url
  ) AS latest
  ANY LEFT JOIN (
    SELECT fetch_id, log_id, content_hash, simhash, title FROM ${db}.parsed_pages FINAL
  ) AS content USING (fetch_id, log_id)
) AS page
ANY LEFT JOIN (
  SELECT fetch_id, log_id, argMin(tuple(duplicate_of, kind), tuple(duplicate_of_fetched_at_ms, duplicate_of)) AS dup
  FROM ${db}.duplicates FINAL
  GROUP BY fetch_id, log_id
) AS dups USING (fetch_id, log_id)`;
}
