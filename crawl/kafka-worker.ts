// A crawl worker on Kafka: reads the crawl-level options `seed` wrote, builds the crawl's services
// (HTTP client, ClickHouse, parse pool) and runs the crawl topology, all of it or a chosen subset,
// on the engine's Kafka runtime. Workers start and stop at will; tasks move between them.
import type { Logger, RuntimeControl } from '../engine/api.js';
import { awaitClusterState, connectCluster, type Cluster } from '../engine/kafka/kafka-cluster.js';
import { KafkaRuntime } from '../engine/kafka/kafka-runtime.js';
import { selectProcessors, type Topology } from '../engine/topology.js';
import type { ParserModule } from '../parsing/parser-module.js';
import { defaultCrawlConfig, type CrawlConfig } from './config.js';
import { openCrawlServices, type CrawlServices } from './services.js';
import { crawlTopology } from './topology.js';
import type { ProcessorModule } from './processor-module.js';

export interface WorkerOptions {
  brokers: string[];
  prefix: string;
  registryUrl: string;
  clickhouseUrl?: string;
  processors?: string[];
  allowNetworks: string[];
  dataDir: string;
  log: Logger;
  parserModule?: ParserModule;
  /** Users' own processors (--processor-module), added to the crawl's topology. */
  processorModules?: ProcessorModule[];
  chromiumPath?: string;
  renderConcurrency?: number;
  sessionTimeoutMs?: number;
  signal?: AbortSignal;
}

export class KafkaWorker {
  private cluster: Cluster | undefined;
  private runtime: KafkaRuntime<CrawlServices> | undefined;
  private readonly closers: (() => Promise<void>)[] = [];
  private readonly control: RuntimeControl = { paused: false };

  constructor(private readonly o: WorkerOptions) {}

  get id(): string | undefined {
    return this.runtime?.id;
  }

  async start(): Promise<void> {
    const { log } = this.o;
    const cluster = (this.cluster = await connectCluster({ brokers: this.o.brokers, prefix: this.o.prefix, clientId: `crawlstream-worker-${process.pid}`, log }));
    const topology = crawlTopology((this.o.processorModules ?? []).map((m) => m.processor));
    const nodes = selectProcessors(topology, this.o.processors);
    if (nodes.some((n) => n.name === 'sink') && !this.o.clickhouseUrl) {
      throw new Error('the sink processor needs --clickhouse-url (or leave it out with --processors)');
    }
    const state = await awaitClusterState<Partial<CrawlConfig>>(cluster, log, this.o.signal);
    const config = { ...defaultCrawlConfig(state.options), allowNetworks: this.o.allowNetworks };
    const open = openCrawlServices({
      config, clickhouseUrl: this.o.clickhouseUrl, parserModule: this.o.parserModule, control: this.control,
      chromiumPath: this.o.chromiumPath, renderConcurrency: this.o.renderConcurrency, log: log.warn,
    });
    this.closers.push(() => open.close());
    this.runtime = new KafkaRuntime({
      cluster, topology, services: open.services, control: this.control, registryUrl: this.o.registryUrl, processors: this.o.processors,
      dataDir: this.o.dataDir, log, sessionTimeoutMs: this.o.sessionTimeoutMs,
    });
    await this.runtime.start();
  }

  /** Finishes records in progress, commits, leaves the groups, closes the shared clients. */
  async stop(): Promise<void> {
    await this.runtime?.stop();
    for (const close of this.closers) await close().catch(() => {});
    await this.cluster?.close().catch(() => {});
  }
}
