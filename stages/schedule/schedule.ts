// schedule: deduped + fetch-reports + unfetched → scheduled. The frontier, and the politeness loop's
// scheduler side: it asks politeness/ when each host may be asked again and never computes a delay.
//
// A host's next URLs go out as a lease (politeness/leases.ts): up to 32 of them, about a round trip of
// the host's pacing, once (1) no lease of the host is out — the fetch-reports and unfetched topics,
// co-partitioned with this task, report each URL — (2) the host's timer, set from when its last fetch
// FINISHED plus max(default delay, Crawl-delay, Retry-After, backoff), has passed, and (3) robots.txt
// has been read (fetched first, as a lease of its own). The fetch task that owns the host's server
// address spaces the lease's URLs itself, so a fetcher lagging behind delays the host instead of
// letting releases pile into a burst. A second lease may queue behind the first in that same task.
// Among a host's ready URLs the most important goes first (url-state.ts rankOf), sitemaps taking
// turns with pages; with --recrawl every fetched URL waits for its due time and comes back ready.
import { defineProcessor, type KeyValueStore, type Processor, type ProcessorContext, type RecordOf, type TopicValues } from '../../engine/api.js';
import type { CanonicalUrl, FetchResult, UnfetchedUrl } from '../../schemas/records.js';
import type { CrawlConfig } from '../../contract/config.js';
import { deduped, fetchReports, scheduled, skipped, unfetched } from '../../contract/topics.js';
import { hostsStore, newHostState, robotsStore, type HostState } from './host-state.js';
import { readyQueueStore, waitingQueueStore } from './queue-stores.js';
import { Frontier } from './frontier.js';
import { freedWithoutOutcome, judge, leased, pausedUntil } from '../../politeness/host-politeness.js';
import { mayQueueBehind, owedCount, reported, restarted } from '../../politeness/leases.js';
import { Politeness } from '../../politeness/politeness.js';
import type { RobotsGate } from '../../politeness/robots-gate.js';
import { firstInterval } from '../../recrawl/recrawl-policy.js';
import { urlKey, urlsStore, type UrlKey, type UrlState } from './url-state.js';
import { TimerHeap } from './timer-heap.js';
import { RecordBudget } from './record-budget.js';
import { canonicalEntries } from '../../contract/url-batch.js';
import { leaseRequest, robotsRequest, takeUrls } from './lease-release.js';
import { afterPage, dropReadyUrls, giveUpLeases, queueSitemaps, requeue } from './url-reports.js';
import type { FocusGate } from '../../focus/focus-gate.js';
import type { ScheduleServices } from './schedule-services.js';

const inputs = [fetchReports, deduped, unfetched] as const;
const outputs = [scheduled, skipped] as const;
type In = TopicValues<typeof inputs>;
type Out = TopicValues<typeof outputs>;

export type { ScheduleServices };

export class Schedule implements Processor<In, Out> {
  readonly config: CrawlConfig;
  /** The shared page budget, remembering what the record in progress took (undone if it fails). */
  readonly budget: RecordBudget | undefined;
  frontier!: Frontier;
  robots!: RobotsGate;
  ctx!: ProcessorContext<Out>;
  private hosts!: KeyValueStore<string, HostState>;
  private urls!: KeyValueStore<UrlKey, UrlState>;
  private readonly active = new Map<string, HostState>();
  private readonly timers = new TimerHeap();
  private readonly armedAt = new Map<string, number>();
  /** URLs leased and not yet reported, over the task's hosts. */
  private inFlight = 0;
  private politeness!: Politeness;

  constructor(private readonly s: ScheduleServices) {
    this.config = s.config;
    this.budget = s.budget && new RecordBudget(s.budget);
  }

