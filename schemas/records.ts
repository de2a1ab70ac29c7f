// TypeScript shapes of the Avro records in schemas/*.avsc (kept in step by schemas/schemas.test.ts).

export type DiscoveryKind = 'seed' | 'link' | 'redirect' | 'sitemap' | 'recrawl';
export type FetchKind = 'page' | 'robots' | 'sitemap';

/** What differs per URL within a batch of found URLs (DiscoveredUrl.more). */
export interface DiscoveredEntry {
  url: string;
  anchor: string;
  priority_hint: number;
  changefreq: string;
  lastmod: number;
  sitemap_depth: number;
  /** A focused crawl's score of the link, 0–1; -1 or absent when not scored. */
  score?: number;
}

/**
 * URLs found with one host key: `url` (with its anchor and hints) first, then `more`. The other fields
 * are shared by the batch. A record with `more` empty is one URL, exactly as before batches existed.
 */
export interface DiscoveredUrl {
  url: string;
  source_url: string;
  depth: number;
  anchor: string;
  via: DiscoveryKind;
  redirect_hops: number;
  discovered_at: number;
  /** A sitemap's <priority> (0..1); -1 when none. */
  priority_hint: number;
  changefreq: string;
  /** epoch ms; 0 when none. */
  lastmod: number;
  /** > 0: the URL is a sitemap to fetch, at this nesting depth. */
  sitemap_depth: number;
  /** A focused crawl's score of the link, 0–1; -1 or absent when not scored. */
  score?: number;
  /** Further URLs of the batch; [] for a record of one URL. */
  more: DiscoveredEntry[];
}

/** What differs per URL within a batch of canonical URLs (CanonicalUrl.more). */
export interface CanonicalEntry {
  url: string;
  priority_hint: number;
  changefreq: string;
  lastmod: number;
  sitemap_depth: number;
  /** Discoveries so far (deduped); 1 in normalized. */
  inlinks: number;
  /** A focused crawl's best score of the URL so far, 0–1; -1 or absent when not scored. */
  score?: number;
}

/**
 * Canonical URLs of one host: `url` first, then `more` (topic normalized). In `deduped` a record is
 * the URLs of one normalized batch that are new or
 * gained in-links; the scheduler decides per URL.
 */
export interface CanonicalUrl {
  url: string;
  host: string;
  depth: number;
  source_url: string;
  via: DiscoveryKind;
  redirect_hops: number;
  discovered_at: number;
  /** A sitemap's <priority> (0..1); -1 when none. */
  priority_hint: number;
  changefreq: string;
  /** epoch ms; 0 when none. */
  lastmod: number;
  /** > 0: the URL is a sitemap to fetch, at this nesting depth. */
  sitemap_depth: number;
  /** Discoveries so far; above 1 the record updates a URL already passed on. */
  inlinks: number;
  /** A focused crawl's best score of the URL so far, 0–1; -1 or absent when not scored. A higher score also updates a URL already passed on. */
  score?: number;
  /** Further URLs of the batch; [] for a record of one URL. */
  more: CanonicalEntry[];
}

export interface FetchRequest {
  fetch_id: string;
  url: string;
  host: string;
  kind: FetchKind;
  depth: number;
  attempt: number;
  via: DiscoveryKind;
  source_url: string;
  redirect_hops: number;
  delay_ms: number;
  released_at: number;
  if_none_match: string;
  if_modified_since: string;
  priority: number;
  recrawl_interval_ms: number;
  previous_sha1: string;
  gone_count: number;
  sitemap_depth: number;
  /** The server address the request goes to, set by the resolve stage ('' in `scheduled`). */
  address: string;
  /** When the body whose digest is previous_sha1 was fetched, epoch ms; 0 when unknown. */
  previous_captured_at: number;
  /** The lease this request belongs to ('' in records written before leases). */
  lease_id: string;
  /** The host's backoff generation when the lease was released. */
  lease_epoch: number;
  /** The lease's other URLs, in order (`scheduled` only; [] in `resolved`). */
  more: LeaseEntry[];
}

/** The fields of a fetch request that differ between the URLs of one lease. */
export type LeaseEntry = Pick<FetchRequest, 'fetch_id' | 'url' | 'kind' | 'depth' | 'attempt' | 'via' | 'source_url' | 'redirect_hops'
  | 'if_none_match' | 'if_modified_since' | 'priority' | 'recrawl_interval_ms' | 'previous_sha1' | 'gone_count' | 'sitemap_depth' | 'previous_captured_at'>;

/** A leased URL given back without a request (topic `unfetched`): the schedule queues it again. */
export interface UnfetchedUrl {
  fetch_id: string;
  lease_id: string;
  lease_epoch: number;
  url: string;
  host: string;
  /** 'lease-cut' or 'restart'. */
  reason: string;
  detail: string;
  returned_at: number;
}

/** One header line as sent or received; repeated names are separate lines. */
export interface HeaderLine {
  name: string;
  value: string;
}

