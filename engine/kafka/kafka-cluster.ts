// Connecting to a Kafka cluster for crawlstream: client settings, the crawl-config topic and the
// topology's codecs over the Confluent-compatible registry. Shared by worker, seed, status, topics.
import { Kafka, logLevel, type Admin, type LogEntry } from 'kafkajs';
import type { Logger } from '../processor.js';
import { loadSchema } from '../../schemas/schema-files.js';
import { TopicCodecs } from '../avro/topic-codecs.js';
import { CRAWL_LEVEL_OPTIONS, type CrawlConfig } from '../../crawl/config.js';
import type { Topology } from '../topology.js';
import { ConfluentSchemaRegistry } from './confluent-registry.js';
import { restoreChangelogs } from './changelog-restore.js';
import { KafkaNames } from './kafka-names.js';

export interface ClusterOptions {
  brokers: string[];
  prefix?: string;
  clientId?: string;
  log: Logger;
}

export interface Cluster {
  kafka: Kafka;
  admin: Admin;
  names: KafkaNames;
  close(): Promise<void>;
}

export async function connectCluster(o: ClusterOptions): Promise<Cluster> {
  if (o.brokers.length === 0) throw new Error('give the brokers with --brokers HOST:PORT');
  const kafka = new Kafka({
    clientId: o.clientId ?? 'crawlstream',
    brokers: o.brokers,
    logLevel: logLevel.ERROR,
    logCreator: () => (entry: LogEntry) => {
      // kafkajs logs retriable errors while it retries them; keep the ones that end in failure.
      if (entry.level <= logLevel.ERROR && !/coordinator|not the leader|rebalanc|retry|Connection error|ECONNREFUSED|concurrent|^Response [A-Za-z]+\(key/i.test(entry.log.message)) {
        o.log.warn(`kafka: ${entry.log.message}`);
      }
    },
    retry: { retries: 12, initialRetryTime: 200, maxRetryTime: 10_000 },
  });
  const admin = kafka.admin();
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(`cannot reach Kafka at ${o.brokers.join(',')}: ${(err as Error).message}`);
  }
  return { kafka, admin, names: new KafkaNames(o.prefix ?? ''), close: () => admin.disconnect() };
}

/** Registers every topic's value schema as `<physical topic>-value`; an incompatible one stops us here. */
export async function topologyCodecs(topology: Topology, names: KafkaNames, registryUrl: string): Promise<TopicCodecs> {
  const codecs = new TopicCodecs(new ConfluentSchemaRegistry(registryUrl));
  for (const topic of topology.topics.values()) await codecs.addTopic(topic.name, loadSchema(topic.schema), names.topic(topic.name));
  return codecs;
}

export async function missingTopics(cluster: Cluster, topology: Topology): Promise<string[]> {
  const existing = new Set(await cluster.admin.listTopics());
  return [...topology.topics.keys()].map((t) => cluster.names.topic(t)).filter((t) => !existing.has(t)).concat(
    existing.has(cluster.names.crawlConfig) ? [] : [cluster.names.crawlConfig],
  );
}

export async function partitionCount(cluster: Cluster, topic: string): Promise<number> {
  const { topics } = await cluster.admin.fetchTopicMetadata({ topics: [cluster.names.topic(topic)] });
  return topics[0]?.partitions.length ?? 0;
}

type CrawlLevel = Pick<CrawlConfig, (typeof CRAWL_LEVEL_OPTIONS)[number]>;

/** Crawl-wide state every worker follows, beside the crawl-level options. */
export interface CrawlControlState {
  /** While true no worker releases a fetch (scale drains the crawl this way). */
  paused: boolean;
  /** Bumped when the partition count changes: workers re-open their tasks for the new count. */
  generation: number;
  partitions: number;
}

export interface CrawlState {
  options: Partial<CrawlConfig>;
  control: CrawlControlState;
}

export async function writeCrawlState(cluster: Cluster, state: CrawlState): Promise<void> {
  const options = Object.fromEntries(CRAWL_LEVEL_OPTIONS.filter((k) => k in state.options).map((k) => [k, state.options[k]])) as Partial<CrawlLevel>;
  const producer = cluster.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    await producer.send({ topic: cluster.names.crawlConfig, messages: [{ key: 'crawl', value: JSON.stringify({ options, control: state.control }) }] });
  } finally {
    await producer.disconnect();
  }
}

/** The crawl's state as the last `seed` or `scale` left it, or undefined before the first seed. */
export async function readCrawlState(cluster: Cluster): Promise<CrawlState | undefined> {
  let latest: CrawlState | undefined;
  await restoreChangelogs(cluster.kafka, cluster.admin, [{ topic: cluster.names.crawlConfig, partition: 0, from: 0 }], async (_t, entries) => {
    for (const e of entries) if (e.value) latest = JSON.parse(e.value.toString('utf8')) as CrawlState;
  });
  return latest;
}

/** Waits for a crawl to be seeded (workers may start first). */
export async function awaitCrawlState(cluster: Cluster, log: Logger, signal?: AbortSignal): Promise<CrawlState> {
  let told = false;
  while (!signal?.aborted) {
    const stored = await readCrawlState(cluster);
    if (stored) return stored;
    if (!told) log.info(`waiting for a crawl: run \`crawlstream seed\` to start one (${cluster.names.crawlConfig} is empty)`);
    told = true;
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error('stopped before a crawl was seeded');
}

/** Follows the crawl state as it changes; returns a function that stops following. */
export async function watchCrawlState(cluster: Cluster, id: string, onChange: (state: CrawlState) => void): Promise<() => Promise<void>> {
  const consumer = cluster.kafka.consumer({ groupId: `crawlstream-watch-${id}`, maxWaitTimeInMs: 200, readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topic: cluster.names.crawlConfig, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ message }) => {
      if (message.value) onChange(JSON.parse(message.value.toString('utf8')) as CrawlState);
    },
  });
  return () => consumer.disconnect();
}
