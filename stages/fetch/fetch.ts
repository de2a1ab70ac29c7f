// fetch: resolved → fetched (or unfetched). Performs the HTTP request of each leased URL, many hosts at
// once and one at a time per host, each its host's delay after the one before it ended (the fetch task
// paces a lease itself: no broker round trip per request), and records the outcome with its bounded,
// compressed body. A lease cut short by a failure, or released before this task started, is given
// back unsent (`unfetched`), and the schedule queues its URLs again.
import { defineProcessor, type Processor, type ProcessorContext, type RecordOf, type TopicValues } from '../../engine/api.js';
import { createHash } from 'node:crypto';
import type { FetchRequest, FetchResult } from '../../schemas/records.js';
import type { CrawlConfig } from '../../contract/config.js';
import { discoveredUrls, fetched, fetchReports, resolved, skipped, unfetched } from '../../contract/topics.js';
import { forwardOutcome } from '../../contract/fetch-report.js';
import { AddressGate } from '../../politeness/address-gate.js';
import { isIP } from 'node:net';
import { NetworkPolicy } from '../../fetching/network-policy.js';
import { HostTurns, type TurnEnded } from '../../politeness/host-turns.js';
import { LeaseCuts, pacingOf, releasedBeforeStart } from '../../politeness/request-pacing.js';
import type { FetchOutcome } from '../../fetching/http-fetcher.js';
import type { RenderResult } from '../../rendering/render-page.js';
import { hasChanged, recrawlAfter } from '../../recrawl/recrawl-policy.js';
import { fetchSitemap, sitemapProblem } from './sitemap-fetch.js';
import { renderFetched, wantsRender } from './render-step.js';
import type { Renderer } from '../../rendering/renderer.js';
import { parseRobotsTxt, type RobotsPolicy } from '../../robots/robots-policy.js';
import type { HttpFetcher } from '../../fetching/http-fetcher.js';
import { compressBodyAsync } from '../../fetching/body-codec.js';
import { truncationReason } from '../../warc/capture.js';
import type { CrawlObserver, FetchDone } from '../../contract/services.js';

const inputs = [resolved] as const;
/** Requests a fetch task has on the wire at once. */
const MAX_REQUESTS_IN_FLIGHT = 128;
/**
 * Records a fetch task holds at once: mostly leases' URLs waiting for their host's turn. Eight per
 * request slot keep every slot fed: hosts with a delay get leases of one or two URLs (so this is
 * hundreds of hosts a task), hosts without one are served as fast as slots free up. It was a whole
 * lease per slot (4,096); on 2,000 hosts the task then held ~2,000 waiting URLs, each a suspended
 * call with its record, context and place in line: ~70 MB of the 100,000-page crawl's heap, and GC
 * work at every collection (bench/levers.json). Records past it wait in the log, not in memory.
 */
const MAX_RECORDS_IN_PROCESS = MAX_REQUESTS_IN_FLIGHT * 8;
// skipped: what a sitemap dropped (entries off its host or on forbidden addresses, the rest after a limit).
const outputs = [fetched, fetchReports, discoveredUrls, unfetched, skipped] as const;
type In = TopicValues<typeof inputs>;
type Out = TopicValues<typeof outputs>;

/** What the fetch processor needs: the HTTP client, the configuration, someone to tell each outcome, a browser. */
export interface FetchServices {
  fetcher: HttpFetcher;
  config: CrawlConfig;
  observer: CrawlObserver;
  renderer?: Renderer;
  /** Shared by the process's fetch tasks; a task without one (tests) keeps its own. */
  hostTurns?: HostTurns;
}

class Fetch implements Processor<In, Out> {
  private startedAt = 0;
  /** When this task started, on its host turns' clock. */
  private turnsStartedAt = 0;
  private readonly turns: HostTurns;
  /** Requests on the wire. */
  private readonly inFlight = new Set<AbortController>();
  /** Aborts every wait before a request leaves (its turn, a slot, the address): a hand-over gives them back unsent. */
  private readonly stopWaiting = new AbortController();
  private handingOverNow = false;
  private abandoned = false;
  private readonly fetcher: HttpFetcher;
  private readonly config: CrawlConfig;
  private readonly renderer: Renderer | undefined;

  private readonly gate: AddressGate;
  /** Requests this task has on the wire: every one in the process holds a slot (one key, one limit). */
  private readonly requestSlots = new AddressGate(MAX_REQUESTS_IN_FLIGHT);
  private readonly cuts = new LeaseCuts();
  /** robots.txt as this task last fetched it, per host: rendering browsers' requests obey it. */
  private readonly robots = new Map<string, RobotsPolicy>();
  /** The fetcher's policy, to tell a sitemap entry naming a forbidden address from one merely off-host. */
  private readonly policy: NetworkPolicy;

