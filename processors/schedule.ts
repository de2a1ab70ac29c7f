// schedule: deduped + fetched → scheduled. The politeness core (DESIGN §3.1, §3.2).
//
// A host's next URL is released only when (1) nothing is in flight for the host — the fetched topic,
// co-partitioned with this task, tells us when the last fetch FINISHED — and (2) the host's timer,
// set from that finish time plus max(default delay, Crawl-delay, Retry-After, backoff), has passed,
// and (3) robots.txt has been read (fetched first, through the same one-at-a-time slot). A fetcher
// lagging behind therefore delays the host instead of letting releases pile into a burst.
import {
  defineProcessor, type KeyValueStore, type Processor, type ProcessorContext, type RecordOf, type RuntimeControl, type TopicValues,
} from '../engine/api.js';
import type { CanonicalUrl, FetchRequest, FetchResult } from '../schemas/records.js';
import type { CrawlConfig } from '../crawl/config.js';
import { deduped, fetched, scheduled } from '../crawl/topics.js';
import { hostsStore, newHostState, robotsStore, type HostState } from './host-state.js';
import { HostFrontier, hostQueueStore, type QueuedUrl } from './host-frontier.js';
import { TimerHeap } from './timer-heap.js';
import type { CrawlBudget } from './crawl-budget.js';
import { RobotsGate } from './robots-gate.js';

const MAX_BACKOFF_MS = 5 * 60_000;
const MIN_BACKOFF_BASE_MS = 250;
const MAX_RETRY_AFTER_MS = 60 * 60_000;
/** Disallowed URLs are dropped without a request; bound the work one release may do. */
const MAX_DROPS_PER_RELEASE = 512;

const inputs = [fetched, deduped] as const;
const outputs = [scheduled] as const;
type In = TopicValues<typeof inputs>;
type Out = TopicValues<typeof outputs>;

export interface ScheduleServices {
  config: CrawlConfig;
  /** The global page budget (--max-pages), shared by the schedule tasks of one process. */
  budget?: CrawlBudget;
  /** Kafka pauses releases while the partition count grows (crawlstream scale). */
  control: RuntimeControl;
}

export class Schedule implements Processor<In, Out> {
  private hosts!: KeyValueStore<string, HostState>;
  private frontier!: HostFrontier;
  private robots!: RobotsGate;
  private readonly active = new Map<string, HostState>();
  private readonly timers = new TimerHeap();
  private readonly armedAt = new Map<string, number>();
  private queuedTotal = 0;
  private inFlightTotal = 0;
  private ctx!: ProcessorContext<Out>;
  private readonly config: CrawlConfig;
  private readonly budget: CrawlBudget | undefined;
  private readonly control: RuntimeControl;

  constructor(services: ScheduleServices) {
    this.config = services.config;
    this.budget = services.budget;
    this.control = services.control;
  }

  async init(ctx: ProcessorContext<Out>): Promise<void> {
    this.ctx = ctx;
    this.hosts = ctx.store(hostsStore);
    this.frontier = new HostFrontier(ctx.store(hostQueueStore));
    this.robots = new RobotsGate(ctx.store(robotsStore), this.config);
    for await (const [host, h] of this.hosts.entries()) {
      this.budget?.addUsed(h.released);
      if (h.queued === 0 && !h.inFlight) continue;
      this.active.set(host, h);
      this.queuedTotal += h.queued;
      if (h.inFlight) this.inFlightTotal++;
      else this.arm(h, h.nextFetchAt);
    }
    this.reportGauges(ctx.now());
  }

  async process(record: RecordOf<In>, ctx: ProcessorContext<Out>): Promise<void> {
    this.ctx = ctx;
    switch (record.topic) {
      case 'fetched':
        return this.onFetched(record.value, ctx.now());
      case 'deduped':
        return this.onDiscovered(record.value, ctx.now());
    }
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
    this.reportGauges(now);
  }

  hasPendingWork(): boolean {
    const blocked = (this.budget?.exhausted() ?? false) || this.control.paused;
    return this.inFlightTotal > 0 || (this.queuedTotal > 0 && !blocked);
  }

