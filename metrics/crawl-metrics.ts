// The crawler's Prometheus metrics (prom-client), one registry per process. Events are counted as
// they happen; the state gauges (frontier, due URLs, hosts waiting, in flight, lag) are read from a
// synchronous callback at scrape time, so a scrape costs O(gauges) and never waits on the crawl.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const PREFIX = 'crawlstream_';
export const FETCH_KINDS = ['page', 'robots', 'sitemap', 'subresource'] as const;
export type FetchKind = (typeof FETCH_KINDS)[number];

export interface LagEntry {
  processor: string;
  partition: number;
  records: number;
}

export interface GaugeSnapshot {
  /** URLs waiting in the frontier. */
  frontier: number;
  /** URLs whose recrawl is due now. */
  recrawlDue: number;
  /** Hosts with URLs ready but held back by politeness. */
  hostsWaiting: number;
  /** Requests in flight. */
  inFlight: number;
  /** Records not yet processed, per task. */
  lag: LagEntry[];
}

/** Must return at once: it runs inside the scrape. */
export type GaugeSource = () => GaugeSnapshot;

export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

export interface CrawlMetricsOptions {
  /** Process metrics (CPU, memory, event loop lag, GC) with the crawlstream_ prefix; default true. */
  defaultMetrics?: boolean;
  logger?: { warn(message: string): void };
}

/** Label values are bounded: anything but a short word becomes 'other', so no input can mint series. */
const LABEL = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
function label(v: unknown): string {
  const s = String(v);
  return LABEL.test(s) ? s : 'other';
}

function count(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
}

/**
 * The `outcome` label of a fetch: 'truncated' when the body was cut, else the fetcher's error kind
 * (e.g. 'timeout', 'dns'), else the status class ('2xx' … '5xx').
 */
export function fetchOutcome(status: number, errorKind: string, truncated: boolean): string {
  if (truncated) return 'truncated';
  if (errorKind) return label(errorKind);
  if (status >= 100 && status < 600) return `${Math.floor(status / 100)}xx`;
  return status === 0 ? 'no-response' : 'other';
}

export class CrawlMetrics {
  readonly registry = new Registry();
  private source: GaugeSource | undefined;
  private sourceFailures = 0;
  private readonly logger: CrawlMetricsOptions['logger'];

  private readonly fetches = new Counter({
    name: `${PREFIX}fetches_total`, help: 'Fetches finished, by kind and outcome (status class, truncated, or error kind).',
    labelNames: ['kind', 'outcome'] as const, registers: [this.registry],
  });
  private readonly fetchSeconds = new Histogram({
    name: `${PREFIX}fetch_duration_seconds`, help: 'Time from sending a request to the end of its body.',
    labelNames: ['kind'] as const, buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers: [this.registry],
  });
  private readonly bytes = new Counter({
    name: `${PREFIX}bytes_total`, help: 'Response bytes received on the wire (before decompression).',
    labelNames: ['kind'] as const, registers: [this.registry],
  });
  private readonly dropped = new Counter({
    name: `${PREFIX}urls_dropped_total`, help: 'URLs dropped without a fetch, by reason.',
    labelNames: ['reason'] as const, registers: [this.registry],
  });
  private readonly records = new Counter({
    name: `${PREFIX}records_total`, help: 'Records produced, by topic.', labelNames: ['topic'] as const, registers: [this.registry],
  });
  private readonly sourceErrors = new Counter({
    name: `${PREFIX}metrics_source_errors_total`, help: 'Scrapes whose gauge source threw; the state gauges then keep their last values.',
    registers: [this.registry],
  });
  private readonly frontier = this.gauge('frontier_urls', 'URLs waiting in the frontier.');
  private readonly recrawlDue = this.gauge('recrawl_due_urls', 'URLs whose recrawl is due.');
  private readonly hostsWaiting = this.gauge('hosts_waiting', 'Hosts with URLs ready but held back by politeness.');
  private readonly inFlight = this.gauge('fetches_in_flight', 'Requests in flight.');
  private readonly lag = new Gauge({
    name: `${PREFIX}task_lag_records`, help: 'Records waiting to be processed, per processor and partition.',
    labelNames: ['processor', 'partition'] as const, registers: [this.registry],
  });

  constructor(options: CrawlMetricsOptions = {}) {
    this.logger = options.logger;
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
  }

  private gauge(name: string, help: string): Gauge {
    return new Gauge({ name: `${PREFIX}${name}`, help, registers: [this.registry] });
  }

  fetchDone(kind: FetchKind, outcome: string, seconds: number, wireBytes: number): void {
    const k = FETCH_KINDS.includes(kind) ? kind : 'other';
    this.fetches.inc({ kind: k, outcome: label(outcome) });
    if (Number.isFinite(seconds) && seconds >= 0) this.fetchSeconds.observe({ kind: k }, seconds);
    const b = count(wireBytes);
    if (b > 0) this.bytes.inc({ kind: k }, b);
  }

  urlDropped(reason: string, n = 1): void {
    const c = count(n);
    if (c > 0) this.dropped.inc({ reason: label(reason) }, c);
  }

  recordsProduced(topic: string, n = 1): void {
    const c = count(n);
    if (c > 0) this.records.inc({ topic: label(topic) }, c);
  }

  /** Read once per scrape; replaces any earlier source (undefined removes it). */
  setGaugeSource(source: GaugeSource | undefined): void {
    this.source = source;
  }

  /** The exposition text; what GET /metrics serves. */
  async metrics(): Promise<string> {
    this.readGauges();
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** What metrics() serves, as prom-client's JSON: how a worker thread hands its metrics to the process (AggregatorRegistry). */
  async metricsJson(): Promise<MetricsJson> {
    this.readGauges();
    return this.registry.getMetricsAsJSON();
  }

  /** Every series name a scrape can carry (histograms as _bucket, _sum, _count), e.g. to check dashboards. */
  async seriesNames(): Promise<string[]> {
    const names: string[] = [];
    for (const m of await this.registry.getMetricsAsJSON()) {
      const type = String(m.type);
      if (type === 'histogram') names.push(`${m.name}_bucket`, `${m.name}_sum`, `${m.name}_count`);
      else if (type === 'summary') names.push(m.name, `${m.name}_sum`, `${m.name}_count`);
      else names.push(m.name);
    }
    return names;
  }

  private readGauges(): void {
    if (!this.source) return;
    let s: GaugeSnapshot;
    try {
      s = this.source();
    } catch (err) {
      this.sourceErrors.inc();
      // The first failure and then every 100th: a broken source must be heard, not flood the log.
      if (this.sourceFailures++ % 100 === 0) {
        this.logger?.warn(`metrics: the gauge source threw (${this.sourceFailures} times so far), serving the last values: ${(err as Error)?.message ?? err}`);
      }
      return;
    }
    this.frontier.set(count(s?.frontier));
    this.recrawlDue.set(count(s?.recrawlDue));
    this.hostsWaiting.set(count(s?.hostsWaiting));
    this.inFlight.set(count(s?.inFlight));
    // Reset so a partition this process no longer owns stops being reported.
    this.lag.reset();
    for (const e of Array.isArray(s?.lag) ? s.lag : []) {
      this.lag.set({ processor: label(e?.processor), partition: label(e?.partition) }, count(e?.records));
    }
  }
}