  constructor(private readonly s: FetchServices) {
    this.fetcher = s.fetcher;
    this.config = s.config;
    this.renderer = s.renderer;
    this.gate = new AddressGate(s.config.maxInFlightPerIp);
    this.turns = s.hostTurns ?? new HostTurns();
    this.policy = new NetworkPolicy(s.config.allowNetworks);
  }

  init(ctx: ProcessorContext<Out>): void {
    this.startedAt = ctx.now();
    this.turnsStartedAt = this.turns.now();
  }

  async process(record: RecordOf<In>, ctx: ProcessorContext<Out>): Promise<void> {
    const request = record.value;
    if (releasedBeforeStart(request, record.timestamp, this.startedAt)) return this.giveBack(ctx, request, 'restart', 'released before this fetch task started');
    // Every request takes its host's turn (HostTurns), so requests to a host never leave closer than
    // its delay, whichever task instance sends them. Nothing may be awaited before the turn is asked
    // for: turns are granted in the order they are asked, which is the lease's order. Thousands of
    // records wait here, so a waiting one holds only its record and its place in the host's line.
    const turnEnded = await this.turns.turn(request.host, pacingOf(request, this.turnsStartedAt), this.stopWaiting.signal);
    return this.inTurn(record, ctx, turnEnded);
  }

  /** The record's turn came, or its wait was given up (`turnEnded` undefined). */
  private async inTurn(record: RecordOf<In>, ctx: ProcessorContext<Out>, turnEnded: TurnEnded | undefined): Promise<void> {
    const request = record.value;
    let release: (() => void) | undefined;
    let slot: (() => void) | undefined;
    let abort: AbortController | undefined;
    /** A request left (or may have): the host's next one waits a delay after it, whatever came of it. */
    let requestSent = false;
    // The request is over (its answer read, its page rendered): the host's next request may follow a
    // delay from now, once a failure has cut the rest of its generation short. Recording it comes after.
    const requestEnded = (o?: FetchOutcome) => {
      if (o) this.cuts.ended(request, { status: o.status, retry_after_ms: o.retryAfterMs, error: o.error });
      release?.();
      slot?.();
      turnEnded?.(requestSent);
      release = slot = turnEnded = undefined;
    };
    try {
      // Abandoned while waiting its turn: the task's new owner gives it back.
      if (this.abandoned) return;
      if (turnEnded && this.cuts.isCut(request)) return this.giveBack(ctx, request, 'lease-cut', 'an earlier request of the host failed or was throttled');
      // Records of a lease wait for their host's turn; those whose turn came share the task's request slots.
      if (turnEnded) slot = await this.requestSlots.acquire('', this.stopWaiting.signal).catch(() => undefined);
      // One server may carry many host names: at most --max-in-flight-per-ip requests to it at once.
      if (slot) release = await this.gate.acquire(request.address || record.key, this.stopWaiting.signal).catch(() => undefined);
      if (this.abandoned) return; // abandoned while waiting: the task's new owner gives it back
      // The task is moving to another worker: what has not left is given back, whose next owner would
      // only give it back too (released before it started), and the move need not wait for its turn.
      if (!release || this.handingOverNow) return this.giveBack(ctx, request, 'hand-over', 'the fetch task moved to another worker before the request left');
      abort = new AbortController();
      this.inFlight.add(abort);
      ctx.metrics.gauge('address.busiest', this.gate.busiest);
      requestSent = true;
      if (request.kind === 'sitemap') {
        const refused = (h: string) => (isIP(h) ? ((v) => (v.allowed ? undefined : v.reason))(this.policy.check(h)) : undefined);
        const { outcome, summary, found, urls, skipped, kept, cut, feedIntervalMs } = await fetchSitemap(this.fetcher, request, abort.signal, ctx.now, this.config.maxBodyBytes, refused);
        this.observe(request, outcome);
        if (abort.signal.aborted) return; // abandoned: the task's new owner fetches it again
        requestEnded(outcome);
        // Only a successful answer is read as a sitemap: a 404 page is no sitemap, not a broken one.
        const problem = outcome.status >= 200 && outcome.status < 300 ? sitemapProblem(summary) : '';
        if (problem) {
          // Thousands of hosts answer HTML for /sitemap.xml: counted by kind, said once (the observer).
          const kind = problem.slice(0, problem.indexOf(':'));
          ctx.metrics.count(`notices.${kind}`);
          this.s.observer.notice?.(kind, `${request.url}: ${problem}`);
        }
        ctx.metrics.count('sitemap-urls', urls);
        if (feedIntervalMs !== undefined) ctx.metrics.count('feeds');
        // The listed URLs travel keyed by their host: the sitemap's own (the parser refused others), a feed's entries' own.
        for (const { host, batch } of found) ctx.forward('discovered-urls', host, batch);
        for (const row of skipped) {
          // Counted as normalize's and schedule's drops are: the summary line and urls_dropped_total.
          ctx.metrics.count(`dropped.${row.reason}`, row.url_count);
          ctx.forward('skipped', row.host, row);
        }
        // The body is kept up to the page cap: an archive of the crawl holds what the sitemap said.
        const truncation = outcome.incomplete ? truncationReason(outcome.errorKind) : cut ? 'length' : '';
        const sent: Record<string, string> = {}; // as fetchSitemap sent them: a feed refetched is conditional
        if (request.if_none_match) sent['if-none-match'] = request.if_none_match;
        if (request.if_modified_since) sent['if-modified-since'] = request.if_modified_since;
        return this.record(ctx, request, { ...outcome, body: kept, error: outcome.error || problem }, sent, outcome.sha1, urls, truncation, undefined, feedIntervalMs);
      }
      const headers: Record<string, string> = {};
      if (request.if_none_match) headers['if-none-match'] = request.if_none_match;
      if (request.if_modified_since) headers['if-modified-since'] = request.if_modified_since;
      const outcome = await this.fetcher.fetch(request.url, { headers, signal: abort.signal, address: request.address || undefined });
      this.observe(request, outcome);
      if (abort.signal.aborted) return;
      const sha1 = outcome.body.length ? createHash('sha1').update(outcome.body).digest('hex') : '';
      if (request.kind === 'robots' && this.renderer) this.rememberRobots(request.url, outcome);
      const rendered = this.renderer && wantsRender(this.config.render, request, outcome)
        ? await renderFetched({ renderer: this.renderer, fetcher: this.fetcher, mode: this.config.render, productToken: this.config.productToken,
          robots: this.robots, signal: abort.signal, now: ctx.now, onFetched: (kind, o) => this.observe({ kind, host: request.host }, o) }, request, outcome)
        : undefined;
      if (abort.signal.aborted) return;
      requestEnded(outcome);
      if (rendered) {
        ctx.metrics.count(rendered.error ? 'render-errors' : 'rendered');
        ctx.metrics.count('requests.subresource', rendered.subrequests.filter((s) => s.outcome.startsWith('fetched')).length);
      }
      return await this.record(ctx, request, outcome, headers, sha1, 0, outcome.incomplete ? truncationReason(outcome.errorKind) : '', rendered);
    } finally {
      requestEnded();
      if (abort) this.inFlight.delete(abort);
    }
  }