  async init(ctx: ProcessorContext<Out>): Promise<void> {
    this.ctx = ctx;
    this.hosts = ctx.store(hostsStore);
    this.urls = ctx.store(urlsStore);
    this.frontier = new Frontier(this.urls, ctx.store(readyQueueStore), ctx.store(waitingQueueStore));
    this.politeness = new Politeness(ctx.store(robotsStore), this.config);
    this.robots = this.politeness.robots;
    for await (const [, h] of this.hosts.entries()) {
      this.budget?.addUsed(h.queue.released);
      if (!this.adopt(h)) continue;
      if (owedCount(h.leases) > 0) {
        // Their reports may still come, or may have been lost with the process: the lost-lease guard,
        // counted from now, decides (a host is never left waiting on a report that cannot come).
        h.leases = restarted(h.leases, ctx.now());
        this.arm(h, this.politeness.lostAt(h));
        continue;
      }
      // Due times survive restarts: a host with only future recrawls wakes at the first of them.
      const due = h.queue.ready > 0 ? 0 : await this.frontier.firstDue(h);
      this.arm(h, Math.max(this.politeness.nextAllowedStart(h), due));
    }
    this.reportGauges();
  }

  /** A stored host joins the active set if it has work (URLs queued or leased): false if it has none. */
  private adopt(h: HostState): boolean {
    const owed = owedCount(h.leases);
    if (h.queue.ready === 0 && h.queue.waiting === 0 && owed === 0) return false;
    this.active.set(h.host, h);
    this.frontier.account(h, +1);
    this.inFlight += owed;
    return true;
  }

  async process(record: RecordOf<In>, ctx: ProcessorContext<Out>): Promise<void> {
    this.ctx = ctx;
    this.budget?.begin();
    switch (record.topic) {
      case 'fetch-reports':
        return this.onFetched(record.value, ctx.now());
      case 'unfetched':
        return this.onUnfetched(record.value, ctx.now());
      case 'deduped': {
        // A batch of one host's URLs: each is decided on its own, in order.
        const { more: _batch, ...shared } = record.value;
        // Object.assign, not { ...shared, ...entry }: V8 makes a second spread ~20 times slower (~8 µs a URL).
        for (const entry of canonicalEntries(record.value)) await this.onDeduped(Object.assign({}, shared, entry, { more: [] }), ctx.now());
      }
    }
  }

