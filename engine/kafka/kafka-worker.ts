// A worker process on Kafka: runs all processors of the topology or a chosen subset, each as its
// own consumer group; workers start and stop at will and tasks move between them. The worker follows
// the crawl state: a pause stops releases (scale drains the crawl this way), and a new generation
// (a new partition count) makes it re-open every task for the new count.
import { hostname } from 'node:os';
import type { Producer } from 'kafkajs';
import type { Logger } from '../processor.js';
import type { CrawlControl } from '../../processors/crawl-budget.js';
import { selectProcessors, type ProcessorNode, type ProcessorResources, type Topology } from '../topology.js';
import { defaultCrawlConfig, type CrawlConfig } from '../../crawl/config.js';
import type { TopicCodecs } from '../avro/topic-codecs.js';
import { sharedClickHouse } from '../../clickhouse/connection.js';
import { createFetcher } from '../../crawl/services.js';
import { ParsePool } from '../../parsing/parse-pool.js';
import { awaitCrawlState, connectCluster, missingTopics, partitionCount, topologyCodecs, watchCrawlState, type Cluster, type CrawlState } from './kafka-cluster.js';
import { ProcessorRunner } from './processor-runner.js';
import type { TaskStatus } from './task-status.js';

export interface WorkerOptions {
  brokers: string[];
  prefix: string;
  registryUrl: string;
  clickhouseUrl?: string;
  processors?: string[];
  allowNetworks: string[];
  dataDir: string;
  log: Logger;
  sessionTimeoutMs?: number;
  signal?: AbortSignal;
  /** The crawler's topology unless a test runs the runtime on another one. */
  topology?: Topology;
}

export class KafkaWorker {
  readonly id = `${hostname()}-${process.pid}`;
  private cluster!: Cluster;
  private runners: ProcessorRunner[] = [];
  private statusProducer: Producer | undefined;
  private statusTimer: NodeJS.Timeout | undefined;
  private readonly closers: (() => Promise<void>)[] = [];
  private readonly control: CrawlControl = { paused: false };
  /** The generation of the crawl state last seen, and the one the running tasks were opened for. */
  private generation = 0;
  private runningGeneration = 0;
  private partitions = 0;
  private nodes: ProcessorNode[] = [];
  private codecs!: TopicCodecs;
  private config!: CrawlConfig;
  private resources!: ProcessorResources;
  private restarting: Promise<void> = Promise.resolve();

  constructor(private readonly o: WorkerOptions) {}

  async start(): Promise<void> {
    const { log } = this.o;
    this.cluster = await connectCluster({ brokers: this.o.brokers, prefix: this.o.prefix, clientId: `crawlstream-worker-${this.id}`, log });
    const topology = this.o.topology ?? (await import('../../crawl/topology.js')).crawlTopology();
    const missing = await missingTopics(this.cluster, topology);
    if (missing.length) {
      throw new Error(`topics missing on the cluster: ${missing.join(', ')}; create them with \`crawlstream topics create --brokers ${this.o.brokers.join(',')}${this.o.prefix ? ` --topic-prefix ${this.o.prefix}` : ''}\``);
    }
    this.nodes = selectProcessors(topology, this.o.processors);
    if (this.nodes.some((n) => n.name === 'sink') && !this.o.clickhouseUrl) {
      throw new Error('the sink processor needs --clickhouse-url (or leave it out with --processors)');
    }
    this.codecs = await topologyCodecs(topology, this.cluster.names, this.o.registryUrl);
    const state = await awaitCrawlState(this.cluster, log, this.o.signal);
    this.config = { ...defaultCrawlConfig(state.options), allowNetworks: this.o.allowNetworks };
    const fetcher = createFetcher(this.config);
    const clickhouse = sharedClickHouse({ url: this.o.clickhouseUrl });
    const parsePool = new ParsePool();
    this.closers.push(() => fetcher.close(), () => parsePool.close(), () => clickhouse.close());
    this.resources = { httpFetcher: fetcher, clickhouse, sinkId: 'live', crawlControl: this.control, parsePool };
    this.control.paused = state.control.paused;
    this.generation = this.runningGeneration = state.control.generation;
    this.partitions = await partitionCount(this.cluster, [...topology.topics.keys()][0]);
    if (state.control.partitions) this.partitions = Math.min(this.partitions, state.control.partitions);
    await this.startRunners();
    this.closers.unshift(await watchCrawlState(this.cluster, this.id, (s) => this.follow(s)));
    this.statusProducer = this.cluster.kafka.producer();
    await this.statusProducer.connect();
    this.statusTimer = setInterval(() => void this.publishStatus().catch(() => {}), 1000);
    log.info(`worker ${this.id} running ${this.nodes.map((n) => n.name).join(', ')} over ${this.partitions} partitions`);
  }

