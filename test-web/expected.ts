// Derives mustFetch / mustNotFetch by crawling the page tables the server renders from (no HTTP involved).
import { canonicalUrl } from './html.js';
import type { Site } from './site.js';
import { type CrawlOptions, DEFAULT_CRAWL_OPTIONS, type ExpectedOutcomes, MAX_REDIRECT_HOPS } from './types.js';

interface ModelCrawl {
  fetched: Set<string>; // listable pages fetched (not redirects, not unlisted endpoints)
  visited: Set<string>; // every URL a correct crawler would request (or refuse because of robots)
  refused: Set<string>; // requested by links but forbidden by robots
  fetchesPerOrigin: Map<string, number>;
}

function crawlModel(sites: Map<string, Site>, seeds: string[], maxDepth: number, maxHops: number): ModelCrawl {
  const out: ModelCrawl = { fetched: new Set(), visited: new Set(), refused: new Set(), fetchesPerOrigin: new Map() };
  const queue: Array<[string, number, number]> = seeds.map((s) => [s, 0, 0]);
  const enqueue = (url: string, depth: number, hops = 0): void => {
    if (depth <= maxDepth && hops <= maxHops && !out.visited.has(url)) queue.push([url, depth, hops]);
  };
  // Breadth-first, so the first visit of a URL is at its smallest depth.
  for (let i = 0; i < queue.length; i++) {
    const [url, depth, hops] = queue[i];
    if (out.visited.has(url)) continue;
    out.visited.add(url);
    const u = new URL(url);
    const site = sites.get(u.origin);
    if (!site || site.trap) continue;
    const page = site.pages.get(url.slice(u.origin.length));
    if (site.robotsUnavailable || page?.disallowed) {
      out.refused.add(url);
      continue;
    }
    out.fetchesPerOrigin.set(u.origin, (out.fetchesPerOrigin.get(u.origin) ?? 0) + 1);
    if (!page) continue;
    if (page.redirect) {
      enqueue(canonicalUrl(new URL(page.redirect.location, url)), depth + 1, hops + 1);
      continue;
    }
    if (page.unlisted) continue;
    out.fetched.add(url);
    if (page.metaNofollow) continue;
    for (const link of page.links) if (link.to !== null && !link.nofollow) enqueue(link.to, depth + 1);
  }
  return out;
}

export function computeExpected(
  siteList: Site[],
  seeds: string[],
  options: CrawlOptions = DEFAULT_CRAWL_OPTIONS,
): Pick<ExpectedOutcomes, 'mustFetch' | 'mustNotFetch' | 'hostDelayMs' | 'trapOrigins'> {
  const sites = new Map(siteList.map((s) => [s.origin, s]));
  const bounded = crawlModel(sites, seeds, options.maxDepth, MAX_REDIRECT_HOPS);
  // Unbounded depth and hops tell "beyond the depth limit" (uncertain) apart from "unreachable for a correct parser".
  const unbounded = crawlModel(sites, seeds, Infinity, Infinity);

  const overBudget = new Set(
    [...bounded.fetchesPerOrigin].filter(([, n]) => n > options.maxPagesPerHost).map(([origin]) => origin),
  );
  const seedSet = new Set(seeds);
  const mustFetch = [...bounded.fetched].filter((u) => !overBudget.has(new URL(u).origin) || seedSet.has(u));

  const mustNotFetch = new Set(unbounded.refused);
  for (const site of siteList) {
    if (site.trap) continue;
    for (const [path, page] of site.pages) {
      const url = site.url(path);
      if (site.robotsUnavailable || page.disallowed) mustNotFetch.add(url);
      else if (!page.unlisted && !page.redirect && !unbounded.visited.has(url)) mustNotFetch.add(url);
    }
  }
  const hostDelayMs: Record<string, number> = {};
  for (const s of siteList) if (s.crawlDelayMs !== undefined) hostDelayMs[s.origin] = s.crawlDelayMs;
  return {
    mustFetch: mustFetch.sort(),
    mustNotFetch: [...mustNotFetch].sort(),
    hostDelayMs,
    trapOrigins: siteList.filter((s) => s.trap).map((s) => s.origin),
  };
}
