// Options that shape a crawl. Crawl-level options must be identical on every worker (Kafka mode
// carries them in the crawl-config topic); process-level options belong to one process.
import { readFileSync } from 'node:fs';
import type { ScopeConfig } from '../scope/scope.js';
import type { RenderMode } from '../rendering/should-render.js';
import type { FocusSpec } from '../focus/focus-spec.js';
import type { TlsVerify } from '../fetching/tls-policy.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
  homepage: string;
};

export const CRAWLSTREAM_VERSION: string = pkg.version;
export const DEFAULT_USER_AGENT = `crawlstream/${pkg.version} (+${pkg.homepage})`;

export interface CrawlConfig {
  /** The User-Agent header sent with every request. */
  userAgent: string;
  /** The robots.txt product token matched against User-agent lines (RFC 9309 §2.2.1). */
  productToken: string;
  maxDepth: number;
  /** 0 means no global limit. */
  maxPages: number;
  maxPagesPerHost: number;
  /** Least time between the end of one request to a host and the start of the next. */
  defaultDelayMs: number;
  fetchTimeoutMs: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  /** Cap on the body, applied to the bytes on the wire and again after decompression. */
  maxBodyBytes: number;
  maxUrlLength: number;
  /** Attempts per URL for 5xx, 429 and network errors, the first included. */
  maxAttempts: number;
  maxRedirects: number;
  robotsCacheMs: number;
  /** A host whose robots.txt asks a longer Crawl-delay is skipped (recorded), as Nutch's fetcher.max.crawl.delay. */
  maxCrawlDelayMs: number;
  /** Fetch every URL again when due, at an interval that follows how often it changes; never drains. */
  recrawl: boolean;
  recrawlMinIntervalMs: number;
  recrawlMaxIntervalMs: number;
  /** Read sitemaps named in robots.txt (or /sitemap.xml) and crawl what they list. */
  sitemaps: boolean;
  /** Which discovered URLs enter the frontier (scope/scope.ts). */
  scope: ScopeConfig;
  /** Requests in flight to one server address at most, whatever host names share it. */
  maxInFlightPerIp: number;
  /** Host names pinned to addresses (--resolve HOST=IP), as curl's --resolve. */
  resolve: Record<string, string>;
  /** Headless rendering of HTML pages: never (default), auto (pages whose static HTML looks empty), always. */
  render: RenderMode;
  /** Trap guards. */
  maxRepeatedPathSegments: number;
  maxQueryParams: number;
  /** Certificates: refuse bad ones (on), fetch and record why (record), fetch without a word (off). */
  tlsVerify: TlsVerify;
  /** PEM text of extra trusted roots (--ca-file); carried as content so every worker trusts the same. */
  caPem: string;
  /** Process-level: CIDRs opened despite the private/loopback/link-local refusal. */
  allowNetworks: string[];
  /** A focused crawl (--focus-examples, --focus-module): pages judged, links scored, the frontier ordered by score. */
  focus?: FocusSpec;
  /** Process-level: --proxy URL; '' reads HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and NO_PROXY. */
  proxy: string;
}

export function productTokenOf(userAgent: string): string {
  const token = userAgent.trim().split(/[\/\s]/, 1)[0] ?? '';
  return token.toLowerCase() || 'crawlstream';
}

export function defaultCrawlConfig(overrides: Partial<CrawlConfig> = {}): CrawlConfig {
  const userAgent = overrides.userAgent ?? DEFAULT_USER_AGENT;
  return {
    userAgent,
    productToken: productTokenOf(userAgent),
    maxDepth: 16,
    maxPages: 0,
    maxPagesPerHost: 10_000,
    defaultDelayMs: 1_000,
    fetchTimeoutMs: 30_000,
    connectTimeoutMs: 10_000,
    headersTimeoutMs: 15_000,
    maxBodyBytes: 10 * 1024 * 1024,
    maxUrlLength: 2_048,
    maxAttempts: 3,
    maxRedirects: 5,
    robotsCacheMs: 24 * 60 * 60 * 1000,
    maxCrawlDelayMs: 60_000,
    recrawl: false,
    recrawlMinIntervalMs: 60 * 60 * 1000,
    recrawlMaxIntervalMs: 30 * 24 * 60 * 60 * 1000,
    sitemaps: true,
    scope: { mode: 'any', seeds: [], include: [], exclude: [] },
    maxInFlightPerIp: 2,
    resolve: {},
    render: 'never',
    maxRepeatedPathSegments: 3,
    maxQueryParams: 12,
    tlsVerify: 'on',
    caPem: '',
    allowNetworks: [],
    proxy: '',
    ...overrides,
  };
}

/** The options that every worker of one crawl must agree on, which `seed` hands to them. */
export function crawlLevelOptions(config: CrawlConfig): Partial<CrawlConfig> {
  return Object.fromEntries(CRAWL_LEVEL_OPTIONS.map((k) => [k, config[k]]));
}

/** The options that every worker of one crawl must agree on. */
export const CRAWL_LEVEL_OPTIONS = [
  'userAgent', 'productToken', 'maxDepth', 'maxPages', 'maxPagesPerHost', 'defaultDelayMs', 'fetchTimeoutMs',
  'connectTimeoutMs', 'headersTimeoutMs', 'maxBodyBytes', 'maxUrlLength', 'maxAttempts', 'maxRedirects',
  'robotsCacheMs', 'maxRepeatedPathSegments', 'maxQueryParams', 'maxCrawlDelayMs', 'recrawl', 'recrawlMinIntervalMs',
  'recrawlMaxIntervalMs', 'sitemaps', 'scope', 'maxInFlightPerIp', 'resolve', 'render', 'focus', 'tlsVerify', 'caPem',
] as const satisfies readonly (keyof CrawlConfig)[];