  /** Finishes records in progress, commits, leaves the groups. */
  async stop(): Promise<void> {
    if (this.statusTimer) clearInterval(this.statusTimer);
    await this.phase('re-opening tasks', this.restarting);
    await Promise.all(this.runners.map((r) => this.phase(`${r.name} tasks`, r.stop())));
    await this.phase('the last status', this.publishStatus(true).catch(() => {}));
    await this.phase('the status producer', this.statusProducer?.disconnect().catch(() => {}));
    for (const close of this.closers) await this.phase('shared clients', close().catch(() => {}));
    await this.phase('the admin client', this.cluster?.close().catch(() => {}));
  }

  /** Says what a slow stop is waiting for, so that an operator is not left guessing. */
  private async phase(what: string, done: Promise<unknown> | undefined): Promise<void> {
    const timer = setInterval(() => this.o.log.info(`stopping: still waiting for ${what}`), 5000);
    try {
      await done;
    } finally {
      clearInterval(timer);
    }
  }

  private follow(state: CrawlState): void {
    if (this.control.paused !== state.control.paused) this.o.log.info(state.control.paused ? 'crawl paused: no new fetch is released' : 'crawl resumed');
    this.control.paused = state.control.paused;
    if (state.control.generation === this.generation) return;
    this.generation = state.control.generation;
    const partitions = state.control.partitions;
    this.restarting = this.restarting.then(async () => {
      // Every task re-opens for the new count: ownership of hosts and buckets changed.
      this.o.log.info(`partition count now ${partitions} (generation ${this.generation}): re-opening every task`);
      await Promise.all(this.runners.map((r) => r.stop()));
      this.partitions = partitions;
      await this.startRunners();
      this.runningGeneration = this.generation;
    }).catch((err) => this.o.log.warn(`re-opening tasks failed: ${(err as Error).message}`));
  }

  private async startRunners(): Promise<void> {
    this.runners = this.nodes.map((node) => new ProcessorRunner({
      kafka: this.cluster.kafka, admin: this.cluster.admin, names: this.cluster.names, node, partitions: this.partitions,
      dataDir: this.o.dataDir, codecs: this.codecs, config: this.config, log: this.o.log,
      resources: this.resources, sessionTimeoutMs: this.o.sessionTimeoutMs ?? 10_000,
    }));
    await Promise.all(this.runners.map((r) => r.start()));
  }

  private async publishStatus(leaving = false): Promise<void> {
    const messages = [];
    const at = Date.now();
    for (const runner of this.runners) {
      for (const host of runner.tasks()) {
        const t = host.task;
        const consumedUpTo: Record<string, number> = {};
        for (const topic of t.node.inputs) {
          consumedUpTo[topic] = Math.max(runner.consumedUpTo.get(`${topic}/${t.partition}`) ?? 0, t.nextOffset(topic));
        }
        const status: TaskStatus = {
          processor: t.node.name, partition: t.partition, worker: leaving ? '' : this.id, paused: this.control.paused, generation: this.runningGeneration,
          quiescent: host.settled(), pendingWork: t.hasPendingWork(), consumedUpTo,
          gauges: Object.fromEntries(t.metrics.gauges), counters: Object.fromEntries(t.metrics.totals), at,
        };
        messages.push({ key: `${t.node.name}/${t.partition}`, value: JSON.stringify(status) });
      }
    }
    if (messages.length) await this.statusProducer!.send({ topic: this.cluster.names.taskStatus, messages });
  }
}
