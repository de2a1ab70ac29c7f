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

export function pagesViewV2(db: string): string {
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

// Since version 4: the latest outcome per URL (status, time, error of its latest fetch) with its
// latest CONTENT: a 304 leaves the content of the last fetch that had a body current, as a conditional
// refetch should. Content comes from the URL's latest parse; its duplicate finding from that parse's
// fetch. `content`: parse columns a later version adds to the view.
function latestContentView(db: string, content: readonly string[]): string {
  const more = content.map((c) => `, ${c}`).join('');
  const argMaxes = content.map((c) => `,\n      argMax(${c}, ${LATEST}) AS ${c}`).join('');
  return `CREATE VIEW IF NOT EXISTS pages AS
SELECT url, final_url, host, status, depth, fetched_at, bytes, content_hash, simhash,
  tupleElement(dup, 1) AS duplicate_of, tupleElement(dup, 2) AS duplicate_kind, title, error, content_type, text${more}
FROM (
  SELECT url, final_url, host, status, depth, fetched_at, bytes, error, fetch_id, log_id, content_hash, simhash, title, content_type, text${more}
  FROM (
    SELECT url,
      argMax(final_url, ${LATEST}) AS final_url,
      argMax(host, ${LATEST}) AS host,
      argMax(status, ${LATEST}) AS status,
      argMax(depth, ${LATEST}) AS depth,
      argMax(started_at, ${LATEST}) AS fetched_at,
      argMax(bytes, ${LATEST}) AS bytes,
      argMax(error, ${LATEST}) AS error
    FROM (
      SELECT url, final_url, host, status, depth, started_at, bytes, error, tuple(started_at_ms, log_id, fetch_id) AS k
      FROM ${db}.fetches FINAL
      WHERE kind = 'page'
    ) AS attempts
    GROUP BY url
  ) AS latest
  ANY LEFT JOIN (
    SELECT url,
      argMax(fetch_id, ${LATEST}) AS fetch_id,
      argMax(log_id, ${LATEST}) AS log_id,
      argMax(content_hash, ${LATEST}) AS content_hash,
      argMax(simhash, ${LATEST}) AS simhash,
      argMax(title, ${LATEST}) AS title,
      argMax(content_type, ${LATEST}) AS content_type,
      argMax(text, ${LATEST}) AS text${argMaxes}
    FROM (
      SELECT url, fetch_id, log_id, content_hash, simhash, title, content_type, text${more}, tuple(fetched_at_ms, log_id, fetch_id) AS k
      FROM ${db}.parsed_pages FINAL
    ) AS parses
    GROUP BY url
  ) AS content USING (url)
) AS page
ANY LEFT JOIN (
  SELECT fetch_id, log_id, argMin(tuple(duplicate_of, kind), tuple(duplicate_of_fetched_at_ms, duplicate_of)) AS dup
  FROM ${db}.duplicates FINAL
  GROUP BY fetch_id, log_id
) AS dups USING (fetch_id, log_id)`;
}

export function pagesViewV4(db: string): string {
  return latestContentView(db, []);
}

// Version 6: as version 4, with the relevance a focused crawl gave the latest content (-1: not judged).
export function pagesView(db: string): string {
  return latestContentView(db, ['relevance']);
}

// How each URL changes under --recrawl: fetches and changes seen, and the scheduler's interval and
// due time as the URL's latest fetch record carried them.
export function urlFreshnessView(db: string): string {
  return `CREATE VIEW IF NOT EXISTS url_freshness AS
SELECT url, host, fetches, changes, last_fetched_at, if(changes > 0, toDateTime(intDiv(last_changed_ms, 1000)), toDateTime(0)) AS last_changed_at,
  intDiv(interval_ms, 1000) AS interval_s, if(due_ms > 0, toDateTime(intDiv(due_ms, 1000)), toDateTime(0)) AS next_due_at
FROM (
  SELECT url, any(host) AS host, count() AS fetches, sum(changed) AS changes, max(started_at) AS last_fetched_at,
    maxIf(started_at_ms, changed = 1) AS last_changed_ms,
    argMax(recrawl_interval_ms, started_at_ms) AS interval_ms, argMax(next_due_at_ms, started_at_ms) AS due_ms
  FROM ${db}.fetches FINAL
  WHERE kind = 'page' AND (status = 304 OR (status >= 200 AND status < 300))
  GROUP BY url
) AS per_url`;
}
