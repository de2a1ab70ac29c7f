// Growing a live application's partition count on Kafka, with the workers running:
//   1. pause: workers stop releasing fetches; everything in flight completes and every topic drains;
//   2. grow every topic and changelog to N partitions (workers keep their tasks at the old count);
//   3. move each store entry whose virtual bucket now belongs to another partition to that
//      partition of its changelog (and a tombstone to the old one): a host's timer, queue and
//      robots rules, its seen URLs and its bands travel together;
//   4. a new generation, still paused: every worker re-opens its tasks for N, restoring state;
//   5. resume once every task runs under the new generation.
// Nothing is in flight while state moves, so no host can be fetched by two tasks at once.
import type { Logger } from '../api.js';
import { partitionFor, partitionOfBucket } from '../partitioning.js';
import { storePrefix } from '../stores/level-store.js';
import { storedName, type StoreSpec } from '../stores/key-value-store.js';
import type { Topology } from '../topology.js';
import { connectCluster, partitionCount, readClusterState, writeClusterState, type Cluster, type ClusterState } from '../kafka/kafka-cluster.js';
import { restoreChangelogs } from '../kafka/changelog-restore.js';
import { plannedTopics, partitionCounts } from '../kafka/topic-admin.js';
import { clusterIdle, readTaskStatuses } from '../kafka/task-status.js';
import type { ScaleReport } from './embedded-scale.js';

export interface KafkaScaleOptions {
  brokers: string[];
  prefix: string;
  partitions: number;
  topology: Topology;
  /** A store whose keys are routing keys, to report how many changed owner. */
  keysOf: StoreSpec<string, unknown>;
  logger: Logger;
  timeoutMs: number;
}

export async function scaleKafka(o: KafkaScaleOptions): Promise<ScaleReport> {
  const cluster = await connectCluster({ brokers: o.brokers, prefix: o.prefix, clientId: 'crawlstream-scale', logger: o.logger });
  try {
    const { topology } = o;
    const state = await readClusterState(cluster);
    if (!state) throw new Error('no crawl on this cluster yet: seed one first');
    // The count the tasks run with, not the topics': an interrupted scale may have grown topics
    // already, and running it again completes it (every step below can be repeated).
    const from = state.control.partitions || (await partitionCount(cluster, [...topology.topics.keys()][0]));
    const to = o.partitions;
    if (to < from || (to === from && !state.control.paused)) throw new Error(`the crawl has ${from} partitions; scale can only grow it (asked for ${to})`);
    const deadline = Date.now() + o.timeoutMs;
    const processors = topology.processors.map((p) => ({ name: p.name, storedName: p.storedName, inputs: p.inputs }));
    const topics = [...topology.topics.keys()];

    o.logger.info(`pausing the crawl and waiting for everything in flight to finish`);
    await writeClusterState(cluster, { ...state, control: { ...state.control, paused: true } });
    await until(deadline, 'the crawl to drain', async () => {
      const { idle, reason, statuses } = await clusterIdle(cluster, processors, topics, from);
      const unpaused = [...statuses.values()].filter((s) => s.worker && !s.paused);
      return idle && unpaused.length === 0 ? true : unpaused.length ? `${unpaused.length} tasks not paused yet` : reason;
    });

    o.logger.info(`growing every topic to ${to} partitions`);
    const plans = plannedTopics(topology, cluster.names, to).filter((p) => p.partitions === to);
    const counts = await partitionCounts(cluster.admin, plans.map((p) => p.name));
    const grow = plans.filter((p) => (counts.get(p.name) ?? to) < to).map((p) => ({ topic: p.name, count: to }));
    if (grow.length) await retrying(() => cluster.admin.createPartitions({ topicPartitions: grow }));
    await until(deadline, 'leaders for the new partitions', async () => {
      const { topics: meta } = await cluster.admin.fetchTopicMetadata({ topics: plans.map((p) => p.name) });
      const leaderless = meta.flatMap((t) => t.partitions.filter((x) => x.leader < 0).map((x) => `${t.name}/${x.partitionId}`));
      return leaderless.length === 0 && meta.every((t) => t.partitions.length >= to) ? true : `${leaderless.length} partitions without a leader`;
    });

    o.logger.info('moving the state of hosts that changed owner');
    let copiedRecords = 0;
    let keys = 0;
    let movedKeys = 0;
    for (const node of topology.processors) {
      for (const store of node.definition.stores) {
        const moved = await retrying(() => migrateStore(cluster, cluster.names.changelog(node.storedName, storedName(store)), storePrefix(storedName(store)).length, from, to));
        copiedRecords += moved.entries;
        if (store.name === o.keysOf.name) {
          keys = moved.keys.length;
          movedKeys = moved.keys.filter((key) => partitionFor(key, from) !== partitionFor(key, to)).length;
        }
      }
    }

    const next: ClusterState<unknown> = { ...state, control: { paused: true, generation: state.control.generation + 1, partitions: to } };
    o.logger.info(`generation ${next.control.generation}: workers re-open their tasks for ${to} partitions`);
    await writeClusterState(cluster, next);
    await until(deadline, 'every task to run under the new partition count', async () => {
      const statuses = await readTaskStatuses(cluster);
      for (const p of processors) {
        for (let part = 0; part < to; part++) {
          const s = statuses.get(`${p.storedName}/${part}`);
          if (!s?.worker || s.generation !== next.control.generation || Date.now() - s.at > 10_000) return `${p.name}-${part} not re-opened yet`;
        }
      }
      return true;
    });
    await writeClusterState(cluster, { ...next, control: { ...next.control, paused: false } });
    o.logger.info('crawl resumed');
    // Kafka keeps its own log: a gap in it is found by the workers' offset-gap guard, not here.
    return { from, to, keys, movedKeys, copiedRecords, lost: [] };
  } finally {
    await cluster.close();
  }
}

