// The checks every full crawl of the synthetic web must pass, whatever runtime ran it: politeness
// and robots from the test server's log, completeness, traps, duplicates and hostile endpoints.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_CRAWL_OPTIONS, type SyntheticWeb } from '../../test-web/synthetic-web.js';
import {
  assertAllFetched, assertNeverFetched, assertPolite, assertRetryAfterHonoured, assertRobotsFirst, canonicalOf, pagesFetchedTwice,
} from './crawl-checks.js';

export interface PageRow {
  url: string;
  final_url: string;
  host: string;
  status: number;
  title: string;
  error: string;
  duplicate_of: string;
  duplicate_kind: string;
}

export interface CrawlOutcome {
  web: SyntheticWeb;
  pages: PageRow[];
  delayMs: number;
  /** From ClickHouse: fetch attempts recorded, by kind, and distinct fetch ids. */
  fetches: FetchCounts;
}

export interface FetchCounts {
  page: number;
  robots: number;
  sitemap: number;
  fetchIds: number;
}

/** The SQL behind FetchCounts, for `crawlstream query --format json`. */
export const FETCH_COUNTS_SQL =
  "SELECT countIf(kind = 'page') AS page, countIf(kind = 'robots') AS robots, countIf(kind = 'sitemap') AS sitemap, uniqExact(fetch_id) AS fetchIds FROM fetches FINAL";

export function fetchCounts(row: Record<string, unknown>): FetchCounts {
  return { page: Number(row.page), robots: Number(row.robots), sitemap: Number(row.sitemap), fetchIds: Number(row.fetchIds) };
}

/** Requests the crawler makes about a site rather than for its pages. */
export const isSiteFile = (path: string) => path.endsWith('/robots.txt') || path === '/sitemap.xml';

/** Politeness delay of the test crawls: short for speed, long enough to tell apart from a burst. */
export const TEST_DELAY_MS = 250;

/** Crawl-level flags matching the synthetic web's expected outcomes. */
export function crawlLevelFlags(): string[] {
  return [
    '--default-delay-ms', String(TEST_DELAY_MS), '--fetch-timeout-ms', '3000',
    '--max-depth', String(DEFAULT_CRAWL_OPTIONS.maxDepth), '--max-pages-per-host', String(DEFAULT_CRAWL_OPTIONS.maxPagesPerHost),
  ];
}

export function embeddedCrawlArgs(web: SyntheticWeb, dataDir: string, extra: string[] = []): string[] {
  return ['crawl', ...web.seeds, '--data-dir', dataDir, '--allow-network', '127.0.0.0/8', ...crawlLevelFlags(), '--partitions', '4', '--quiet', ...extra];
}