  /** A leased URL handed back without a request: the schedule queues it again. */
  private giveBack(ctx: ProcessorContext<Out>, request: FetchRequest, reason: 'restart' | 'lease-cut' | 'hand-over', detail: string): void {
    ctx.metrics.count(`given-back.${reason}`);
    ctx.forward('unfetched', request.host, {
      fetch_id: request.fetch_id, lease_id: request.lease_id || request.fetch_id, lease_epoch: request.lease_epoch, url: request.url,
      host: request.host, reason, detail, returned_at: ctx.now(),
    });
  }

  /** Every request that left, abandoned ones too: the server may have seen it. */
  private observe(r: { kind: FetchDone['kind']; host: string }, o: FetchOutcome): void {
    this.s.observer.fetchDone({
      kind: r.kind, status: o.status, errorKind: o.errorKind, truncated: o.truncated, seconds: o.elapsedMs / 1000, wireBytes: o.wireBytes,
      host: r.host, error: o.error,
    });
  }

  /**
   * The fetched record: the outcome, the body (compressed), validators and the URL's recrawl decision.
   * @param truncation WARC-Truncated for the kept body ('' when whole)
   */
  private async record(ctx: ProcessorContext<Out>, request: FetchRequest, outcome: FetchOutcome, sent: Record<string, string>, sha1: string,
    sitemapUrls: number, truncation: string, rendered?: RenderResult, feedIntervalMs?: number): Promise<void> {
    const stored = await compressBodyAsync(outcome.body);
    const dom = rendered?.html ? await compressBodyAsync(Buffer.from(rendered.html, 'utf8')) : undefined;
    const changed = hasChanged(outcome.status, sha1, request.previous_sha1);
    const recrawl = recrawlAfter(request, { status: outcome.status, changed, startedAt: outcome.startedAt, feedIntervalMs }, this.config);
    const result: FetchResult = {
      fetch_id: request.fetch_id,
      url: request.url,
      host: request.host,
      kind: request.kind,
      depth: request.depth,
      attempt: request.attempt,
      via: request.via,
      source_url: request.source_url,
      redirect_hops: request.redirect_hops,
      status: outcome.status,
      error: outcome.error,
      final_url: outcome.location || request.url,
      redirect_chain: request.via === 'redirect' && request.source_url ? [request.source_url] : [],
      headers: outcome.headers,
      started_at: outcome.startedAt,
      elapsed_ms: Math.round(outcome.elapsedMs),
      ttfb_ms: Math.round(outcome.ttfbMs),
      bytes: outcome.bytes,
      wire_bytes: outcome.wireBytes,
      content_type: outcome.contentType,
      charset: outcome.charset,
      truncated: outcome.truncated,
      retry_after_ms: outcome.retryAfterMs,
      conditional: Object.keys(sent).length > 0,
      remote_address: outcome.remoteAddress,
      body_encoding: stored.encoding,
      body: stored.bytes,
      body_sha1: sha1,
      etag: outcome.headers.etag ?? '',
      last_modified: outcome.headers['last-modified'] ?? '',
      changed,
      priority: request.priority,
      recrawl_interval_ms: recrawl.intervalMs,
      next_due_at: recrawl.nextDueAt,
      sitemap_depth: request.sitemap_depth,
      sitemap_urls: sitemapUrls,
      rendered_encoding: dom?.encoding ?? 'identity',
      rendered_body: dom?.bytes ?? Buffer.alloc(0),
      render_error: rendered?.error ?? '',
      subrequests: (rendered?.subrequests ?? []).map((s) => ({ url: s.url, resource_type: s.resourceType, outcome: s.outcome })),
      http_version: outcome.httpVersion,
      status_text: outcome.statusText,
      request_method: outcome.method,
      request_headers: outcome.requestHeaders.map(([name, value]) => ({ name, value })),
      response_headers: outcome.responseHeaders.map(([name, value]) => ({ name, value })),
      truncation: outcome.status > 0 ? truncation : '',
      previous_sha1: request.previous_sha1,
      previous_captured_at: request.previous_captured_at,
      tls_problem: outcome.tlsProblem,
      lease_id: request.lease_id,
      lease_epoch: request.lease_epoch,
      address: request.address,
    };
    ctx.metrics.count(request.kind === 'robots' ? 'robots-requests' : request.kind === 'sitemap' ? 'sitemap-requests' : 'requests');
    // A sitemap that is no sitemap has its error on the row but is a notice (counted there), not a failed request.
    if (outcome.errorKind) ctx.metrics.count(`errors.${outcome.errorKind}`);
    // Whether the crawl reached anything at all (crawl exits 4 when not one URL got a response).
    if (outcome.status > 0 && request.kind === 'page') ctx.metrics.count(`status.${Math.floor(outcome.status / 100)}xx`);
    if (outcome.status > 0 && request.kind === 'sitemap') ctx.metrics.count('responses.sitemap');
    if (outcome.status === 304) ctx.metrics.count('not-modified');
    ctx.metrics.count('bytes', outcome.bytes);
    forwardOutcome(ctx, result);
  }