  /**
   * The engine undid the failed record's store writes and outputs; the host's copy in memory (and the
   * counts, cached queue heads, robots rules and budget derived from it) may still hold what the record
   * did: they are put back from the stores. A failed report still counts as received, so the host is
   * never left waiting on a report that cannot come back (a dead-lettered completion once stalled a host for good).
   */
  recordFailed(record: RecordOf<In>, ctx: ProcessorContext<Out>): void {
    this.ctx = ctx;
    ctx.metrics.count(`errors.${record.topic}`);
    this.budget?.undo();
    const host = record.value.host;
    const old = this.active.get(host);
    if (old) {
      this.frontier.account(old, -1);
      this.inFlight -= owedCount(old.leases);
      this.active.delete(host);
    }
    this.frontier.forget(host);
    this.robots.forget(host);
    const h = this.hosts.get(host);
    if (h && this.adopt(h)) this.arm(h, ctx.now());
    if (record.topic !== 'deduped') this.reportWithoutOutcome(record.value, ctx.now());
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

  /** Work due now: URLs ready or leased. Future recrawls alone leave a crawl caught up. */
  hasPendingWork(): boolean {
    const blocked = (this.budget?.exhausted() ?? false) || this.s.control.paused;
    return this.inFlight > 0 || (this.frontier.totals.ready > 0 && !blocked);
  }

  private async onDeduped(u: CanonicalUrl, now: number): Promise<void> {
    const h = this.host(u.host, u.url);
    const key = urlKey(h.host, u.url);
    const known = this.urls.get(key);
    const score = u.score ?? -1;
    if (known) {
      // A URL passed on again: more pages link to it (dedup reports 2, 4, 8, … in-links), or a better link.
      if ((u.inlinks > known.inlinks || score > known.score) && this.frontier.raise(h, key, known, Math.max(u.inlinks, known.inlinks), Math.max(score, known.score))) {
        this.ctx.metrics.count('raised');
        this.save(h);
      }
      return;
    }
    const decision = this.robots.decide(h.host, h.scheme, h.robots, now);
    if (decision.kind === 'refuse') return this.skip(h, u.url, decision.reason, u.depth, this.robots.refusalDetail(h.robots, decision.reason), u.source_url);
    if (this.robots.isFresh(h.robots, now) && !this.robots.allows(h.host, h.robots, u.url)) return this.skip(h, u.url, 'robots-disallowed', u.depth, '', u.source_url);
    const state: UrlState = {
      url: u.url, depth: u.depth, via: u.via, source_url: u.source_url, redirect_hops: u.redirect_hops, discovered_at: u.discovered_at,
      inlinks: Math.max(1, u.inlinks), priority_hint: u.priority_hint, changefreq: u.changefreq, lastmod: u.lastmod,
      sitemap_depth: u.sitemap_depth, phase: 'ready', queue_seq: 0, queue_rank: 0, attempt: 1, etag: '', last_modified: '', sha1: '',
      interval_ms: this.config.recrawl ? firstInterval(u, now, this.config) : 0, next_due_at: 0, fetches: 0, changes: 0, gone: 0, captured_at: 0,
      score, lost: 0,
    };
    this.frontier.enqueueReady(h, key, state, false);
    this.save(h);
    await this.tryRelease(h, now);
  }

  private async onFetched(r: FetchResult, now: number): Promise<void> {
    const h = this.active.get(r.host) ?? this.hosts.get(r.host);
    const verdict = judge(r);
    const key = urlKey(r.host, r.url);
    const report = h && reported(h.leases, r.lease_id || r.fetch_id, key, { address: r.address, epoch: r.lease_epoch, cut: verdict.throttled || verdict.failed }, now);
    if (!h || !report) {
      // A report no lease waits for: the redo of a fetch after a crash, or one whose lease was given up.
      this.ctx.metrics.count('stale-completions');
      return;
    }
    this.inFlight--;
    h.leases = report.book;
    if (r.kind === 'robots') {
      const outcome = this.robots.afterFetch(h.host, h.scheme, h.robots, r, now);
      this.ctx.metrics.count(`robots.${outcome.outcome}`);
      h.robots = outcome.state;
      if (outcome.text === null) this.ctx.store(robotsStore).delete(h.host);
      else if (outcome.text) this.ctx.store(robotsStore).put(h.host, outcome.text);
      // The Crawl-delay just read already applies to the next request.
      this.politeness.freed(h, report.lease, r, now);
      if (outcome.outcome === 'crawl-delay-too-long') {
        this.ctx.logger.warn(`${h.host}: robots.txt asks a ${this.robots.refusalDetail(h.robots, outcome.outcome)} (--max-crawl-delay): the host is skipped until robots.txt is read again`);
      }
      if (h.robots.status === 'rules' || h.robots.status === 'allow-all') queueSitemaps(this, h, outcome.sitemaps, now);
    } else {
      const { throttled, failed } = this.politeness.freed(h, report.lease, r, now);
      if (throttled) this.ctx.metrics.count('throttled');
      afterPage(this, h, r, throttled || failed, key);
    }
    this.save(h);
    await this.tryRelease(h, now);
  }

  /** A leased URL the fetch task gave back without a request: queued again, and the host a delay from now. */
  private async onUnfetched(u: UnfetchedUrl, now: number): Promise<void> {
    const h = this.active.get(u.host) ?? this.hosts.get(u.host);
    const report = h && reported(h.leases, u.lease_id, urlKey(u.host, u.url), { address: '', epoch: u.lease_epoch, cut: u.reason === 'lease-cut' }, now);
    if (!h || !report) {
      this.ctx.metrics.count('stale-completions');
      return;
    }
    this.inFlight--;
    h.leases = report.book;
    this.ctx.metrics.count(`given-back.${u.reason}`);
    h.slot = freedWithoutOutcome(h.slot, now);
    if (report.lease.kind === 'urls') requeue(this, h, u.url);
    this.save(h);
    await this.tryRelease(h, now);
  }

  /** A report that could not be handled still counts as reported, so its lease can end. */
  private reportWithoutOutcome(v: FetchResult | UnfetchedUrl, now: number): void {
    const h = this.active.get(v.host) ?? this.hosts.get(v.host);
    const report = h && reported(h.leases, v.lease_id || v.fetch_id, urlKey(v.host, v.url), { address: '', epoch: v.lease_epoch, cut: false }, now);
    if (!h || !report) return;
    this.inFlight--;
    h.leases = report.book;
    h.slot = freedWithoutOutcome(h.slot, now);
    this.save(h);
    this.arm(h, now);
  }

  /** Releases the host's next lease if it may go out now, else arms the host's timer. */
  private async tryRelease(h: HostState, now: number): Promise<void> {
    if (h.leases.open.length) {
      const lost = this.politeness.lostAt(h);
      if (now >= lost) {
        this.inFlight -= giveUpLeases(this, h, now);
        this.save(h);
      }
      else if (this.s.control.paused || !mayQueueBehind(h.leases, h.slot.failures)) return this.arm(h, lost);
      else return this.queueBehind(h, now, lost);
    }
    if (this.s.control.paused) return this.arm(h, pausedUntil(now));
    const allowed = this.politeness.nextAllowedStart(h);
    const robots = this.robots.decide(h.host, h.scheme, h.robots, now);
    // A host refused (robots.txt unreachable, a Crawl-delay over the bound) gets no request: its URLs
    // are dropped now, not after its delay, however long that is.
    if (now < allowed && robots.kind !== 'refuse') return this.arm(h, allowed);
    await this.frontier.promoteDue(h, now);
    this.save(h);
    if (h.queue.ready === 0) return this.idle(h);
    if (robots.kind === 'refuse') return this.dropReady(h, robots.reason);
    if (robots.kind === 'wait') return this.arm(h, robots.until);
    if (robots.kind === 'fetch') return this.releaseRobots(h, robots.url, robots.attempt, robots.hops, now);
    if (this.s.focusGate && !(await this.admitted(h, this.s.focusGate, now))) return;
    const { taken, budgetSpent } = await takeUrls(this, h, this.leaseSize(h));
    if (taken.length) return this.releaseUrls(h, taken, now, false);
    this.save(h);
    if (budgetSpent) return;
    if (h.queue.ready > 0) this.arm(h, now + 1);
    else await this.idle(h);
  }

  /** A next lease, pinned to the open one's server address so that it queues behind it in the same fetch task. */
  private async queueBehind(h: HostState, now: number, lost: number): Promise<void> {
    const fresh = this.robots.decide(h.host, h.scheme, h.robots, now).kind === 'ready';
    await this.frontier.promoteDue(h, now);
    // A focused crawl's gate is asked once per lease, a queued one too.
    if (fresh && h.queue.ready > 0 && this.s.focusGate && !(await this.admitted(h, this.s.focusGate, now))) return;
    const { taken } = fresh && h.queue.ready > 0 ? await takeUrls(this, h, this.leaseSize(h)) : { taken: [] };
    if (taken.length) return this.releaseUrls(h, taken, now, true);
    this.save(h);
    this.arm(h, lost);
  }

  private leaseSize(h: HostState): number {
    return this.politeness.leaseSize(h, this.config.maxPagesPerHost - h.queue.released);
  }

  private releaseUrls(h: HostState, taken: Awaited<ReturnType<typeof takeUrls>>['taken'], now: number, queued: boolean): void {
    const address = queued ? h.leases.address : '';
    const { slot, book, lease } = leased(h.slot, h.leases, h.host, now, taken.map((t) => ({ hi: t.key.hi, lo: t.key.lo })), queued);
    h.slot = slot;
    h.leases = book;
    const request = leaseRequest(h, lease, taken, now, this.config.recrawl, address);
    for (const t of taken) {
      this.urls.put(t.key, { ...t.u, phase: 'in-flight', queue_rank: t.rank });
      if (t.u.fetches > 0) this.ctx.metrics.count('recrawls');
    }
    this.inFlight += taken.length;
    this.ctx.metrics.count('leases');
    this.save(h);
    this.ctx.forward('scheduled', h.host, request);
    this.arm(h, this.politeness.lostAt(h));
  }

  private releaseRobots(h: HostState, url: string, attempt: number, hops: number, now: number): void {
    const { slot, book, lease } = leased(h.slot, h.leases, h.host, now, 'robots');
    h.slot = slot;
    h.leases = book;
    this.inFlight++;
    this.save(h);
    this.ctx.forward('scheduled', h.host, robotsRequest(h, lease, url, attempt, hops, now));
    this.arm(h, this.politeness.lostAt(h));
  }

  /** The host may crawl nothing now: its ready URLs are dropped, each recorded. */
  private async dropReady(h: HostState, reason: string): Promise<void> {
    await dropReadyUrls(this, h, reason, this.robots.refusalDetail(h.robots, reason));
    this.save(h);
    if (h.queue.ready > 0) this.arm(h, this.ctx.now() + 1);
    else await this.idle(h);
  }

  /** A URL that will not be fetched, and why: counted, and a `skipped` record a data engineer can query. */
  skip(h: HostState, url: string, reason: string, depth = 0, detail = '', sourceUrl = ''): void {
    this.ctx.metrics.count(`dropped.${reason}`);
    this.ctx.forward('skipped', h.host, { url, host: h.host, reason, detail, depth, source_url: sourceUrl, decided_at: this.ctx.now() });
  }

  /** A focused crawl: may the host release now, or do hosts with better URLs go first? Holding back is all it can do. */
  private async admitted(h: HostState, gate: FocusGate, now: number): Promise<boolean> {
    const rank = this.s.budget?.exhausted() ? undefined : await this.frontier.headRank(h);
    if (rank === undefined || gate.admit(h.host, rank, now)) return true;
    this.ctx.metrics.count('focus.held');
    this.arm(h, now + gate.holdMs);
    return false;
  }

  /** Nothing to release now: wait for the first recrawl, or leave the active set. */
  private async idle(h: HostState): Promise<void> {
    this.s.focusGate?.forget(h.host);
    this.save(h);
    if (h.queue.waiting > 0) return this.arm(h, Math.max(this.politeness.nextAllowedStart(h), await this.frontier.firstDue(h)));
    if (h.leases.open.length || h.queue.ready > 0) return;
    this.active.delete(h.host);
    this.armedAt.delete(h.host);
    this.frontier.forget(h.host);
  }

  private host(host: string, url: string): HostState {
    const h = this.active.get(host) ?? this.hosts.get(host) ?? newHostState(host, url.slice(0, url.indexOf(':')), this.politeness.newSlot());
    if (!this.active.has(host)) {
      this.active.set(host, h);
      this.frontier.account(h, +1);
    }
    return h;
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
    const { totals } = this.frontier;
    metrics.gauge('frontier', totals.ready - totals.readyRecrawls);
    metrics.gauge('recrawl.due', totals.readyRecrawls);
    metrics.gauge('recrawl.waiting', totals.waiting);
    metrics.gauge('in-flight', this.inFlight);
    metrics.gauge('hosts.active', this.active.size);
    metrics.gauge('hosts.waiting', this.armedAt.size);
    metrics.gauge('lease.loop-ms', Math.round(this.politeness.loopMs));
  }
}

export const scheduleProcessor = defineProcessor({
  name: 'schedule',
  description: 'Politeness and robots.txt: leases of a host\'s next URLs (one lease at a time, or a second queued behind it in the same fetch task), delays from the end of the last fetch, Retry-After, backoff, budgets; the most important URL first; recrawls when due; sitemaps.',
  inputs,
  outputs,
  stores: [hostsStore, urlsStore, readyQueueStore, waitingQueueStore, robotsStore],
  punctuateEveryMs: 10,
  delivery: 'Exactly once: leases, host timers and queue changes commit together with the input position. A URL redone or given back after a crash is reported once; a second report is ignored; a lease that stops reporting is released again once.',
  create: (s: ScheduleServices) => new Schedule(s),
});
