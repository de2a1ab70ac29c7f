// schedule: deduped + fetched → scheduled. The politeness core (DESIGN §3.1, §3.2) and the frontier.
//
// A host's next URL is released only when (1) nothing is in flight for the host — the fetched topic,
// co-partitioned with this task, tells us when the last fetch FINISHED — and (2) the host's timer,
// set from that finish time plus max(default delay, Crawl-delay, Retry-After, backoff), has passed,
// and (3) robots.txt has been read (fetched first, through the same slot). A fetcher lagging behind
// therefore delays the host instead of letting releases pile into a burst. Among a host's ready URLs
// the most important goes first (url-state.ts rankOf); with --recrawl every fetched URL waits for its
// due time and comes back ready, competing with new URLs on the same scale.
import {
  defineProcessor, type KeyValueStore, type Processor, type ProcessorContext, type RecordOf, type RuntimeControl, type TopicValues,
} from '../../engine/api.js';
import type { CanonicalUrl, FetchRequest, FetchResult } from '../../schemas/records.js';
import type { CrawlConfig } from '../../contract/config.js';
import { deduped, fetched, scheduled, skipped } from '../../contract/topics.js';
import { hostsStore, robotsStore, sameOrigin, type HostState } from './host-state.js';
import { readyQueueStore, waitingQueueStore } from './host-frontier.js';
import { HostQueues, MAX_STEPS_PER_TURN } from './host-queues.js';
import { freed, freedWithoutOutcome, newSlot, nextAllowedStart, pacingFields, pausedUntil, released, restarted, staleAt } from '../../politeness/host-politeness.js';
import { newRobotsState, RobotsGate } from '../../politeness/robots-gate.js';
import { firstInterval } from '../../recrawl/recrawl-policy.js';
import { priorityOf, sitemapState, urlKey, urlsStore, type UrlKey, type UrlState } from './url-state.js';
import { TimerHeap } from './timer-heap.js';
import type { CrawlBudget } from '../../contract/crawl-budget.js';
import { canonicalEntries } from '../../contract/url-batch.js';

const inputs = [fetched, deduped] as const;
const outputs = [scheduled, skipped] as const;
type In = TopicValues<typeof inputs>;
type Out = TopicValues<typeof outputs>;

export interface ScheduleServices {
  config: CrawlConfig;
  /** The global page budget (--max-pages), shared by the schedule tasks of one process. */
  budget?: CrawlBudget;
  /** Kafka pauses releases while the partition count grows (crawlstream scale). */
  control: RuntimeControl;
}

const MAX_SITEMAPS_PER_HOST = 16;

export class Schedule implements Processor<In, Out> {
  private hosts!: KeyValueStore<string, HostState>;
  private urls!: KeyValueStore<UrlKey, UrlState>;
  private queues!: HostQueues;
  private robots!: RobotsGate;
  private readonly active = new Map<string, HostState>();
  private readonly timers = new TimerHeap();
  private readonly armedAt = new Map<string, number>();
  private inFlight = 0;
  private ctx!: ProcessorContext<Out>;
  private readonly config: CrawlConfig;

  constructor(private readonly s: ScheduleServices) {
    this.config = s.config;
  }

  async init(ctx: ProcessorContext<Out>): Promise<void> {
    this.ctx = ctx;
    this.hosts = ctx.store(hostsStore);
    this.urls = ctx.store(urlsStore);
    this.queues = new HostQueues(this.urls, ctx.store(readyQueueStore), ctx.store(waitingQueueStore));
    this.robots = new RobotsGate(ctx.store(robotsStore), this.config);
    for await (const [host, h] of this.hosts.entries()) {
      this.s.budget?.addUsed(h.queue.released);
      if (h.queue.ready === 0 && h.queue.waiting === 0 && !h.slot.inFlight) continue;
      this.active.set(host, h);
      this.queues.account(h, +1);
      if (h.slot.inFlight) {
        // Its outcome may still come, or may have been lost with the process: the stale guard decides.
        this.inFlight++;
        h.slot = restarted(h.slot, ctx.now());
        this.arm(h, staleAt(h.slot, this.config.fetchTimeoutMs));
        continue;
      }
      // Due times survive restarts: a host with only future recrawls wakes at the first of them.
      const due = h.queue.ready > 0 ? 0 : await this.queues.firstDue(h);
      this.arm(h, Math.max(nextAllowedStart(h.slot), due));
    }
    this.reportGauges();
  }

