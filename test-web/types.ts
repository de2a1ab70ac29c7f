// Public types of the synthetic web (re-exported by synthetic-web.ts).

export interface WebRequest {
  /** 'address:port' the connection was made to (the host's identity for politeness, whatever Host header came). */
  host: string;
  /** Path + query exactly as received. */
  path: string;
  method: string;
  userAgent: string;
  /** ms (performance.timeOrigin + performance.now()) when the request headers arrived. */
  startedAt: number;
  /** When the response finished or the socket closed, whichever first; Infinity while still in flight. */
  endedAt: number;
  /** Status sent; 0 if the connection was dropped before a status was sent. */
  status: number;
  /** Retry-After the response carried (delta-seconds form), in ms. */
  retryAfterMs?: number;
  /** The request carried If-None-Match or If-Modified-Since. */
  conditional?: boolean;
  /** The Host header: which of the names sharing an address was asked for. */
  hostHeader?: string;
}

export interface HostInfo {
  name: string;
  address: string;
  origin: string;
  crawlDelayMs?: number;
}

/**
 * The crawl options `ExpectedOutcomes` assumes. Depth: seeds are depth 0, a link or a redirect hop adds 1
 * (counting hops is the pessimistic reading, so mustFetch holds under either convention). The page budget
 * counts every fetch on a host except robots.txt; a host whose reachable fetches exceed it keeps only its
 * seed in mustFetch. Redirects are assumed followed for up to MAX_REDIRECT_HOPS hops.
 */
export const DEFAULT_CRAWL_OPTIONS = { maxDepth: 8, maxPagesPerHost: 50 } as const;
/** Redirect hops a correct crawler follows for a page (as RFC 9309 asks for robots.txt). */
export const MAX_REDIRECT_HOPS = 5;
export type CrawlOptions = { maxDepth: number; maxPagesPerHost: number };

/**
 * Ground truth for a crawl of the scenario with DEFAULT_CRAWL_OPTIONS. URLs are canonical:
 * `http://address:port/path?sorted-query`, fragment dropped, `utm_*`, `sid`, `jsessionid`, `phpsessid` and
 * `sessionid` query parameters and `;jsessionid=…` path parameters removed, dot segments resolved.
 */
export interface ExpectedOutcomes {
  /** Pages (not robots.txt) a correct crawl fetches. Trap hosts, redirect hops and error/hostile endpoints excluded. */
  mustFetch: string[];
  /** URLs that must never be requested: robots-disallowed, any path but /robots.txt on the robots-503 host,
   *  and pages only reachable through nofollow links, meta-nofollow pages, a misread <base href> or an HTML comment. */
  mustNotFetch: string[];
  /** Origins whose robots.txt sets Crawl-delay, with the delay in ms. */
  hostDelayMs: Record<string, number>;
  /** Byte-identical pages on different hosts. */
  exactDuplicates: Array<[string, string]>;
  /** Same ≥600-word article on different hosts except a short "Updated at … · view …" line (≤ 3 words differ). */
  nearDuplicates: Array<[string, string]>;
  /** Distinct articles under the same template as the duplicates: must NOT be marked duplicate. */
  distinctPages: string[];
  trapOrigins: string[];
  /** The canonical pages the session-id trap collapses to (a correct crawl fetches at most these there). */
  sessionTrapPages: string[];
}

export interface SyntheticWeb {
  port: number;
  hosts: HostInfo[];
  seeds: string[];
  origin(hostName: string): string;
  /** The server-side request log; resetLog() empties this same array. */
  requests: WebRequest[];
  expected: ExpectedOutcomes;
  /** Named endpoints for direct probing in tests (e.g. endpoints.hang, endpoints.gzipBomb). */
  endpoints: Record<string, string>;
  resetLog(): void;
  /** The 'fresh' scenario's ground truth (stories' times, sitemap listings, hubs). */
  fresh?: import('./scenario-fresh.js').FreshTruth;
  /** The 'topic' scenario's ground truth (which pages are on-topic, example pages). */
  topic?: import('./scenario-topic.js').TopicTruth;
  /** The 'tls' scenario's ground truth (names, CA file, feed stories, pages by certificate). */
  tls?: import('./scenario-tls.js').TlsTruth;
  /** Stops listening and destroys every socket, hanging and trickling ones included. */
  close(): Promise<void>;
}

export type ScenarioName = 'test' | 'bench' | 'demo' | 'fresh' | 'shared' | 'tls' | 'topic';

export interface BenchOptions {
  hosts: number;
  pagesPerHost: number;
  pageBytes: number;
  linksPerPage: number;
}

export interface SyntheticWebOptions {
  scenario: ScenarioName;
  port?: number;
  /** First host address; the others follow consecutively (skipping x.y.z.0 and x.y.z.255). */
  firstAddress?: string;
  bench?: Partial<BenchOptions>;
  /** The 'fresh' scenario's time scale and size (scenario-fresh.ts). */
  fresh?: { storyEveryMs?: number; pages?: number };
  /** Keep the request log (default true). The CLI turns it off unless --log is given. */
  log?: boolean;
}