export interface FetchResult {
  fetch_id: string;
  url: string;
  host: string;
  kind: FetchKind;
  depth: number;
  attempt: number;
  via: DiscoveryKind;
  source_url: string;
  redirect_hops: number;
  status: number;
  error: string;
  final_url: string;
  redirect_chain: string[];
  headers: Record<string, string>;
  started_at: number;
  elapsed_ms: number;
  ttfb_ms: number;
  bytes: number;
  wire_bytes: number;
  content_type: string;
  charset: string;
  truncated: boolean;
  retry_after_ms: number;
  conditional: boolean;
  remote_address: string;
  body_encoding: 'identity' | 'gzip' | 'lz4';
  body: Buffer;
  body_sha1: string;
  etag: string;
  last_modified: string;
  changed: boolean;
  priority: number;
  recrawl_interval_ms: number;
  next_due_at: number;
  sitemap_depth: number;
  sitemap_urls: number;
  rendered_encoding: string;
  /** The DOM after a headless render (--render), compressed like `body`; empty when not rendered. */
  rendered_body: Buffer;
  render_error: string;
  subrequests: readonly { url: string; resource_type: string; outcome: string }[];
  /** '1.1'; '' without a response. */
  http_version: string;
  /** The reason phrase as received. */
  status_text: string;
  request_method: string;
  /** As sent, in order, Host first. */
  request_headers: HeaderLine[];
  /** As received: order, case and repeats kept. */
  response_headers: HeaderLine[];
  /** WARC-Truncated value when the kept body is not the whole response body; '' when whole. */
  truncation: string;
  /** Digest and time of the URL's earlier capture, for a 304 to refer to. */
  previous_sha1: string;
  previous_captured_at: number;
  /** With --tls-verify record: why the certificate would have been refused; '' otherwise. */
  tls_problem: string;
  /** The lease the request belonged to, and the host's backoff generation it was released in. */
  lease_id: string;
  lease_epoch: number;
  /** The server address the request was sent to, as resolved ('' when none was). */
  address: string;
}

export interface Link {
  url: string;
  anchor: string;
  nofollow: boolean;
}

export interface ParsedPage {
  fetch_id: string;
  url: string;
  host: string;
  depth: number;
  status: number;
  final_url: string;
  fetched_at: number;
  content_type: string;
  title: string;
  canonical: string;
  lang: string;
  meta_noindex: boolean;
  meta_nofollow: boolean;
  text_length: number;
  content_hash: string;
  /** 8 bytes, big-endian. */
  simhash: Buffer;
  links: Link[];
  parser_version: string;
  error: string;
  /** The visible (or extracted) text, at most 100 KB of UTF-8. */
  text: string;
  /** A focused crawl's judgement of the page, 0–1; -1 or absent when not judged. */
  relevance?: number;
  /** The relevance at or above which the crawl counted the page on the topic; -1 or absent when not judged. */
  focus_threshold?: number;
}

export interface SimhashBand {
  band: number;
  url: string;
  host: string;
  fetch_id: string;
  simhash: Buffer;
  content_hash: string;
  fetched_at: number;
}

export interface Duplicate {
  url: string;
  host: string;
  fetch_id: string;
  duplicate_of: string;
  duplicate_of_fetched_at: number;
  kind: 'exact' | 'near';
  distance: number;
  detected_at: number;
}

/** The sitemap hints of a URL found any other way. */
export const NO_HINTS = { priority_hint: -1, changefreq: '', lastmod: 0, sitemap_depth: 0 } as const;

/** The fields a fetch request has beyond the URL and its slot, for a plain first fetch. */
export const PLAIN_REQUEST = {
  priority: 0, recrawl_interval_ms: 0, previous_sha1: '', gone_count: 0, sitemap_depth: 0, address: '', previous_captured_at: 0, lease_id: '', lease_epoch: 0,
  more: [] as LeaseEntry[],
} as const;

/** The fields a fetch outcome has beyond the response itself, for a plain first fetch without validators. */
export const PLAIN_RESULT = {
  body_sha1: '', etag: '', last_modified: '', changed: true, priority: 0, recrawl_interval_ms: 0, next_due_at: 0, sitemap_depth: 0,
  sitemap_urls: 0, rendered_encoding: 'identity', rendered_body: Buffer.alloc(0), render_error: '', subrequests: [],
  http_version: '1.1', status_text: '', request_method: 'GET', request_headers: [] as HeaderLine[], response_headers: [] as HeaderLine[], truncation: '',
  previous_sha1: '', previous_captured_at: 0, tls_problem: '', lease_id: '', lease_epoch: 0, address: '',
} as const;

/**
 * Why a URL was not fetched. The names match the crawl's counters (dropped.<reason>,
 * rejected.<reason>); a processor may use its own, so any string is accepted.
 */
export type SkipReason =
  | 'robots-disallowed' | 'robots-unreachable' | 'network-policy' | 'crawl-delay-too-long' | 'out-of-scope'
  | 'host-budget' | 'max-depth' | 'too-many-redirects' | (string & {});

export interface SkippedUrl {
  url: string;
  host: string;
  reason: SkipReason;
  detail: string;
  depth: number;
  source_url: string;
  decided_at: number;
  /** URLs the row stands for (normalize: every URL of one page dropped for one reason, `url` the first); absent means 1. */
  url_count?: number;
}