  async process(record: RecordOf<In>, ctx: ProcessorContext<Out>): Promise<void> {
    this.ctx = ctx;
    try {
      switch (record.topic) {
        case 'fetched':
          return await this.onFetched(record.value, ctx.now());
        case 'deduped': {
          // A batch of one host's URLs: each is decided on its own, in order.
          const { more: _batch, ...shared } = record.value;
          for (const entry of canonicalEntries(record.value)) await this.onDeduped({ ...shared, ...entry, more: [] }, ctx.now());
          return;
        }
      }
    } catch (err) {
      // A record that cannot be handled must never leave its host waiting on an outcome that will not
      // come back (a dead-lettered completion once stalled a host for good): say so, free the slot.
      ctx.metrics.count(`errors.${record.topic}`);
      ctx.log.warn(`schedule: ${record.topic} record for ${record.value.url} failed: ${(err as Error).message}`);
      if (record.topic === 'fetched') this.freeSlot(record.value, ctx.now());
    }
  }

  private freeSlot(r: FetchResult, now: number): void {
    const h = this.active.get(r.host) ?? this.hosts.get(r.host);
    if (!h || h.slot.inFlight !== r.fetch_id) return;
    this.inFlight--;
    h.slot = freedWithoutOutcome(h.slot, now);
    this.save(h);
    this.arm(h, nextAllowedStart(h.slot));
  }

  async punctuate(now: number, ctx: ProcessorContext<Out>): Promise<void> {
    this.ctx = ctx;
    while (this.timers.peekTime() <= now) {
      const host = this.timers.pop()!;
      if ((this.armedAt.get(host) ?? Infinity) > now) continue; // re-armed for later
      this.armedAt.delete(host);
      const h = this.active.get(host);
      if (h) await this.tryRelease(h, now);
    }
    this.reportGauges();
  }

  /** Work due now: URLs ready or fetches in flight. Future recrawls alone leave a crawl caught up. */
  hasPendingWork(): boolean {
    const blocked = (this.s.budget?.exhausted() ?? false) || this.s.control.paused;
    return this.inFlight > 0 || (this.queues.totals.ready > 0 && !blocked);
  }

  private async onDeduped(u: CanonicalUrl, now: number): Promise<void> {
    const h = this.host(u.host, u.url);
    const key = urlKey(h.host, u.url);
    const known = this.urls.get(key);
    if (known) {
      // A URL passed on again: more pages link to it (dedup reports 2, 4, 8, … in-links).
      if (u.inlinks > known.inlinks && this.queues.raise(h, key, known, u.inlinks)) {
        this.ctx.metrics.count('raised');
        this.save(h);
      }
      return;
    }
    const decision = this.robots.decide(h.host, h.scheme, h.robots, now);
    if (decision.kind === 'refuse') return this.skip(h, u.url, decision.reason, u.depth, u.source_url);
    if (this.robots.isFresh(h.robots, now) && !this.robots.allows(h.host, h.robots, u.url)) return this.skip(h, u.url, 'robots-disallowed', u.depth, u.source_url);
    const state: UrlState = {
      url: u.url, depth: u.depth, via: u.via, source_url: u.source_url, redirect_hops: u.redirect_hops, discovered_at: u.discovered_at,
      inlinks: Math.max(1, u.inlinks), priority_hint: u.priority_hint, changefreq: u.changefreq, lastmod: u.lastmod,
      sitemap_depth: u.sitemap_depth, phase: 'ready', queue_seq: 0, queue_rank: 0, attempt: 1, etag: '', last_modified: '', sha1: '',
      interval_ms: this.config.recrawl ? firstInterval(u, now, this.config) : 0, next_due_at: 0, fetches: 0, changes: 0, gone: 0, captured_at: 0,
    };
    this.queues.enqueueReady(h, key, state, false);
    this.save(h);
    await this.tryRelease(h, now);
  }

