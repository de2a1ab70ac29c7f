// A sitemap fetch, for the fetch processor: the body is parsed while it downloads and never held
// whole (its own bound, sitemaps.org's 50 MB uncompressed and 50,000 entries, apart from the page
// body cap); what it lists is passed on to discovered-urls, keyed by the sitemap's host, marked as
// found by a sitemap, with its hints (lastmod, changefreq, priority). An index's children come back
// the same way, marked as sitemaps one level deeper, so each goes through the host's politeness slot.
// They travel in batches (url-batch.ts): up to 50,000 URLs make a hundred records, not 50,000.
// An RSS or Atom feed is fetched and read the same way; its entries are links, to any host (each
// host's batches keyed by that host), dated by their publication, and the feed's publishing interval
// (how often it gains an entry) says when a recrawl fetches it again.
import type { HttpFetcher, FetchOutcome } from '../../fetching/http-fetcher.js';
import type { DiscoveredEntry, DiscoveredUrl, FetchRequest, SkippedUrl } from '../../schemas/records.js';
import { discoveredBatches, groupBy } from '../../contract/url-batch.js';
import { SitemapParser, type SitemapSummary } from '../../sitemaps/sitemap-parser.js';
import { hostKey } from '../../url/canonicalize.js';
import { publishingInterval } from '../../recrawl/recrawl-policy.js';
import { SitemapCuts, type AddressRefusal } from './sitemap-cuts.js';

export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;

export interface SitemapFetch {
  outcome: FetchOutcome;
  summary: SitemapSummary;
  /** Batches of what the sitemap listed, each with its host key (a sitemap's are all its host's; a feed's any). */
  found: { host: string; batch: DiscoveredUrl }[];
  /** URLs (and child sitemaps) in `found`. */
  urls: number;
  /** The work the file dropped (entries not passed on, the rest after a limit), as `skipped` rows keyed by the sitemap's host. */
  skipped: SkippedUrl[];
  /** The decoded body, its first `keepBytes` (for the record and an archive); the parser read it all. */
  kept: Buffer;
  /** `kept` is shorter than what was read. */
  cut: boolean;
  /**
   * For a feed read whole: how often it gains an entry (ms), from its entries' dates; 0 when they
   * carry none. Undefined for a sitemap, or when nothing was read.
   */
  feedIntervalMs?: number;
}

/**
 * @param keepBytes how much of the body to keep: the page body cap, so that keeping a sitemap costs no
 *   more memory than a page fetch, while the parser still reads up to SITEMAP_MAX_BYTES
 * @param refused why an entry's address (an IP literal) is forbidden by the crawl's network policy
 */
