// Creating and growing the topology's topics on Kafka: topic configs follow the topology's
// declarations (retention, max.message.bytes), changelogs are compacted.
import type { Admin, ITopicConfig } from 'kafkajs';
import type { Topology } from '../../topology/topology.js';
import { KafkaNames, POSITIONS_STORE } from './kafka-names.js';

const DAY = 24 * 60 * 60 * 1000;

export interface TopicPlan {
  name: string;
  partitions: number;
  configs: Record<string, string>;
}

export function plannedTopics(topology: Topology, names: KafkaNames, partitions: number): TopicPlan[] {
  const plans: TopicPlan[] = [];
  for (const t of topology.topics.values()) {
    const retention = t.retention === 'until-consumed' ? 7 * DAY : t.retention.ms;
    plans.push({
      name: names.topic(t.name), partitions,
      configs: { 'retention.ms': String(retention), 'max.message.bytes': String(t.maxRecordBytes + 64 * 1024) },
    });
  }
  for (const p of topology.processors) {
    for (const store of [...p.stores.map((s) => s.name), POSITIONS_STORE]) {
      plans.push({
        name: names.changelog(p.name, store), partitions,
        configs: { 'cleanup.policy': 'compact', 'max.message.bytes': String(16 * 1024 * 1024), 'min.compaction.lag.ms': '0' },
      });
    }
  }
  plans.push({ name: names.crawlConfig, partitions: 1, configs: { 'cleanup.policy': 'compact' } });
  plans.push({ name: names.taskStatus, partitions: 1, configs: { 'cleanup.policy': 'compact', 'segment.ms': String(60_000) } });
  return plans;
}

/** Creates every missing topic; returns the names created. Existing topics are left as they are. */
export async function createTopics(admin: Admin, plans: TopicPlan[]): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const missing = plans.filter((p) => !existing.has(p.name));
  if (missing.length === 0) return [];
  const topics: ITopicConfig[] = missing.map((p) => ({
    topic: p.name, numPartitions: p.partitions, replicationFactor: -1,
    configEntries: Object.entries(p.configs).map(([name, value]) => ({ name, value })),
  }));
  await admin.createTopics({ topics, waitForLeaders: true });
  return missing.map((p) => p.name);
}

/** Partition count of each existing topic. */
export async function partitionCounts(admin: Admin, topics: string[]): Promise<Map<string, number>> {
  const { topics: meta } = await admin.fetchTopicMetadata({ topics });
  return new Map(meta.map((t) => [t.name, t.partitions.length]));
}
