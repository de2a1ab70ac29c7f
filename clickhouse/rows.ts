// Turns the records of `fetched`, `parsed`, `duplicates` and `skipped` into ClickHouse rows. Pure and
// synchronous: the sink converts each record when the runtime hands it over, in offset order.
// Every value is clamped to its column type, because one row the server rejects would stall the
// whole partition (the writer retries a failed insert forever rather than drop it).
import { plainHost } from '../url/url-host.js';
import { decompressBody } from '../fetching/body-codec.js';
import type { Duplicate, FetchResult, ParsedPage, SkippedUrl } from '../schemas/records.js';
import type { RobotsAnalyzer } from './robots-digest.js';
import type { SinkTable } from './schema.js';

export interface TableRow {
  /** One of the crawl's tables, or a user module's own. */
  table: SinkTable | (string & {});
  row: Record<string, unknown>;
  /** Rough JSON size, for bounding a batch by bytes. */
  bytes: number;
}

export type RobotsOutcome = 'rules' | 'allow-all' | 'unreachable' | 'redirect' | 'incomplete';

const U8 = 0xff;
const U16 = 0xffff;
const U32 = 0xffff_ffff;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** robots.txt parsers must read at least 500 KiB (RFC 9309 §2.5); more is never needed. */
const MAX_ROBOTS_BODY = 512 * 1024;

/** A record the sink reads, by the topic it came from. */
export type SinkInput =
  | { topic: 'fetched'; value: FetchResult }
  | { topic: 'parsed'; value: ParsedPage }
  | { topic: 'duplicates'; value: Duplicate }
  | { topic: 'skipped'; value: SkippedUrl };

export function rowsForRecord(record: SinkInput, robots: RobotsAnalyzer, productToken: string): TableRow[] {
  switch (record.topic) {
    case 'fetched':
      // No request left the crawler: `fetches` keeps meaning requests sent; why is in `skipped`.
      if (record.value.error.startsWith('network-refused')) return [sized('skipped', skippedRow(refusedRow(record.value)))];
      return fetchRows(record.value, robots, productToken);
    case 'parsed':
      return [sized('parsed_pages', parsedRow(record.value))];
    case 'duplicates':
      return [sized('duplicates', duplicateRow(record.value))];
    case 'skipped':
      return [sized('skipped', skippedRow(record.value))];
  }
}