  private async onFetched(r: FetchResult, now: number): Promise<void> {
    const h = this.active.get(r.host) ?? this.hosts.get(r.host);
    if (!h || r.fetch_id !== h.slot.inFlight) {
      // A completion we no longer wait for: the redo of a fetch after a crash, already accounted.
      this.ctx.metrics.count('stale-completions');
      return;
    }
    this.inFlight--;
    if (r.kind === 'robots') {
      const outcome = this.robots.afterFetch(h.host, h.scheme, h.robots, r, now);
      this.ctx.metrics.count(`robots.${outcome.outcome}`);
      h.robots = outcome.state;
      if (outcome.text === null) this.robotsTexts().delete(h.host);
      else if (outcome.text) this.robotsTexts().put(h.host, outcome.text);
      // The Crawl-delay just read already applies to the next request.
      h.slot = freed(h.slot, r, now, this.robots.delayOf(h.robots), this.config.maxAttempts, Math.random).slot;
      if (outcome.outcome === 'crawl-delay-too-long') {
        this.ctx.log.warn(`${h.host}: robots.txt asks a ${this.robots.refusalDetail(h.robots, outcome.outcome)} (--max-crawl-delay): the host is skipped until robots.txt is read again`);
      }
      if (h.robots.status === 'rules' || h.robots.status === 'allow-all') this.queueSitemaps(h, outcome.sitemaps, now);
    } else {
      const { slot, throttled, failed } = freed(h.slot, r, now, this.robots.delayOf(h.robots), this.config.maxAttempts, Math.random);
      h.slot = slot;
      if (throttled) this.ctx.metrics.count('throttled');
      this.afterPage(h, r, throttled || failed, now);
    }
    this.save(h);
    await this.tryRelease(h, now);
  }

  /** Where a fetched URL goes next: a retry, its recrawl, or nowhere. */
  private afterPage(h: HostState, r: FetchResult, retryable: boolean, now: number): void {
    const key = urlKey(h.host, r.url);
    const u = this.urls.get(key);
    this.ctx.metrics.count('fetched');
    if (!u) return;
    if (retryable && u.attempt < this.config.maxAttempts) {
      this.ctx.metrics.count('retries');
      return this.queues.enqueueReady(h, key, { ...u, attempt: u.attempt + 1 }, u.fetches > 0);
    }
    if (retryable) this.ctx.metrics.count('gave-up');
    const ok = r.status >= 200 && r.status < 300;
    const next: UrlState = {
      ...u, attempt: 1, fetches: u.fetches + 1, changes: u.changes + (r.changed ? 1 : 0),
      gone: r.status === 404 || r.status === 410 ? u.gone + 1 : 0, captured_at: ok ? r.started_at : u.captured_at,
      etag: ok ? r.etag : u.etag, last_modified: ok ? r.last_modified : u.last_modified, sha1: ok ? r.body_sha1 : u.sha1,
      interval_ms: r.recrawl_interval_ms || u.interval_ms, next_due_at: r.next_due_at,
    };
    if (r.status === 304) this.ctx.metrics.count('not-modified');
    if (r.next_due_at > 0) return this.queues.enqueueWaiting(h, key, next);
    this.queues.stop(key, next);
  }

  /** Releases the host's next fetch if its slot is free and its timer has passed. */
  private async tryRelease(h: HostState, now: number): Promise<void> {
    if (h.slot.inFlight) return this.checkStale(h, now);
    if (this.s.control.paused) return this.arm(h, pausedUntil(now));
    const allowed = nextAllowedStart(h.slot);
    const robots = this.robots.decide(h.host, h.scheme, h.robots, now);
    // A host refused (robots.txt unreachable, a Crawl-delay over the bound) gets no request: its URLs
    // are dropped now, not after its delay, however long that is.
    if (now < allowed && robots.kind !== 'refuse') return this.arm(h, allowed);
    await this.queues.promoteDue(h, now);
    this.save(h);
    if (h.queue.ready === 0) return this.idle(h);
    if (robots.kind === 'refuse') return this.dropReady(h, robots.reason);
    if (robots.kind === 'wait') return this.arm(h, robots.until);
    if (robots.kind === 'fetch') return this.releaseRobots(h, robots.url, robots.attempt, robots.hops, now);
    for (let step = 0; step < MAX_STEPS_PER_TURN; step++) {
      const next = await this.queues.popReady(h);
      if (!next) break;
      const { key, u, rank, recrawl } = next;
      if (!u) continue;
      if (!this.robots.allows(h.host, h.robots, u.url)) {
        this.queues.stop(key, u);
        this.skip(h, u.url, 'robots-disallowed', u.depth);
        continue;
      }
      // Budgets count distinct pages: a recrawl never spends them again.
      if (!recrawl && u.sitemap_depth === 0) {
        if (h.queue.released >= this.config.maxPagesPerHost) {
          this.queues.stop(key, u);
          this.skip(h, u.url, 'host-budget', u.depth);
          continue;
        }
        if (this.s.budget && !this.s.budget.tryTake()) {
          this.queues.enqueueReady(h, key, u, false); // the last page of the global budget went to another task
          this.save(h);
          return;
        }
        h.queue.released++;
      }
      return this.releaseUrl(h, key, u, rank, now);
    }
    this.save(h);
    if (h.queue.ready > 0) this.arm(h, now + 1);
    else await this.idle(h);
  }

