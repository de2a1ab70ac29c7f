// A worker process on Kafka: runs all processors of the topology or a chosen subset, each as its
// own consumer group; workers start and stop at will and tasks move between them.
import { hostname } from 'node:os';
import type { Producer } from 'kafkajs';
import type { Logger } from '../../processors/api.js';
import { selectProcessors, type Topology } from '../../topology/topology.js';
import { sharedClickHouse } from '../../clickhouse/connection.js';
import { createFetcher } from '../crawl-resources.js';
import { awaitCrawlConfig, connectCluster, missingTopics, partitionCount, topologyCodecs, type Cluster } from './kafka-cluster.js';
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
  private readonly runners: ProcessorRunner[] = [];
  private statusProducer: Producer | undefined;
  private statusTimer: NodeJS.Timeout | undefined;
  private closers: (() => Promise<void>)[] = [];

  constructor(private readonly o: WorkerOptions) {}

  async start(): Promise<void> {
    const { log } = this.o;
    this.cluster = await connectCluster({ brokers: this.o.brokers, prefix: this.o.prefix, clientId: `crawlstream-worker-${this.id}`, log });
    const topology = this.o.topology ?? (await import('../../topology/crawl-topology.js')).crawlTopology();
    const missing = await missingTopics(this.cluster, topology);
    if (missing.length) {
      throw new Error(`topics missing on the cluster: ${missing.join(', ')}; create them with \`crawlstream topics create --brokers ${this.o.brokers.join(',')}${this.o.prefix ? ` --topic-prefix ${this.o.prefix}` : ''}\``);
    }
    const partitions = await partitionCount(this.cluster, [...topology.topics.keys()][0]);
    const codecs = await topologyCodecs(topology, this.cluster.names, this.o.registryUrl);
    const stored = await awaitCrawlConfig(this.cluster, log, this.o.signal);
    const config = { ...stored, allowNetworks: this.o.allowNetworks };
    const fetcher = createFetcher(config);
    const clickhouse = sharedClickHouse({ url: this.o.clickhouseUrl });
    this.closers.push(() => fetcher.close(), () => clickhouse.close());
    const nodes = selectProcessors(topology, this.o.processors);
    if (nodes.some((n) => n.name === 'sink') && !this.o.clickhouseUrl) {
      throw new Error('the sink processor needs --clickhouse-url (or leave it out with --processors)');
    }
    for (const node of nodes) {
      const runner = new ProcessorRunner({
        kafka: this.cluster.kafka, admin: this.cluster.admin, names: this.cluster.names, node, partitions,
        dataDir: this.o.dataDir, codecs, config, log,
        resources: { httpFetcher: fetcher, clickhouse, sinkId: 'live' },
        sessionTimeoutMs: this.o.sessionTimeoutMs ?? 10_000,
      });
      this.runners.push(runner);
    }
    await Promise.all(this.runners.map((r) => r.start()));
    this.statusProducer = this.cluster.kafka.producer();
    await this.statusProducer.connect();
    this.statusTimer = setInterval(() => void this.publishStatus().catch(() => {}), 1000);
    log.info(`worker ${this.id} running ${nodes.map((n) => n.name).join(', ')} over ${partitions} partitions`);
  }

  /** Finishes records in progress, commits, leaves the groups. */
  async stop(): Promise<void> {
    if (this.statusTimer) clearInterval(this.statusTimer);
    await Promise.all(this.runners.map((r) => r.stop()));
    await this.publishStatus(true).catch(() => {});
    await this.statusProducer?.disconnect().catch(() => {});
    for (const close of this.closers) await close().catch(() => {});
    await this.cluster?.close().catch(() => {});
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
          processor: t.node.name, partition: t.partition, worker: leaving ? '' : this.id,
          quiescent: host.settled(), pendingWork: t.hasPendingWork(), consumedUpTo,
          gauges: Object.fromEntries(t.metrics.gauges), counters: Object.fromEntries(t.metrics.totals), at,
        };
        messages.push({ key: `${t.node.name}/${t.partition}`, value: JSON.stringify(status) });
      }
    }
    if (messages.length) await this.statusProducer!.send({ topic: this.cluster.names.taskStatus, messages });
  }
}