/** Registers the shared checks inside the caller's describe(); `outcome` is read when they run. */
export function crawlOutcomeTests(outcome: () => CrawlOutcome): void {
    it('should never have two requests in flight to one host nor start them closer than the host delay', () => {
      const { web, pages, delayMs } = outcome();
      assertPolite(web, delayMs);
      assertRetryAfterHonoured(web.requests);
    });

    it('should request robots.txt first on every host', () => {
      const { web, pages, delayMs } = outcome();
      assertRobotsFirst(web.requests);
    });

    it('should never request a URL that robots.txt, nofollow or meta robots rule out', () => {
      const { web, pages, delayMs } = outcome();
      assertNeverFetched(web);
    });

    it('should fetch every allowed, reachable page', () => {
      const { web, pages, delayMs } = outcome();
      assertAllFetched(web);
    });

    it('should fetch no canonical page twice', () => {
      const { web, pages, delayMs } = outcome();
      assert.deepEqual(pagesFetchedTwice(web.requests), []);
    });

    it('should bound the traps by depth, per-host budget and path guards', () => {
      const { web, pages, delayMs } = outcome();
      for (const origin of web.expected.trapOrigins) {
        const host = new URL(origin).host;
        const n = web.requests.filter((r) => r.host === host && !isSiteFile(r.path)).length;
        assert.ok(n <= DEFAULT_CRAWL_OPTIONS.maxPagesPerHost, `${n} requests to trap host ${host}`);
      }
      const sessionPages = new Set(web.expected.sessionTrapPages);
      const sessionHost = web.expected.sessionTrapPages.length ? new URL(web.expected.sessionTrapPages[0]).host : '';
      const fetched = web.requests.filter((r) => r.host === sessionHost && !isSiteFile(r.path)).map(canonicalOf);
      assert.ok(fetched.every((u) => sessionPages.has(u)), `session-id trap collapsed: ${fetched.filter((u) => !sessionPages.has(u)).slice(0, 3)}`);
    });

    it('should keep only /robots.txt requests on a host whose robots.txt answers 503', () => {
      const { web, pages, delayMs } = outcome();
      const robots503 = web.hosts.find((h) => h.name.includes('503'));
      assert.ok(robots503, 'the scenario has a robots-503 host');
      const host = new URL(robots503.origin).host;
      const paths = web.requests.filter((r) => r.host === host).map((r) => r.path);
      assert.ok(paths.length > 0 && paths.every((p) => p === '/robots.txt'), `requests: ${paths}`);
    });

    it('should hold exactly one fetches row per request the server saw', () => {
    const { web, fetches } = outcome();
    const robots = web.requests.filter((r) => r.path.endsWith('/robots.txt')).length;
    const sitemap = web.requests.filter((r) => r.path === '/sitemap.xml').length;
    const page = web.requests.length - robots - sitemap;
    assert.deepEqual({ page: fetches.page, robots: fetches.robots, sitemap: fetches.sitemap }, { page, robots, sitemap }, 'nothing missing, nothing twice');
    assert.equal(fetches.fetchIds, fetches.page + fetches.robots + fetches.sitemap, 'each fetch once');
  });

  it('should record one pages row per URL whose fetch reached an outcome', () => {
      const { web, pages, delayMs } = outcome();
      const urls = pages.map((p) => p.url);
      assert.equal(new Set(urls).size, urls.length, 'no URL twice in pages');
      const fetchedPages = new Set(web.requests.filter((r) => !isSiteFile(r.path)).map(canonicalOf));
      const missing = [...fetchedPages].filter((u) => !urls.includes(u));
      assert.deepEqual(missing, [], 'every URL the server saw has a pages row');
    });

    it('should mark exact and near duplicates across hosts, and not distinct pages', () => {
      const { web, pages, delayMs } = outcome();
      const byUrl = new Map(pages.map((p) => [p.url, p]));
      for (const [a, b] of web.expected.exactDuplicates) {
        const marked = [byUrl.get(a), byUrl.get(b)].filter((p) => p?.duplicate_of);
        assert.equal(marked.length, 1, `exactly one of ${a} / ${b} is the duplicate`);
        assert.equal(marked[0]!.duplicate_kind, 'exact');
        assert.ok([a, b].includes(marked[0]!.duplicate_of));
      }
      for (const [a, b] of web.expected.nearDuplicates) {
        const marked = [byUrl.get(a), byUrl.get(b)].filter((p) => p?.duplicate_of);
        assert.equal(marked.length, 1, `exactly one of ${a} / ${b} is the near duplicate`);
        assert.equal(marked[0]!.duplicate_kind, 'near');
      }
      for (const u of web.expected.distinctPages) {
        assert.equal(byUrl.get(u)?.duplicate_of, '', `${u} is not a duplicate`);
      }
    });

    it('should survive every hostile endpoint and say what happened to it', () => {
      const { web, pages, delayMs } = outcome();
      const byUrl = new Map(pages.map((p) => [p.url, p]));
      const e = web.endpoints;
      assert.match(byUrl.get(e.hang)?.error ?? '', /^timeout/);
      assert.match(byUrl.get(e.trickle)?.error ?? '', /^timeout/);
      assert.match(byUrl.get(e.bigBody)?.error ?? '', /^body-too-large/);
      assert.match(byUrl.get(e.gzipBomb)?.error ?? '', /^decompression-bomb/);
      assert.equal(byUrl.get(e.error500)?.status, 500);
      assert.equal(byUrl.get(e.flaky)?.status, 200, 'the flaky page recovered on a retry');
      assert.equal(byUrl.get(e.retryAfter)?.status, 200, 'the 429 page was fetched after Retry-After');
      assert.match(byUrl.get(e.windows1252)?.title ?? '', /é.*€|€.*é/);
      assert.ok(byUrl.has(e.redirectFinal), 'the end of a 3-hop redirect chain is reached');
    });
}