  private releaseUrl(h: HostState, key: UrlKey, u: UrlState, rank: number, now: number): void {
    const conditional = u.fetches > 0 && this.config.recrawl;
    const request = this.release(h, u.sitemap_depth > 0 ? 'sitemap' : 'page', now, {
      url: u.url, depth: u.depth, attempt: u.attempt, via: u.fetches > 0 ? 'recrawl' : u.via, source_url: u.source_url,
      redirect_hops: u.redirect_hops, if_none_match: conditional ? u.etag : '', if_modified_since: conditional ? u.last_modified : '',
      priority: priorityOf(u), recrawl_interval_ms: u.interval_ms, previous_sha1: u.sha1, gone_count: u.gone, sitemap_depth: u.sitemap_depth,
      previous_captured_at: u.captured_at,
    });
    this.urls.put(key, { ...u, phase: 'in-flight', queue_rank: rank });
    if (request.via === 'recrawl') this.ctx.metrics.count('recrawls');
  }

  private releaseRobots(h: HostState, url: string, attempt: number, hops: number, now: number): void {
    this.release(h, 'robots', now, {
      url, depth: 0, attempt, via: 'seed', source_url: '', redirect_hops: hops, if_none_match: '', if_modified_since: '',
      priority: 0, recrawl_interval_ms: 0, previous_sha1: '', gone_count: 0, sitemap_depth: 0, previous_captured_at: 0,
    });
  }

  private release(h: HostState, kind: FetchRequest['kind'], now: number, fields: Omit<FetchRequest, 'fetch_id' | 'host' | 'kind' | 'delay_ms' | 'released_at' | 'address'>): FetchRequest {
    const { slot, fetchId } = released(h.slot, h.host, now);
    h.slot = slot;
    this.inFlight++;
    this.save(h);
    const request: FetchRequest = { ...fields, ...pacingFields(h.slot), fetch_id: fetchId, host: h.host, kind, released_at: now, address: '' };
    this.ctx.forward('scheduled', h.host, request);
    return request;
  }

  private queueSitemaps(h: HostState, named: string[], now: number): void {
    if (!this.config.sitemaps || h.queue.sitemapsAt >= h.robots.fetchedAt) return;
    h.queue.sitemapsAt = now;
    const own = named.filter((s) => sameOrigin(s, h));
    if (named.length > own.length) this.ctx.metrics.count('sitemaps.other-host', named.length - own.length);
    // sitemaps.org: without a Sitemap line, /sitemap.xml is where a site's sitemap usually is.
    const urls = named.length ? own.slice(0, MAX_SITEMAPS_PER_HOST) : [`${h.scheme}://${h.host}/sitemap.xml`];
    for (const url of urls) {
      const key = urlKey(h.host, url);
      const u = this.urls.get(key);
      if (u && u.phase !== 'stopped') continue;
      this.queues.enqueueReady(h, key, sitemapState(url, `${h.scheme}://${h.host}/robots.txt`, now, u), false);
    }
  }