export async function fetchSitemap(fetcher: HttpFetcher, request: FetchRequest, signal: AbortSignal, now: () => number, keepBytes: number,
  refused: AddressRefusal = () => undefined): Promise<SitemapFetch> {
  const found: DiscoveredEntry[] = [];
  const cuts = new SitemapCuts(refused);
  const parser = new SitemapParser({
    sitemapUrl: request.url,
    host: request.host,
    // The crawler fetches only sitemaps robots.txt names, /sitemap.xml at the root, and the children
    // of those: all of them speak for the whole host (sitemaps.org: naming a sitemap in robots.txt shows
    // authority over the host), so a child's directory does not bound what it may list.
    fromRobots: true,
    depth: request.sitemap_depth,
    onUrl: (e) => found.push({ url: e.loc, anchor: '', priority_hint: e.priority ?? -1, changefreq: e.changefreq ?? '', lastmod: e.lastmod ?? 0, sitemap_depth: 0 }),
    onSitemap: (loc, lastmod) => found.push({ url: loc, anchor: '', priority_hint: -1, changefreq: '', lastmod: lastmod ?? 0, sitemap_depth: request.sitemap_depth + 1 }),
    onIgnored: (loc, reason, detail) => cuts.ignored(loc, reason, detail),
  });
  const chunks: Buffer[] = [];
  let kept = 0;
  let cut = false;
  /** The sink told the fetcher to read no more. */
  let stopped = false;
  const headers: Record<string, string> = {};
  // A feed fetched again (a recrawl) asks whether it changed.
  if (request.if_none_match) headers['if-none-match'] = request.if_none_match;
  if (request.if_modified_since) headers['if-modified-since'] = request.if_modified_since;
  const outcome = await fetcher.fetch(request.url, {
    headers,
    signal,
    address: request.address || undefined,
    maxBodyBytes: SITEMAP_MAX_BYTES,
    bodySink: (chunk) => {
      const room = keepBytes - kept;
      if (chunk.length > room) cut = true;
      if (room > 0) {
        const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
        chunks.push(Buffer.from(part)); // the decoder may reuse its buffer
        kept += part.length;
      }
      // A parser that stopped (a limit, not a sitemap) has read all it will: the rest is not needed.
      if (!parser.done) parser.write(chunk);
      // Past a limit nothing more is read: the download ends here rather than running on to 50 MB for
      // nothing (the row says what was left). A file that is no sitemap is still kept whole up to the
      // page cap, for the record and an archive.
      stopped = parser.cutBy !== undefined;
      return !stopped;
    },
  });
  // Our own stop, which the fetcher calls a cut at a cap, is no failed request: the row's error says
  // which limit (sitemapProblem), the body is cut by length (WARC-Truncated), and no error is counted.
  const stoppedHere = stopped && outcome.errorKind === 'body-too-large';
  if (stoppedHere) cut = true;
  const read: FetchOutcome = stoppedHere ? { ...outcome, error: '', errorKind: '', incomplete: false } : outcome;
  // Only what a whole, successful answer listed counts: an error page is no sitemap.
  const summary = parser.end();
  const body = Buffer.concat(chunks, kept);
  if (outcome.status < 200 || outcome.status >= 300) return { outcome: read, summary, found: [], urls: 0, skipped: [], kept: body, cut };
  const shared = { source_url: request.url, depth: request.depth + 1, via: 'sitemap' as const, redirect_hops: 0, discovered_at: now() };
  const feed = summary.kind === 'rss' || summary.kind === 'atom';
  const batches: { host: string; batch: DiscoveredUrl }[] = [];
  for (const [host, group] of feed ? groupBy(found, (e) => hostOf(e.url, request.host)) : new Map([[request.host, found]])) {
    for (const batch of discoveredBatches(shared, group)) batches.push({ host, batch });
  }
  const feedIntervalMs = feed && summary.complete ? publishingInterval(found.map((e) => e.lastmod), outcome.startedAt) ?? 0 : undefined;
  const skipped = cuts.rows(request, summary, outcome, shared.discovered_at);
  return { outcome: read, summary, found: batches, urls: found.length, skipped, kept: body, cut, feedIntervalMs };
}

function hostOf(url: string, fallback: string): string {
  try {
    return hostKey(new URL(url));
  } catch {
    return fallback; // the parser passes only absolute http(s) URLs
  }
}

/**
 * What a sitemap fetch tells the user when the file was not read whole, or was no sitemap: '' or
 * '<kind>: …', the kind one of sitemap-limit, sitemap-is-html (a site answering its home page or an
 * error page for /sitemap.xml, as many do) and sitemap-unreadable.
 */
export function sitemapProblem(s: SitemapSummary): string {
  const what = s.kind === 'rss' || s.kind === 'atom' ? 'feed' : 'sitemap';
  if (s.cutBy) return `${what}-limit: stopped at ${s.cutBy} after ${s.urls} URLs (${s.bytes} bytes); the rest was not read (a skipped row says how much)`;
  if (!s.complete && s.errors.length) {
    if (/root element <html>/i.test(s.errors.join('\n'))) return `sitemap-is-html: ${s.errors.find((e) => /<html>/i.test(e))}`;
    return `${what}-unreadable: ${s.errors[0]}`;
  }
  return '';
}
