// Where a leased URL goes once it reported: a fetched page to its retry, its recrawl or nowhere; a URL
// given back unfetched to the queue again (its budget unspent); a URL whose lease was lost to the
// queue once more, then to a `skipped` row. And the sitemaps a robots.txt just read names.
import type { Logger, Metrics } from '../../engine/api.js';
import type { FetchResult } from '../../schemas/records.js';
import type { CrawlConfig } from '../../contract/config.js';
import type { CrawlBudget } from '../../contract/crawl-budget.js';
import { emptyBook, owedCount, type UrlRef } from '../../politeness/leases.js';
import { freedWithoutOutcome } from '../../politeness/host-politeness.js';
import { sameOrigin, type HostState } from './host-state.js';
import { MAX_QUEUE_STEPS, type Frontier } from './frontier.js';
import { countsAgainstBudget } from './lease-release.js';
import { sitemapState, urlKey, type UrlState } from './url-state.js';

const MAX_SITEMAPS_PER_HOST = 16;

export interface ReportParts {
  config: CrawlConfig;
  frontier: Frontier;
  budget?: Pick<CrawlBudget, 'giveBack'>;
  ctx: { metrics: Metrics; logger: Logger };
  skip(h: HostState, url: string, reason: string, depth: number, detail?: string): void;
}

/** Where a fetched URL goes next: a retry, its recrawl, or nowhere. */
export function afterPage(p: ReportParts, h: HostState, r: FetchResult, retryable: boolean, key = urlKey(h.host, r.url)): void {
  const u = p.frontier.urls.get(key);
  p.ctx.metrics.count('fetched');
  if (!u) return;
  if (retryable && u.attempt < p.config.maxAttempts) {
    p.ctx.metrics.count('retries');
    return p.frontier.enqueueReady(h, key, { ...u, attempt: u.attempt + 1 }, u.fetches > 0);
  }
  if (retryable) p.ctx.metrics.count('gave-up');
  const ok = r.status >= 200 && r.status < 300;
  const next: UrlState = {
    ...u, attempt: 1, fetches: u.fetches + 1, changes: u.changes + (r.changed ? 1 : 0), lost: 0,
    gone: r.status === 404 || r.status === 410 ? u.gone + 1 : 0, captured_at: ok ? r.started_at : u.captured_at,
    etag: ok ? r.etag : u.etag, last_modified: ok ? r.last_modified : u.last_modified, sha1: ok ? r.body_sha1 : u.sha1,
    interval_ms: r.recrawl_interval_ms || u.interval_ms, next_due_at: r.next_due_at,
  };
  if (r.status === 304) p.ctx.metrics.count('not-modified');
  if (r.next_due_at > 0) return p.frontier.enqueueWaiting(h, key, next);
  p.frontier.stop(key, next);
}

/** The host may crawl nothing now (robots.txt unreachable, a Crawl-delay over the bound): its ready URLs are dropped, each recorded. */
export async function dropReadyUrls(p: ReportParts, h: HostState, reason: string, detail: string): Promise<void> {
  for (let step = 0; step < MAX_QUEUE_STEPS; step++) {
    const next = await p.frontier.popReady(h);
    if (!next) break;
    if (!next.u) continue;
    p.frontier.stop(next.key, next.u);
    p.skip(h, next.u.url, reason, next.u.depth, detail);
  }
}

/** A leased URL that was not fetched goes back to the ready queue, its page budget given back. */
export function requeue(p: ReportParts, h: HostState, url: string, change: (u: UrlState) => UrlState = (u) => u): void {
  const key = urlKey(h.host, url);
  const u = p.frontier.urls.get(key);
  if (!u || u.phase !== 'in-flight') return;
  unspend(p, h, u);
  p.frontier.enqueueReady(h, key, change(u), u.fetches > 0, true);
}

/**
 * Leases whose URLs stopped reporting lost them to a bug or a crash: say so, release their URLs again
 * (once), free the host. Returns how many URLs they owed.
 */
export function giveUpLeases(p: ReportParts, h: HostState, now: number): number {
  for (const lease of h.leases.open) {
    p.ctx.logger.warn(`${h.host}: lease ${lease.id} released ${now - lease.releasedAt} ms ago stopped reporting with ${lease.count} of its ${lease.size} URLs owed; they are released again once (a late report is ignored)`);
    p.ctx.metrics.count('leases-lost');
    giveUpLost(p, h, lease.owed);
  }
  const owed = owedCount(h.leases);
  h.leases = { ...emptyBook(), epoch: h.leases.epoch, progressAt: now };
  h.slot = freedWithoutOutcome(h.slot, now);
  return owed;
}

/**
 * The URLs a lost lease still owed (no report came within the guard): each is released again once,
 * with a warning; one lost a second time is dropped with a `skipped` row.
 */
export function giveUpLost(p: ReportParts, h: HostState, owed: UrlRef[]): void {
  for (const ref of owed) {
    const key = { host: h.host, ...ref };
    const u = p.frontier.urls.get(key);
    if (!u || u.phase !== 'in-flight') continue;
    if (u.lost === 0) {
      p.ctx.metrics.count('lease-lost.released-again');
      unspend(p, h, u);
      p.frontier.enqueueReady(h, key, { ...u, lost: 1 }, u.fetches > 0, true);
    } else {
      p.ctx.metrics.count('lease-lost.dropped');
      p.frontier.stop(key, { ...u, lost: u.lost + 1 });
      p.skip(h, u.url, 'lease-lost', u.depth, 'its lease was lost twice: no fetch task reported it');
    }
  }
}

function unspend(p: ReportParts, h: HostState, u: UrlState): void {
  if (!countsAgainstBudget(u, u.fetches > 0)) return;
  h.queue.released = Math.max(0, h.queue.released - 1);
  p.budget?.giveBack();
}

/** The sitemaps robots.txt names (same origin, at most 16), or /sitemap.xml, queued once per robots.txt read. */
export function queueSitemaps(p: ReportParts, h: HostState, named: string[], now: number): void {
  if (!p.config.sitemaps || h.queue.sitemapsAt >= h.robots.fetchedAt) return;
  h.queue.sitemapsAt = now;
  const own = named.filter((s) => sameOrigin(s, h));
  if (named.length > own.length) p.ctx.metrics.count('sitemaps.other-host', named.length - own.length);
  // sitemaps.org: without a Sitemap line, /sitemap.xml is where a site's sitemap usually is.
  const urls = named.length ? own.slice(0, MAX_SITEMAPS_PER_HOST) : [`${h.scheme}://${h.host}/sitemap.xml`];
  for (const url of urls) {
    const key = urlKey(h.host, url);
    const u = p.frontier.urls.get(key);
    if (u && u.phase !== 'stopped') continue;
    p.frontier.enqueueReady(h, key, sitemapState(url, `${h.scheme}://${h.host}/robots.txt`, now, u), false);
  }
}