  private async onDiscovered(u: CanonicalUrl, now: number): Promise<void> {
    const { config } = this;
    const { metrics } = this.ctx;
    const h = this.host(u.host, u.url);
    if (h.admitted >= config.maxPagesPerHost) return metrics.count('dropped.host-budget');
    if (h.robotsGaveUpUntil > now) return metrics.count('dropped.robots-unreachable');
    if (this.robots.isFresh(h, now) && !this.robots.allows(h, u.url)) return metrics.count('dropped.robots-disallowed');
    this.enqueue(h, { url: u.url, depth: u.depth, attempt: 1, via: u.via, source_url: u.source_url, redirect_hops: u.redirect_hops, discovered_at: u.discovered_at });
    h.admitted++;
    this.save(h);
    await this.tryRelease(h, now);
  }

  private async onFetched(r: FetchResult, now: number): Promise<void> {
    const h = this.active.get(r.host) ?? this.hosts.get(r.host);
    if (!h || r.fetch_id !== h.inFlight) {
      // A completion we no longer wait for: the redo of a fetch after a crash, already accounted.
      this.ctx.metrics.count('stale-completions');
      return;
    }
    h.inFlight = '';
    this.inFlightTotal--;
    // Measured from when the fetch ended (or when we learn of it, if later), never from release.
    const finished = Math.max(now, r.started_at + r.elapsed_ms);
    if (r.kind === 'robots') {
      this.onRobotsFetched(h, r, now); // may change the delay (Crawl-delay): the next request already obeys it
      h.nextFetchAt = Math.max(h.nextFetchAt, finished + h.delayMs);
    } else {
      h.nextFetchAt = finished + h.delayMs;
      this.onPageFetched(h, r, now);
    }
    this.save(h);
    await this.tryRelease(h, now);
  }

  private onPageFetched(h: HostState, r: FetchResult, now: number): void {
    const { config } = this;
    const { metrics } = this.ctx;
    const errorKind = r.error.split(':', 1)[0];
    const throttled = r.status === 429 || (r.status === 503 && r.retry_after_ms > 0);
    const failed = r.status >= 500 || (r.status === 0 && RETRYABLE_ERRORS.has(errorKind));
    if (throttled) {
      h.nextFetchAt = Math.max(h.nextFetchAt, now + Math.min(r.retry_after_ms || h.delayMs, MAX_RETRY_AFTER_MS));
      metrics.count('throttled');
    } else if (failed) {
      // The whole host slows down after a failure; the growth stops at 2^maxAttempts so that a
      // host with many broken URLs is not starved, and a zero delay still backs off.
      h.failures++;
      const backoff = Math.max(h.delayMs, MIN_BACKOFF_BASE_MS) * 2 ** Math.min(h.failures, config.maxAttempts);
      h.nextFetchAt = Math.max(h.nextFetchAt, now + Math.min(backoff, MAX_BACKOFF_MS));
    } else {
      h.failures = 0;
    }
    metrics.count('fetched');
    if ((throttled || failed) && r.attempt < config.maxAttempts) {
      this.enqueue(h, { url: r.url, depth: r.depth, attempt: r.attempt + 1, via: r.via, source_url: r.source_url, redirect_hops: r.redirect_hops, discovered_at: r.started_at });
      metrics.count('retries');
    } else if (throttled || failed) {
      metrics.count('gave-up');
    }
  }

  private onRobotsFetched(h: HostState, r: FetchResult, now: number): void {
    const outcome = this.robots.onFetched(h, r, now);
    this.ctx.metrics.count(`robots.${outcome}`);
  }

