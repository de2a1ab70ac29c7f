// The crawl's Prometheus metrics (--metrics-port), fed from three places without the engine knowing
// anything of the crawl: the fetch processor tells each outcome (the `observer` service); every
// durable task commit tells the records it wrote per topic and how its counters grew (URLs rejected
// by normalize, dropped by schedule); and a scrape reads the tasks' gauges and lag at that moment.
import type { CommitReport, StreamTask } from '../engine/task/stream-task.js';
import { CrawlMetrics, fetchOutcome, type FetchKind, type LagEntry } from '../metrics/crawl-metrics.js';
import { serveMetrics, type MetricsServer } from '../metrics/metrics-server.js';
import type { Logger } from '../engine/api.js';
import type { CrawlObserver, CrawlServices, FetchDone } from '../contract/services.js';
import { crawlStats } from './stats.js';

/** Counters of the crawl's processors that stand for a URL dropped without a fetch, by reason. */
const DROPPED = [
  { processor: 'normalize', prefix: 'rejected.' },
  { processor: 'schedule', prefix: 'dropped.' },
  { processor: 'fetch', prefix: 'dropped.' },
] as const;

/** What a scrape reads: the tasks of this process and their lag. Must return at once. */
export interface TaskView {
  tasks: readonly StreamTask<CrawlServices>[];
  lag: LagEntry[];
}

export class CrawlTelemetry implements CrawlObserver {
  readonly metrics: CrawlMetrics;

  /** `defaultMetrics`: the process's own (CPU, memory); off in a worker thread, whose process serves them once. */
  constructor(logger: Logger, options: { defaultMetrics?: boolean } = {}) {
    this.metrics = new CrawlMetrics({ logger, defaultMetrics: options.defaultMetrics });
  }

  fetchDone(f: FetchDone): void {
    this.metrics.fetchDone(f.kind as FetchKind, fetchOutcome(f.status, f.errorKind, f.truncated), f.seconds, f.wireBytes);
  }

  /** For the runtimes' onCommitted. */
  readonly onCommitted = (r: CommitReport): void => {
    for (const [topic, n] of r.produced) this.metrics.recordsProduced(topic, n);
    for (const d of DROPPED) {
      if (r.processor !== d.processor) continue;
      for (const [name, n] of r.counted) if (name.startsWith(d.prefix)) this.metrics.urlDropped(name.slice(d.prefix.length), n);
    }
  };

  /** The state gauges, read at each scrape from what `view` returns then. */
  watch(view: () => TaskView | undefined): void {
    this.metrics.setGaugeSource(() => {
      const v = view();
      if (!v) return { frontier: 0, recrawlDue: 0, hostsWaiting: 0, inFlight: 0, lag: [] };
      const s = crawlStats({ tasks: v.tasks });
      return { frontier: s.frontier, recrawlDue: s.recrawlsDue, hostsWaiting: s.hostsWaiting, inFlight: s.inFlight, lag: v.lag };
    });
  }
}

/** Lag per processor and partition: the records still to read, summed over its inputs. */
export function lagEntries(list: { processor: string; partition: number; records: number }[]): LagEntry[] {
  const by = new Map<string, LagEntry>();
  for (const e of list) {
    const key = `${e.processor}/${e.partition}`;
    const entry = by.get(key);
    if (entry) entry.records += e.records;
    else by.set(key, { processor: e.processor, partition: e.partition, records: e.records });
  }
  return [...by.values()];
}

export interface MetricsOptions {
  port: number;
  host: string;
  /** After the work ends, keep answering scrapes this long so the final values are collected. */
  lingerMs?: number;
}

export interface ServedTelemetry {
  telemetry: CrawlTelemetry;
  server: MetricsServer;
  /** Waits out --metrics-linger (cut short by `signal`), then stops serving. */
  close(signal?: AbortSignal): Promise<void>;
}

export async function serveTelemetry(o: MetricsOptions, logger: Logger): Promise<ServedTelemetry> {
  const telemetry = new CrawlTelemetry(logger);
  const server = await serveMetrics(telemetry.metrics, { port: o.port, host: o.host, logger });
  logger.info(`metrics at ${server.url}`);
  return {
    telemetry,
    server,
    async close(signal?: AbortSignal) {
      if (o.lingerMs && !signal?.aborted) {
        logger.info(`metrics: still serving the final values at ${server.url} for ${Math.round(o.lingerMs / 1000)} s (--metrics-linger; Ctrl-C ends it)`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, o.lingerMs);
          signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          }, { once: true });
        });
      }
      await server.close();
    },
  };
}
