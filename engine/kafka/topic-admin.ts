// Creating and growing the topology's topics on Kafka: topic configs follow the topology's
// declarations (retention, max.message.bytes), changelogs are compacted.
import type { Admin, ITopicConfig } from 'kafkajs';
import type { ProcessorNode, Topology } from '../topology.js';
import { storedName } from '../stores/key-value-store.js';
import { KafkaNames, POSITIONS_STORE } from './kafka-names.js';
import { MAX_PARTITION_BATCH_BYTES } from './sent-records.js';

const DAY = 24 * 60 * 60 * 1000;

export interface TopicPlan {
  name: string;
  partitions: number;
  configs: Record<string, string>;
}

function changelogPlans(p: ProcessorNode, names: KafkaNames, partitions: number): TopicPlan[] {
  return [...p.definition.stores.map(storedName), POSITIONS_STORE].map((store) => ({
    name: names.changelog(p.storedName, store), partitions,
    configs: { 'cleanup.policy': 'compact', 'max.message.bytes': String(16 * 1024 * 1024), 'min.compaction.lag.ms': '0' },
  }));
}

/** Claims and releases of tasks: small, read whole by every worker, so compacted often. */
function ownersPlan(names: KafkaNames): TopicPlan {
  return { name: names.taskOwners, partitions: 1, configs: { 'cleanup.policy': 'compact', 'segment.ms': String(10 * 60_000), 'min.compaction.lag.ms': '0' } };
}

export function plannedTopics(topology: Topology, names: KafkaNames, partitions: number): TopicPlan[] {
  const plans: TopicPlan[] = [];
  for (const t of topology.topics.values()) {
    const retention = t.retention === 'until-consumed' ? 7 * DAY : t.retention.ms;
    plans.push({
      name: names.topic(t.name), partitions,
      // A record's bound, and never less than what a transaction puts in one partition's batch.
      configs: { 'retention.ms': String(retention), 'max.message.bytes': String(Math.max(t.maxRecordBytes, MAX_PARTITION_BATCH_BYTES) + 64 * 1024) },
    });
  }
  for (const p of topology.processors) plans.push(...changelogPlans(p, names, partitions));
  plans.push(ownersPlan(names));
  plans.push({ name: names.stateTopic, partitions: 1, configs: { 'cleanup.policy': 'compact' } });
  plans.push({ name: names.taskStatus, partitions: 1, configs: { 'cleanup.policy': 'compact', 'segment.ms': String(60_000) } });
  return plans;
}

/**
 * The changelogs of the given processors (and the owners topic), created where missing and grown to `partitions`: a processor
 * added to a running application (a module, an optional stage) after `topics create` or a scale-out
 * has none yet, and every task commits its positions to one.
 */
export async function ensureChangelogs(admin: Admin, names: KafkaNames, nodes: readonly ProcessorNode[], partitions: number): Promise<string[]> {
  const plans = nodes.flatMap((p) => changelogPlans(p, names, partitions));
  // Clusters made before tasks were claimed have no owners topic yet.
  const created = await createTopics(admin, [...plans, ownersPlan(names)]);
  const counts = await partitionCounts(admin, plans.map((p) => p.name));
  const grow = plans.filter((p) => (counts.get(p.name) ?? partitions) < partitions).map((p) => ({ topic: p.name, count: partitions }));
  if (grow.length) await admin.createPartitions({ topicPartitions: grow });
  return [...created, ...grow.map((g) => g.topic)];
}

/** How long createTopics keeps trying while the cluster says "not yet" (a broker still starting). */
const CREATE_DEADLINE_MS = 90_000;

/**
 * Creates every missing topic and waits until each partition has a leader; returns the names it
 * created. Existing topics are left as they are. A broker that has just started answers "does not
 * host this topic-partition" or "leader not available" for a while: those are retried with backoff
 * (the next round sees what the last one created), anything else fails at once.
 */
export async function createTopics(admin: Admin, plans: TopicPlan[], deadlineMs = CREATE_DEADLINE_MS): Promise<string[]> {
  const started = Date.now();
  const created = new Set<string>();
  for (let attempt = 0; ; attempt++) {
    try {
      const existing = new Set(await admin.listTopics());
      const missing = plans.filter((p) => !existing.has(p.name));
      if (missing.length) {
        const topics: ITopicConfig[] = missing.map((p) => ({
          topic: p.name, numPartitions: p.partitions, replicationFactor: -1,
          configEntries: Object.entries(p.configs).map(([name, value]) => ({ name, value })),
        }));
        for (const p of missing) created.add(p.name);
        await admin.createTopics({ topics, waitForLeaders: true });
      }
      await requireLeaders(admin, plans.map((p) => p.name));
      return plans.map((p) => p.name).filter((n) => created.has(n));
    } catch (err) {
      if (!notYet(err) || Date.now() - started > deadlineMs) throw err;
      await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** attempt, 5_000)));
    }
  }
}

async function requireLeaders(admin: Admin, topics: string[]): Promise<void> {
  const { topics: meta } = await admin.fetchTopicMetadata({ topics });
  for (const t of meta) {
    const leaderless = t.partitions.find((p) => p.leader < 0);
    if (leaderless) throw Object.assign(new Error(`${t.name}/${leaderless.partitionId} has no leader yet`), { type: 'LEADER_NOT_AVAILABLE' });
  }
}

/** Errors that mean "the cluster is not ready yet", not "this cannot work". */
function notYet(err: unknown): boolean {
  const e = err as { type?: string; retriable?: boolean; errors?: unknown[]; originalError?: unknown };
  if (e.errors?.length) return e.errors.every(notYet); // kafkajs aggregates per-topic failures
  if (e.originalError) return notYet(e.originalError); // …and wraps the last one when its retries run out
  return e.retriable === true || ['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE', 'TOPIC_ALREADY_EXISTS', 'NOT_CONTROLLER'].includes(e.type ?? '');
}

/** Partition count of each existing topic. */
export async function partitionCounts(admin: Admin, topics: string[]): Promise<Map<string, number>> {
  const { topics: meta } = await admin.fetchTopicMetadata({ topics });
  return new Map(meta.map((t) => [t.name, t.partitions.length]));
}
