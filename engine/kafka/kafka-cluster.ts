// Connecting to a Kafka cluster: client settings, the cluster-wide state every worker follows (the
// application's options, pause and partition generation, the log identity) and the topology's codecs
// over the Confluent-compatible registry. Shared by the runtime and the Kafka commands. kafkajs is
// used here and in the other files of this folder only: a maintained client replaces it here.
import { Kafka, logLevel, type Admin, type LogEntry } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../api.js';
import { TopicCodecs } from '../avro/topic-codecs.js';
import type { Topology } from '../topology.js';
import { ConfluentSchemaRegistry } from './confluent-registry.js';
import { restoreChangelogs } from './changelog-restore.js';
import { stableOffsets } from './partition-ends.js';
import { KafkaNames } from './kafka-names.js';
import { RequestCounts } from './request-counts.js';
import { openTxnProducer, type TxnProducer } from './txn-producer.js';

export interface ClusterOptions {
  brokers: string[];
  prefix?: string;
  clientId?: string;
  logger: Logger;
}

export interface Cluster {
  kafka: Kafka;
  admin: Admin;
  names: KafkaNames;
  /** Requests sent to the brokers by every client made from `kafka`, and by transactional producers, by API. */
  requests: RequestCounts;
  /** A worker's transactional producer under `transactionalId` (engine/kafka/txn-producer.ts), initialised. */
  transactionalProducer(transactionalId: string): Promise<TxnProducer>;
  close(): Promise<void>;
}

export async function connectCluster(o: ClusterOptions): Promise<Cluster> {
  if (o.brokers.length === 0) throw new Error('give the brokers with --brokers HOST:PORT');
  let connectionError = '';
  const kafka = new Kafka({
    clientId: o.clientId ?? 'crawlstream',
    brokers: o.brokers,
    logLevel: logLevel.ERROR,
    logCreator: () => (entry: LogEntry) => {
      if (/Connection error|ECONNREFUSED|Connection timeout/i.test(entry.log.message)) connectionError = entry.log.message;
      // kafkajs logs retriable errors while it retries them; keep the ones that end in failure.
      if (entry.level <= logLevel.ERROR && !/coordinator|not the leader|rebalanc|retry|Connection error|ECONNREFUSED|concurrent|^Response [A-Za-z]+\(key/i.test(entry.log.message)) {
        o.logger.warn(`kafka: ${entry.log.message}`);
      }
    },
    // Backoff capped at 2 s (the Java client caps it at 1 s, retry.backoff.max.ms), over about as long
    // as before (~75 s): at 10 s a send waiting out a 13 s broker restart came back after 22 s, by
    // then its worker's tasks had been claimed by the other worker, and the crawl stalled 17-50 s.
    retry: { retries: 40, initialRetryTime: 200, maxRetryTime: 2_000 },
  });
  const requests = new RequestCounts();
  requests.attach(kafka);
  const admin = kafka.admin();
  // kafkajs retries a broker it cannot reach for about 75 s without a word: say what it waits for.
  const started = performance.now();
  const waiting = setInterval(() => {
    o.logger.info(`still connecting to Kafka at ${o.brokers.join(',')} after ${Math.round((performance.now() - started) / 1000)} s${connectionError ? ` (${connectionError})` : ''}; retrying for about 75 s in all`);
  }, 5_000);
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(`cannot reach Kafka at ${o.brokers.join(',')}: ${(err as Error).message}${connectionError ? ` (${connectionError})` : ''}`);
  } finally {
    clearInterval(waiting);
  }
  const transactionalProducer = (transactionalId: string) => openTxnProducer({
    brokers: o.brokers, clientId: o.clientId ?? 'crawlstream', transactionalId, kafka, onRequest: (api) => requests.count(api),
  });
  return { kafka, admin, names: new KafkaNames(o.prefix ?? ''), requests, transactionalProducer, close: () => admin.disconnect() };
}

/** Registers every topic's value schema as `<physical topic>-value`; an incompatible one stops us here. */
export async function topologyCodecs(topology: Topology, names: KafkaNames, registryUrl: string): Promise<TopicCodecs> {
  const codecs = new TopicCodecs(new ConfluentSchemaRegistry(registryUrl));
  for (const topic of topology.topics.values()) await codecs.addTopic(topic.name, topic.schema, names.topic(topic.name), topic.maxRecordBytes);
  return codecs;
}

export async function missingTopics(cluster: Cluster, topology: Topology): Promise<string[]> {
  const existing = new Set(await cluster.admin.listTopics());
  return [...topology.topics.keys()].map((t) => cluster.names.topic(t)).filter((t) => !existing.has(t)).concat(
    existing.has(cluster.names.stateTopic) ? [] : [cluster.names.stateTopic],
  );
}

