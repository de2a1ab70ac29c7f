// What goes into a lease: the host's next ready URLs, most important first (sitemaps taking turns with
// pages), each checked against robots.txt and the page budgets as it is taken; and the `scheduled`
// record that carries them. The schedule decides when a lease may go out (politeness/); this decides
// what it holds.
import type { FetchRequest, LeaseEntry } from '../../schemas/records.js';
import type { CrawlConfig } from '../../contract/config.js';
import type { CrawlBudget } from '../../contract/crawl-budget.js';
import type { Lease } from '../../politeness/leases.js';
import { fetchIdOf } from '../../politeness/leases.js';
import { pacingFields } from '../../politeness/host-politeness.js';
import type { RobotsGate } from '../../politeness/robots-gate.js';
import type { HostState } from './host-state.js';
import { MAX_QUEUE_STEPS, type Frontier } from './frontier.js';
import { priorityOf, type UrlKey, type UrlState } from './url-state.js';

export interface Taken {
  key: UrlKey;
  u: UrlState;
  rank: number;
}

export interface LeaseParts {
  config: CrawlConfig;
  frontier: Frontier;
  robots: RobotsGate;
  budget?: Pick<CrawlBudget, 'tryTake'>;
  /** A URL that will not be fetched, and why. */
  skip(h: HostState, url: string, reason: string, depth: number): void;
}

export interface TakenUrls {
  taken: Taken[];
  /** The global page budget ran out before the lease was full (its last page went to another task). */
  budgetSpent: boolean;
}

/** Takes up to `n` of the host's ready URLs off its queue; those robots.txt or a budget rule out are recorded and dropped. */
export async function takeUrls(p: LeaseParts, h: HostState, n: number): Promise<TakenUrls> {
  const taken: Taken[] = [];
  for (let step = 0; step < MAX_QUEUE_STEPS && taken.length < n; step++) {
    const next = await p.frontier.popReady(h);
    if (!next) break;
    const { key, u, rank, recrawl } = next;
    if (!u) continue;
    if (!p.robots.allows(h.host, h.robots, u.url)) {
      p.frontier.stop(key, u);
      p.skip(h, u.url, 'robots-disallowed', u.depth);
      continue;
    }
    // Budgets count distinct pages: a recrawl never spends them again.
    if (countsAgainstBudget(u, recrawl)) {
      if (h.queue.released >= p.config.maxPagesPerHost) {
        p.frontier.stop(key, u);
        p.skip(h, u.url, 'host-budget', u.depth);
        continue;
      }
      if (p.budget && !p.budget.tryTake()) {
        p.frontier.enqueueReady(h, key, u, false, true);
        return { taken, budgetSpent: true };
      }
      h.queue.released++;
    }
    taken.push({ key, u, rank });
  }
  return { taken, budgetSpent: false };
}

/** Whether fetching the URL spends the page budgets: a first fetch of a page, not a recrawl nor a sitemap. */
export function countsAgainstBudget(u: UrlState, recrawl: boolean): boolean {
  return !recrawl && u.sitemap_depth === 0;
}

/** The `scheduled` record of a lease of URLs: the first URL's fields, the others in `more`. */
export function leaseRequest(h: HostState, lease: Lease, taken: Taken[], now: number, recrawl: boolean, address: string): FetchRequest {
  const entries = taken.map((t, i) => entryOf(t.u, fetchIdOf(lease.id, i), recrawl));
  return {
    ...entries[0], ...pacingFields(h.slot), host: h.host, released_at: now, address, lease_id: lease.id, lease_epoch: lease.epoch,
    more: entries.slice(1),
  };
}

/** The `scheduled` record of a robots.txt lease. */
export function robotsRequest(h: HostState, lease: Lease, url: string, attempt: number, hops: number, now: number): FetchRequest {
  return {
    fetch_id: lease.id, url, host: h.host, kind: 'robots', depth: 0, attempt, via: 'seed', source_url: '', redirect_hops: hops,
    ...pacingFields(h.slot), released_at: now, if_none_match: '', if_modified_since: '', priority: 0, recrawl_interval_ms: 0,
    previous_sha1: '', gone_count: 0, sitemap_depth: 0, address: '', previous_captured_at: 0, lease_id: lease.id, lease_epoch: lease.epoch,
    more: [],
  };
}

function entryOf(u: UrlState, fetchId: string, recrawl: boolean): LeaseEntry {
  const conditional = u.fetches > 0 && recrawl;
  return {
    fetch_id: fetchId, url: u.url, kind: u.sitemap_depth > 0 ? 'sitemap' : 'page', depth: u.depth, attempt: u.attempt,
    via: u.fetches > 0 ? 'recrawl' : u.via, source_url: u.source_url, redirect_hops: u.redirect_hops,
    if_none_match: conditional ? u.etag : '', if_modified_since: conditional ? u.last_modified : '', priority: priorityOf(u),
    recrawl_interval_ms: u.interval_ms, previous_sha1: u.sha1, gone_count: u.gone, sitemap_depth: u.sitemap_depth,
    previous_captured_at: u.captured_at,
  };
}