  /** Releases the host's next fetch if its slot is free and its timer has passed. */
  private async tryRelease(h: HostState, now: number): Promise<void> {
    if (h.inFlight) return;
    if (this.control.paused) return this.arm(h, now + 200);
    if (h.queued === 0) return this.deactivate(h);
    if (now < h.nextFetchAt) return this.arm(h, h.nextFetchAt);
    const robots = this.robots.state(h, now);
    if (robots.kind === 'wait') return this.arm(h, robots.until);
    if (robots.kind === 'fetch') return this.release(h, { url: robots.url, depth: 0, attempt: h.robotsAttempts + 1, via: 'seed', source_url: '', redirect_hops: h.robotsHops, discovered_at: now }, 'robots', now);
    if (robots.kind === 'give-up') {
      await this.dropQueue(h, 'dropped.robots-unreachable');
      return this.deactivate(h);
    }
    for (let drops = 0; drops < MAX_DROPS_PER_RELEASE; drops++) {
      if (this.budget?.exhausted()) return;
      const next = await this.frontier.pop(h.host, h.queued);
      if (!next) break;
      h.queued--;
      this.queuedTotal--;
      const [, url] = next;
      if (!this.robots.allows(h, url.url)) {
        this.ctx.metrics.count('dropped.robots-disallowed');
        this.save(h);
        continue;
      }
      if (this.budget && !this.budget.tryTake()) {
        this.enqueue(h, url); // another task took the last page of the budget while we read the queue
        this.save(h);
        return;
      }
      return this.release(h, url, 'page', now);
    }
    this.save(h);
    if (h.queued > 0) this.arm(h, now + 1);
    else this.deactivate(h);
  }

  private release(h: HostState, u: QueuedUrl, kind: 'page' | 'robots', now: number): void {
    const request: FetchRequest = {
      fetch_id: `${h.host}#${++h.releaseSeq}`,
      url: u.url, host: h.host, kind, depth: u.depth, attempt: u.attempt, via: u.via, source_url: u.source_url,
      redirect_hops: u.redirect_hops, delay_ms: h.delayMs, released_at: now, if_none_match: '', if_modified_since: '',
    };
    h.inFlight = request.fetch_id;
    h.inFlightSince = now;
    if (kind === 'page') h.released++;
    this.inFlightTotal++;
    this.save(h);
    this.ctx.forward('scheduled', h.host, request);
  }

  private enqueue(h: HostState, u: QueuedUrl): void {
    this.frontier.push({ host: h.host, depth: u.depth, seq: ++h.enqueueSeq }, u);
    h.queued++;
    this.queuedTotal++;
    this.active.set(h.host, h);
  }

  private async dropQueue(h: HostState, reason: string): Promise<void> {
    while (h.queued > 0 && (await this.frontier.pop(h.host, h.queued))) {
      h.queued--;
      this.queuedTotal--;
      this.ctx.metrics.count(reason);
    }
    this.save(h);
  }

  private host(host: string, url: string): HostState {
    let h = this.active.get(host) ?? this.hosts.get(host);
    if (!h) h = newHostState(host, url.slice(0, url.indexOf(':')), this.config.defaultDelayMs);
    this.active.set(host, h);
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

  private deactivate(h: HostState): void {
    if (h.inFlight || h.queued > 0) return;
    this.active.delete(h.host);
    this.armedAt.delete(h.host);
    this.frontier.forget(h.host);
  }

  private lastGauges = 0;
  private reportGauges(now: number): void {
    if (now - this.lastGauges < 500) return;
    this.lastGauges = now;
    let waiting = 0;
    for (const h of this.active.values()) if (!h.inFlight && h.queued > 0 && h.nextFetchAt > now) waiting++;
    this.ctx.metrics.gauge('frontier', this.queuedTotal);
    this.ctx.metrics.gauge('in-flight', this.inFlightTotal);
    this.ctx.metrics.gauge('hosts.waiting', waiting);
    this.ctx.metrics.gauge('hosts.active', this.active.size);
  }
}

const RETRYABLE_ERRORS = new Set(['timeout', 'connect', 'dns', 'protocol']);

export const scheduleProcessor = defineProcessor({
  name: 'schedule',
  description: 'Politeness and robots.txt: one request in flight per host, delays from the end of the last fetch, Retry-After, backoff, budgets, breadth-first per host.',
  inputs,
  outputs,
  stores: [hostsStore, hostQueueStore, robotsStore],
  punctuateEveryMs: 10,
  delivery: 'Exactly once: releases, host timers and queue changes commit together with the input position. A fetch redone after a crash is released only once; its second completion is ignored.',
  create: (s: ScheduleServices) => new Schedule(s),
});