  /** The host may crawl nothing now: its ready URLs are dropped, each recorded. */
  private async dropReady(h: HostState, reason: string): Promise<void> {
    for (let step = 0; step < MAX_STEPS_PER_TURN; step++) {
      const next = await this.queues.popReady(h);
      if (!next) break;
      if (!next.u) continue;
      this.queues.stop(next.key, next.u);
      this.skip(h, next.u.url, reason, next.u.depth);
    }
    this.save(h);
    if (h.queue.ready > 0) this.arm(h, this.ctx.now() + 1);
    else await this.idle(h);
  }

  /** A URL that will not be fetched, and why: counted, and a `skipped` record a data engineer can query. */
  private skip(h: HostState, url: string, reason: string, depth = 0, sourceUrl = ''): void {
    this.ctx.metrics.count(`dropped.${reason}`);
    const detail = this.robots.refusalDetail(h.robots, reason);
    this.ctx.forward('skipped', h.host, { url, host: h.host, reason, detail, depth, source_url: sourceUrl, decided_at: this.ctx.now() });
  }

  /** A slot held past any fetch's life lost its outcome to a bug: say so and free the host. */
  private checkStale(h: HostState, now: number): void {
    const limit = staleAt(h.slot, this.config.fetchTimeoutMs);
    if (now < limit) return this.arm(h, limit);
    this.ctx.log.warn(`${h.host}: fetch ${h.slot.inFlight} released ${now - h.slot.inFlightSince} ms ago never reported back; freeing the host (its outcome, if it comes, is ignored)`);
    this.ctx.metrics.count('stale-slots');
    this.inFlight--;
    h.slot = freedWithoutOutcome(h.slot, now);
    this.save(h);
    this.arm(h, nextAllowedStart(h.slot));
  }

  /** Nothing to release now: wait for the first recrawl, or leave the active set. */
  private async idle(h: HostState): Promise<void> {
    this.save(h);
    if (h.queue.waiting > 0) return this.arm(h, Math.max(nextAllowedStart(h.slot), await this.queues.firstDue(h)));
    if (h.slot.inFlight || h.queue.ready > 0) return;
    this.active.delete(h.host);
    this.armedAt.delete(h.host);
    this.queues.forget(h.host);
  }

  private host(host: string, url: string): HostState {
    let h = this.active.get(host) ?? this.hosts.get(host);
    if (!h) {
      h = {
        host, scheme: url.slice(0, url.indexOf(':')), slot: newSlot(this.config.defaultDelayMs), robots: newRobotsState(),
        queue: { ready: 0, readyRecrawls: 0, waiting: 0, released: 0, seq: 0, sitemapsAt: 0 },
      };
    }
    if (!this.active.has(host)) {
      this.active.set(host, h);
      this.queues.account(h, +1);
    }
    return h;
  }

  private robotsTexts() {
    return this.ctx.store(robotsStore);
  }

  private save(h: HostState): void {
    this.hosts.put(h.host, h);
  }

  private arm(h: HostState, at: number): void {
    const armed = this.armedAt.get(h.host);
    if (armed !== undefined && armed <= at) return;
    this.armedAt.set(h.host, at);
    this.timers.push(at, h.host);
  }

  private reportGauges(): void {
    const { metrics } = this.ctx;
    const { totals } = this.queues;
    metrics.gauge('frontier', totals.ready - totals.readyRecrawls);
    metrics.gauge('recrawl.due', totals.readyRecrawls);
    metrics.gauge('recrawl.waiting', totals.waiting);
    metrics.gauge('in-flight', this.inFlight);
    metrics.gauge('hosts.active', this.active.size);
    metrics.gauge('hosts.waiting', this.armedAt.size);
  }
}

export const scheduleProcessor = defineProcessor({
  name: 'schedule',
  description: 'Politeness and robots.txt: one request in flight per host, delays from the end of the last fetch, Retry-After, backoff, budgets; the most important URL first; recrawls when due; sitemaps.',
  inputs,
  outputs,
  stores: [hostsStore, urlsStore, readyQueueStore, waitingQueueStore, robotsStore],
  punctuateEveryMs: 10,
  delivery: 'Exactly once: releases, host timers and queue changes commit together with the input position. A fetch redone after a crash is released only once; its second completion is ignored.',
  create: (s: ScheduleServices) => new Schedule(s),
});
