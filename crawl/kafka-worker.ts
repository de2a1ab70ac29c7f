// A crawl worker on Kafka: reads the crawl-level options `seed` wrote, builds the crawl's services
// (HTTP client, ClickHouse, parse pool) and runs the crawl topology, all of it or a chosen subset,
// on the engine's Kafka runtime. Workers start and stop at will; tasks move between them.
import type { Logger, RuntimeControl } from '../engine/api.js';
import { awaitClusterState, connectCluster, type Cluster } from '../engine/kafka/kafka-cluster.js';
import { KafkaRuntime, workerIdentity } from '../engine/kafka/kafka-runtime.js';
import { selectProcessors, type Topology } from '../engine/topology.js';
import type { ParserModule } from '../parsing/parser-module.js';
import { defaultCrawlConfig, type CrawlConfig } from '../contract/config.js';
import { openCrawlServices, openFocus } from './open-services.js';
import type { CrawlServices } from '../contract/services.js';
import { crawlTopology, extraProcessors } from './topology.js';
import { clickhouseSink } from '../stages/clickhouse-sink/clickhouse-sink.js';
import { topicEnds } from '../engine/kafka/task-status.js';
import type { WarcOutput } from '../warc/warc-output.js';
import { lagEntries, type CrawlTelemetry } from './telemetry.js';
import type { ProcessorModule } from './processor-module.js';
import { CrawlJournal } from './crawl-journal.js';

export interface WorkerOptions {
  brokers: string[];
  prefix: string;
  registryUrl: string;
  clickhouseUrl?: string;
  processors?: string[];
  allowNetworks: string[];
  /** --proxy URL; '' reads the proxy environment variables. */
  proxy?: string;
  dataDir: string;
  logger: Logger;
  parserModule?: ParserModule;
  /** --module-timeout: how long one page's parse may take. */
  moduleTimeoutMs?: number;
  /** Users' own processors (--processor-module), added to the crawl's topology. */
  processorModules?: ProcessorModule[];
  chromiumPath?: string;
  renderConcurrency?: number;
  sessionTimeoutMs?: number;
  /** --commit-interval: least time between the worker's transactions while it has work. */
  commitIntervalMs?: number;
  /** --handover-grace: how long a task's new owner waits for a silent previous owner before fencing it. */
  handoverGraceMs?: number;
  signal?: AbortSignal;
  /** Write WARC files of the fetch outcomes this worker's `warc` tasks read (--warc-dir). */
  warc?: WarcOutput;
  /** Prometheus metrics of this worker (--metrics-port). */
  telemetry?: CrawlTelemetry;
  /** One of N worker threads of a process: its share (1/N) of the process's parse workers and sockets. */
  share?: number;
}

/** Past the fetch timeout, what recording a request's outcome may take (compressing its body). */
const HANDOVER_RECORD_MS = 2_000;
/** How often a worker with metrics asks the brokers for the topics' ends, to report its tasks' lag. */
const LAG_POLL_MS = 5_000;

export class KafkaWorker {
  private cluster: Cluster | undefined;
  private runtime: KafkaRuntime<CrawlServices> | undefined;
  private readonly closers: (() => Promise<void>)[] = [];
  private readonly control: RuntimeControl = { paused: false };
  private ends = new Map<string, number>();
  private lagTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: WorkerOptions) {}

  get id(): string | undefined {
    return this.runtime?.id;
  }

  /** Settles with the error that stopped the worker's runtime (a failed punctuation); never otherwise. */
  get failed(): Promise<Error> {
    return this.runtime?.failed ?? new Promise(() => {});
  }

  async start(): Promise<void> {
    const { logger } = this.o;
    const cluster = (this.cluster = await connectCluster({ brokers: this.o.brokers, prefix: this.o.prefix, clientId: `crawlstream-worker-${workerIdentity()}`, logger }));
    const topology = crawlTopology(extraProcessors(this.o.warc, this.o.processorModules));
    const nodes = selectProcessors(topology, this.o.processors);
    if (nodes.some((n) => n.name === clickhouseSink.name) && !this.o.clickhouseUrl) {
      throw new Error(`the ${clickhouseSink.name} processor needs --clickhouse-url (or leave it out with --processors)`);
    }
    const state = await awaitClusterState<Partial<CrawlConfig>>(cluster, logger, this.o.signal);
    const config = { ...defaultCrawlConfig(state.options), allowNetworks: this.o.allowNetworks, proxy: this.o.proxy ?? '' };
    const open = openCrawlServices({
      focus: await openFocus(config),
      config, clickhouseUrl: this.o.clickhouseUrl, parserModule: this.o.parserModule, parseTimeoutMs: this.o.moduleTimeoutMs, control: this.control,
      chromiumPath: this.o.chromiumPath, renderConcurrency: this.o.renderConcurrency, warn: logger.warn, observer: new CrawlJournal(logger.warn, this.o.telemetry), warc: this.o.warc,
      share: this.o.share,
    });
    this.closers.push(() => open.close());
    this.runtime = new KafkaRuntime({
      cluster, topology, services: open.services, control: this.control, registryUrl: this.o.registryUrl, processors: this.o.processors,
      dataDir: this.o.dataDir, logger, sessionTimeoutMs: this.o.sessionTimeoutMs,
      commitIntervalMs: this.o.commitIntervalMs, handoverGraceMs: this.o.handoverGraceMs, onCommitted: this.o.telemetry?.onCommitted,
      // A task moving to another worker lets its requests on the wire be answered and recorded: cut
      // off, they would be sent again by the next owner and the server would see them twice.
      handOverFinishMs: config.fetchTimeoutMs + HANDOVER_RECORD_MS,
    });
    await this.runtime.start();
    if (this.o.telemetry) this.watchLag(this.o.telemetry, cluster, this.runtime, [...new Set(nodes.flatMap((n) => n.inputs))]);
  }

  /** Lag is the topics' ends (asked for every few seconds, never at a scrape) minus each task's progress. */
  private watchLag(telemetry: CrawlTelemetry, cluster: Cluster, runtime: KafkaRuntime<CrawlServices>, topics: string[]): void {
    const poll = () => void topicEnds(cluster, topics).then((ends) => (this.ends = ends), (err: Error) => this.o.logger.warn(`metrics: reading the topics' ends failed (lag is stale): ${err.message}`));
    poll();
    this.lagTimer = setInterval(poll, LAG_POLL_MS);
    telemetry.watch(() => ({
      tasks: runtime.tasks,
      lag: lagEntries(runtime.progress().flatMap(({ task, consumedUpTo }) => Object.entries(consumedUpTo).map(([topic, at]) => ({
        processor: task.node.storedName, partition: task.partition, records: Math.max(0, (this.ends.get(`${topic}/${task.partition}`) ?? at) - at),
      })))),
    }));
  }

  /** The tasks with work not yet committed (a stop that runs out of time leaves it to their next owners). */
  unfinished(): string[] {
    return (this.runtime?.progress() ?? []).filter((p) => !p.settled).map((p) => p.task.id);
  }

  /** Finishes records in progress, commits, leaves the groups, closes the shared clients. */
  async stop(): Promise<void> {
    clearInterval(this.lagTimer);
    await this.runtime?.stop();
    // The broker's cost is mostly requests: the benchmark divides these by pages.
    if (this.cluster) this.o.logger.info(`kafka requests: ${JSON.stringify(this.cluster.requests.totals())}`);
    for (const close of this.closers) await close().catch(() => {});
    await this.cluster?.close().catch(() => {});
  }
}