export async function partitionCount(cluster: Cluster, topic: string): Promise<number> {
  const { topics } = await cluster.admin.fetchTopicMetadata({ topics: [cluster.names.topic(topic)] });
  return topics[0]?.partitions.length ?? 0;
}

/** Cluster-wide switches every worker follows, beside the application's options. */
export interface ControlState {
  /** While true no worker releases new work (scale drains the cluster this way). */
  paused: boolean;
  /** Bumped when the partition count changes: workers re-open their tasks for the new count. */
  generation: number;
  partitions: number;
}

/** `options` is the application's (e.g. crawl-level options written by `seed`), opaque to the engine. */
export interface ClusterState<O = Record<string, unknown>> {
  options: O;
  control: ControlState;
}

const STATE_KEY = 'crawl';
const LOG_ID_KEY = 'log-id';

async function send(cluster: Cluster, key: string, value: string): Promise<void> {
  const producer = cluster.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    await producer.send({ topic: cluster.names.stateTopic, messages: [{ key, value }] });
  } finally {
    await producer.disconnect();
  }
}

async function readLatest(cluster: Cluster): Promise<Map<string, string>> {
  const latest = new Map<string, string>();
  await restoreChangelogs(cluster.kafka, cluster.admin, [{ topic: cluster.names.stateTopic, partition: 0, from: 0 }], async (_t, entries) => {
    for (const e of entries) if (e.value) latest.set(e.key.toString('utf8'), e.value.toString('utf8'));
  });
  return latest;
}

export async function writeClusterState<O>(cluster: Cluster, state: ClusterState<O>): Promise<void> {
  await send(cluster, STATE_KEY, JSON.stringify({ options: state.options, control: state.control }));
}

/** The state as the last `seed` or `scale` left it, or undefined before the first seed. */
export async function readClusterState<O>(cluster: Cluster): Promise<ClusterState<O> | undefined> {
  const raw = (await readLatest(cluster)).get(STATE_KEY);
  return raw === undefined ? undefined : (JSON.parse(raw) as ClusterState<O>);
}

/**
 * A new identity for the topics, written whenever `topics create` had to create one of them: offsets
 * kept outside Kafka (a sink's, in ClickHouse) are keyed by it, so recreated topics, whose offsets
 * start again at 0, are never mistaken for the old ones. (kafkajs does not expose Kafka's topic ids.)
 */
export async function renewLogId(cluster: Cluster): Promise<string> {
  const id = randomUUID();
  await send(cluster, LOG_ID_KEY, id);
  return id;
}

export async function readLogId(cluster: Cluster): Promise<string | undefined> {
  return (await readLatest(cluster)).get(LOG_ID_KEY);
}

/** Waits for the application to be seeded (workers may start first). */
export async function awaitClusterState<O>(cluster: Cluster, logger: Logger, signal?: AbortSignal): Promise<ClusterState<O>> {
  let told = false;
  // The topic is read again only once its end moved: a read is a consumer group joined, fetched from
  // and deleted (~13 broker requests and ~60 ms of this thread), a look at its end one ListOffsets.
  // `topics create` leaves a record there, so a waiting worker used to make such a group every second.
  const topic = cluster.names.stateTopic;
  let readUpTo: number | undefined;
  while (!signal?.aborted) {
    const end = await stableOffsets(cluster.admin, [topic]).then((ends) => ends.get(`${topic}/0`), () => undefined);
    if (end === undefined || end !== readUpTo) {
      const stored = await readClusterState<O>(cluster);
      if (stored) return stored;
      readUpTo = end;
    }
    if (!told) logger.info(`waiting for a crawl: run \`crawlstream seed\` to start one (${cluster.names.stateTopic} is empty)`);
    told = true;
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error('stopped before a crawl was seeded');
}

/** Follows the state as it changes; returns a function that stops following. */
export async function watchClusterState<O>(cluster: Cluster, id: string, onChange: (state: ClusterState<O>) => void): Promise<() => Promise<void>> {
  const consumer = cluster.kafka.consumer({ groupId: `crawlstream-watch-${id}`, maxWaitTimeInMs: 200, readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topic: cluster.names.stateTopic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ message }) => {
      if (message.value && message.key?.toString('utf8') === STATE_KEY) onChange(JSON.parse(message.value.toString('utf8')) as ClusterState<O>);
    },
  });
  return () => consumer.disconnect();
}