export function fetchRows(f: FetchResult, robots: RobotsAnalyzer, productToken: string): TableRow[] {
  const headers = Object.entries(f.headers ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const status = uint(f.status, U16);
  const row = {
    fetch_id: str(f.fetch_id),
    url: str(f.url),
    final_url: str(f.final_url),
    host: str(f.host),
    kind: str(f.kind),
    depth: uint(f.depth, U16),
    attempt: uint(f.attempt, U16),
    via: str(f.via),
    source_url: str(f.source_url),
    redirect_hops: uint(f.redirect_hops, U16),
    status,
    error: str(f.error),
    error_kind: errorKind(f.error),
    redirect_location: status >= 300 && status < 400 ? str(header(f.headers, 'location') ?? f.final_url) : '',
    redirect_chain: (f.redirect_chain ?? []).map(str),
    started_at: seconds(f.started_at),
    started_at_ms: uint(f.started_at, MAX_SAFE),
    elapsed_ms: uint(f.elapsed_ms, U32),
    ttfb_ms: uint(f.ttfb_ms, U32),
    bytes: uint(f.bytes, U32),
    wire_bytes: uint(f.wire_bytes, MAX_SAFE),
    content_type: str(f.content_type),
    charset: str(f.charset),
    truncated: f.truncated ? 1 : 0,
    retry_after_ms: uint(f.retry_after_ms, MAX_SAFE),
    conditional: f.conditional ? 1 : 0,
    remote_address: str(f.remote_address),
    body_encoding: str(f.body_encoding),
    header_names: headers.map(([k]) => str(k)),
    header_values: headers.map(([, v]) => str(v)),
    changed: f.changed ? 1 : 0,
    etag: str(f.etag),
    last_modified: str(f.last_modified),
    priority: Number.isFinite(f.priority) ? f.priority : 0,
    recrawl_interval_ms: uint(f.recrawl_interval_ms, MAX_SAFE),
    next_due_at_ms: uint(f.next_due_at, MAX_SAFE),
    render_error: str(f.render_error),
    subrequest_urls: (f.subrequests ?? []).map((r) => str(r.url)),
    subrequest_outcomes: (f.subrequests ?? []).map((r) => str(r.outcome)),
    tls_problem: str(f.tls_problem),
  };
  const rows = [sized('fetches', row)];
  if (f.kind === 'robots') rows.push(sized('robots', robotsRow(f, robots, productToken)));
  return rows;
}

/**
 * `cut`: a 2xx body the server cut short (an error, not our own size cap): its missing tail might
 * disallow more, so the crawler reads no rules from it (politeness/robots-gate.ts) and neither does
 * the row.
 */
export function robotsOutcome(status: number, cut = false): RobotsOutcome {
  if (status >= 200 && status < 300) return cut ? 'incomplete' : 'rules';
  if (status === 304) return 'rules'; // unchanged since the rules we hold
  if (status >= 300 && status < 400) return 'redirect';
  if (status >= 400 && status < 500) return 'allow-all';
  return 'unreachable'; // 5xx, or 0: no response at all
}

function robotsRow(f: FetchResult, analyze: RobotsAnalyzer, productToken: string): Record<string, unknown> {
  const status = uint(f.status, U16);
  const outcome = robotsOutcome(status, str(f.error) !== '' && !f.truncated);
  let digest = '';
  let crawlDelayMs = 0;
  if (outcome === 'rules' && status !== 304) {
    const summary = analyze(robotsBody(f), str(f.final_url || f.url), productToken);
    digest = summary.digest;
    crawlDelayMs = uint(summary.crawlDelayMs, U32);
  }
  return {
    fetch_id: str(f.fetch_id),
    host: str(f.host),
    url: str(f.url),
    final_url: str(f.final_url),
    fetched_at: seconds(f.started_at),
    fetched_at_ms: uint(f.started_at, MAX_SAFE),
    status,
    error: str(f.error),
    outcome,
    crawl_delay_ms: crawlDelayMs,
    rules_digest: str(digest),
    bytes: uint(f.bytes, U32),
  };
}

function robotsBody(f: FetchResult): string {
  const body = f.body ?? Buffer.alloc(0);
  let plain: Buffer;
  try {
    plain = decompressBody(f.body_encoding, body, MAX_ROBOTS_BODY);
  } catch {
    // Larger than any parser must read, or corrupt: digest what can be decoded.
    plain = f.body_encoding === 'identity' ? body : Buffer.alloc(0);
  }
  return plain.subarray(0, MAX_ROBOTS_BODY).toString('utf8');
}

/** `p.text` may be its UTF-8 bytes (a Buffer) where the sink read it so (its `asBytes`). */
export function parsedRow(p: ParsedPage): Record<string, unknown> {
  const links = p.links ?? [];
  return {
    fetch_id: str(p.fetch_id),
    url: str(p.url),
    final_url: str(p.final_url),
    host: str(p.host),
    depth: uint(p.depth, U16),
    status: uint(p.status, U16),
    fetched_at: seconds(p.fetched_at),
    fetched_at_ms: uint(p.fetched_at, MAX_SAFE),
    content_type: str(p.content_type),
    title: str(p.title),
    canonical: str(p.canonical),
    lang: str(p.lang),
    meta_noindex: p.meta_noindex ? 1 : 0,
    meta_nofollow: p.meta_nofollow ? 1 : 0,
    text_length: uint(p.text_length, U32),
    content_hash: str(p.content_hash),
    simhash: simhashString(p.simhash),
    parser_version: str(p.parser_version),
    error: str(p.error),
    link_count: uint(links.length, U32),
    link_urls: links.map((l) => str(l.url)),
    link_hosts: links.map((l) => hostOf(l.url)),
    link_anchors: links.map((l) => str(l.anchor)),
    link_nofollow: links.map((l) => (l.nofollow ? 1 : 0)),
    text: textOf(p.text),
    relevance: score(p.relevance),
    focus_threshold: score(p.focus_threshold),
  };
}

/** A focused crawl's 0–1 figure, or -1 when the record has none (records written before focus existed). */
function score(value: unknown): number {
  return typeof value === 'number' && value >= 0 && value <= 1 ? value : -1;
}

export function duplicateRow(d: Duplicate): Record<string, unknown> {
  return {
    fetch_id: str(d.fetch_id),
    url: str(d.url),
    host: str(d.host),
    duplicate_of: str(d.duplicate_of),
    duplicate_of_fetched_at: seconds(d.duplicate_of_fetched_at),
    duplicate_of_fetched_at_ms: uint(d.duplicate_of_fetched_at, MAX_SAFE),
    kind: str(d.kind),
    distance: uint(d.distance, U8),
    detected_at: seconds(d.detected_at),
    detected_at_ms: uint(d.detected_at, MAX_SAFE),
  };
}

export function skippedRow(s: SkippedUrl): Record<string, unknown> {
  const url = str(s.url);
  return {
    url,
    host: str(s.host) || hostOf(url),
    reason: str(str(s.reason).slice(0, 64)) || 'unknown',
    detail: str(s.detail),
    depth: uint(s.depth, U16),
    source_url: str(s.source_url),
    decided_at: seconds(s.decided_at),
    decided_at_ms: uint(s.decided_at, MAX_SAFE),
    url_count: uint(s.url_count ?? 1, U32),
  };
}

/** The 64-bit simhash as a decimal string: JSON numbers would lose the low bits. */
export function simhashString(simhash: Buffer | undefined): string {
  if (!simhash || simhash.length !== 8) return '0';
  return simhash.readBigUInt64BE(0).toString();
}

/** '<kind>: <what happened>' → '<kind>'. */
export function errorKind(error: string | undefined): string {
  if (!error) return '';
  const colon = error.indexOf(':');
  return str((colon > 0 ? error.slice(0, colon) : error).trim().slice(0, 64));
}

/** The host as the crawler keys it: lowercased, punycode, port kept when not the default. */
export function hostOf(url: string): string {
  const plain = plainHost(url);
  if (plain !== undefined) return plain;
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

function header(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  if (name in headers) return headers[name];
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

function sized(table: SinkTable, row: Record<string, unknown>): TableRow {
  return { table, row, bytes: estimateBytes(row) };
}

function estimateBytes(row: Record<string, unknown>): number {
  let n = 2;
  for (const k in row) {
    const v = row[k];
    n += k.length + 4;
    if (typeof v === 'string') n += v.length + 2;
    else if (v instanceof Uint8Array) n += v.length + 2;
    else if (Array.isArray(v)) for (const x of v) n += typeof x === 'string' ? x.length + 3 : 2;
    else n += 12;
  }
  return n;
}

function uint(value: unknown, max: number): number {
  const n = typeof value === 'bigint' ? Number(value) : Number(value);
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.min(Math.trunc(n), max);
}

function seconds(ms: unknown): number {
  return Math.min(Math.floor(uint(ms, MAX_SAFE) / 1000), U32);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A string ClickHouse parses back exactly: lone UTF-16 surrogates have no UTF-8 form. */
function str(value: unknown): string {
  const s = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  return /[\uD800-\uDFFF]/.test(s) ? s.replace(LONE_SURROGATE, '\uFFFD') : s;
}

/** A fetch the network policy refused before any request, as a skipped URL. */
function refusedRow(f: FetchResult): SkippedUrl {
  return {
    url: f.url, host: f.host, reason: 'network-policy', detail: f.error.slice(f.error.indexOf(':') + 1).trim(), depth: f.depth,
    source_url: f.source_url, decided_at: f.started_at,
  };
}

/** Page text is searchable, bounded: 100 KB of UTF-8 at most, cut at a character boundary. */
const MAX_TEXT_BYTES = 100 * 1024;

/** The page's text, bounded; as bytes when the sink read it so (its `asBytes`), which it copies out without decoding. */
function textOf(text: unknown): string | Buffer {
  return Buffer.isBuffer(text) ? utf8BytesPrefix(text, MAX_TEXT_BYTES) : utf8Prefix(str(text), MAX_TEXT_BYTES);
}

function utf8Prefix(s: string, maxBytes: number): string {
  if (s.length * 3 <= maxBytes || Buffer.byteLength(s) <= maxBytes) return s;
  return utf8BytesPrefix(Buffer.from(s, 'utf8'), maxBytes).toString('utf8');
}

/** At most `maxBytes`, cut before the character the limit falls in (back over continuation bytes, 10xxxxxx, to its first). */
function utf8BytesPrefix(b: Buffer, maxBytes: number): Buffer {
  if (b.length <= maxBytes) return b;
  let cut = maxBytes;
  while (cut > 0 && (b[cut] & 0xc0) === 0x80) cut--;
  return b.subarray(0, cut);
}