/** Copies entries whose bucket moved to their new partition and tombstones them in the old one. */
async function migrateStore(cluster: Cluster, topic: string, prefixLength: number, from: number, to: number): Promise<{ entries: number; keys: string[] }> {
  const latest = new Map<number, Map<string, Buffer>>();
  // One partition at a time: the entries of each must be known to come from it.
  for (let p = 0; p < from; p++) {
    const entries = new Map<string, Buffer>();
    await restoreChangelogs(cluster.kafka, cluster.admin, [{ topic, partition: p, from: 0 }], async (_t, batch) => {
      for (const e of batch) {
        if (e.value) entries.set(e.key.toString('latin1'), e.value);
        else entries.delete(e.key.toString('latin1'));
      }
    });
    latest.set(p, entries);
  }
  const messages: { partition: number; key: Buffer; value: Buffer | null }[] = [];
  const keys: string[] = [];
  for (const [p, entries] of latest) {
    for (const [id, value] of entries) {
      const key = Buffer.from(id, 'latin1');
      if (key.length < prefixLength + 2) continue;
      keys.push(key.subarray(prefixLength + 2).toString('utf8'));
      const q = partitionOfBucket(key.readUInt16BE(prefixLength), to);
      if (q === p) continue;
      messages.push({ partition: q, key, value }, { partition: p, key, value: null });
    }
  }
  if (messages.length) {
    const producer = cluster.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      for (let i = 0; i < messages.length; i += 2000) await producer.send({ topic, messages: messages.slice(i, i + 2000) });
    } finally {
      await producer.disconnect();
    }
  }
  return { entries: messages.length / 2, keys };
}

/** Retries what a cluster in motion (new partitions, moving leaders) refuses for a moment. */
async function retrying<T>(fn: () => Promise<T>, attempts = 10): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** i, 5000)));
    }
  }
}

async function until(deadline: number, what: string, check: () => Promise<true | string>): Promise<void> {
  let last = '';
  while (Date.now() < deadline) {
    const r = await check().catch((err: Error) => `the cluster did not answer (${err.message})`);
    if (r === true) return;
    last = r;
    await new Promise((res) => setTimeout(res, 1000));
  }
  throw new Error(`gave up waiting for ${what}: ${last}. The crawl stays paused; run the same scale command again to finish`);
}