  private rememberRobots(url: string, outcome: FetchOutcome): void {
    const host = new URL(url).host;
    const whole = outcome.status >= 200 && outcome.status < 300 && !outcome.error;
    if (whole) this.robots.set(host, parseRobotsTxt(outcome.body.toString('utf8'), url, this.config.productToken));
    else this.robots.delete(host); // read again, through the slot, before a render needs it
  }

  /** Moving to another worker: nothing more leaves; requests on the wire are answered and recorded. */
  handingOver(): void {
    this.handingOverNow = true;
    this.stopWaiting.abort();
  }

  abandon(): void {
    // Close our connections now: the new owner may start fetching this host after one delay.
    this.abandoned = true;
    this.stopWaiting.abort();
    for (const a of this.inFlight) a.abort();
  }
}

export const fetchProcessor = defineProcessor({
  name: 'fetch',
  description: 'HTTP with undici: connection reuse, DNS cache, connect/header/total timeouts, 10 MB cap before and after decompression, no automatic redirects, private networks refused.',
  inputs,
  outputs,
  stores: [],
  // Keyed by server address: many requests of one key run at once, up to the address gate's limit. A
  // record waiting for its host's turn holds no request slot: a few hosts' leases cannot crowd out the rest.
  concurrency: { maxInFlight: MAX_RECORDS_IN_PROCESS, perKeyOrder: false },
  delivery: 'At least once at the server: after a crash, requests that were in flight are given back and sent again (a host delay after the schedule learns of it); the outcome is recorded once.',
  create: (s: FetchServices) => new Fetch(s),
});
