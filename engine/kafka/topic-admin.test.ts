import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Admin } from 'kafkajs';
import { defineTopic } from '../topic.js';
import { TopologyBuilder } from '../topology.js';
import { lines, wordCountTopology } from '../examples/word-count.js';
import { KafkaNames } from './kafka-names.js';
import { MAX_PARTITION_BATCH_BYTES } from './sent-records.js';
import { createTopics, plannedTopics, type TopicPlan } from './topic-admin.js';

/**
 * An admin client shaped like a broker that has just started: it creates topics, but for the first
 * `notReadyFor` calls it answers as kafkajs does when the metadata is not there yet.
 */
function startingBroker(notReadyFor: number, failure: object, leaderless = false) {
  const topics = new Set<string>();
  let calls = 0;
  const admin = {
    listTopics: async () => [...topics],
    createTopics: async ({ topics: wanted }: { topics: { topic: string }[] }) => {
      for (const t of wanted) topics.add(t.topic);
      if (++calls <= notReadyFor) throw Object.assign(new Error('This server does not host this topic-partition'), failure);
      return true;
    },
    fetchTopicMetadata: async ({ topics: names }: { topics: string[] }) => ({
      topics: names.map((name) => ({ name, partitions: [{ partitionId: 0, leader: leaderless ? -1 : 1 }] })),
    }),
  };
  return { admin: admin as unknown as Admin, topics };
}

const plans: TopicPlan[] = [
  { name: 'a', partitions: 1, configs: {} },
  { name: 'b', partitions: 1, configs: {} },
];

describe('createTopics', () => {
  it('should wait out a broker that does not host the new partitions yet, and report what it created', async () => {
    const { admin, topics } = startingBroker(1, { type: 'UNKNOWN_TOPIC_OR_PARTITION', retriable: true });
    assert.deepEqual(await createTopics(admin, plans), ['a', 'b']);
    assert.deepEqual([...topics].sort(), ['a', 'b']);
  });

  it('should see through kafkajs wrapping the last "not yet" when its own retries ran out', async () => {
    const { admin } = startingBroker(1, { name: 'KafkaJSNumberOfRetriesExceeded', retriable: false, originalError: { type: 'LEADER_NOT_AVAILABLE' } });
    assert.deepEqual(await createTopics(admin, plans), ['a', 'b']);
  });

  it('should fail at once on an error that retrying cannot fix', async () => {
    const { admin } = startingBroker(5, { type: 'POLICY_VIOLATION', retriable: false });
    const started = Date.now();
    await assert.rejects(createTopics(admin, plans), /does not host/);
    assert.ok(Date.now() - started < 400, 'no backoff for a permanent error');
  });

  it('should give up after its deadline when partitions never get a leader', async () => {
    const { admin } = startingBroker(0, {}, true);
    await assert.rejects(createTopics(admin, plans, 1_000), /a\/0 has no leader yet/);
  });
});

describe('planned topics', () => {
  it('should let every topic take a batch as large as a transaction puts in one partition, whatever its records\' bound', () => {
    const tiny = defineTopic<{ doc: string; text: string }>()({ ...lines, name: 'tiny-lines', maxRecordBytes: 1024 });
    const small = new TopologyBuilder().topic(tiny).build();
    for (const topology of [wordCountTopology(), small]) {
      for (const plan of plannedTopics(topology, new KafkaNames('app'), 2)) {
        const limit = Number(plan.configs['max.message.bytes'] ?? 1024 * 1024);
        assert.ok(limit > MAX_PARTITION_BATCH_BYTES + 4096, `${plan.name}: max.message.bytes ${limit}`);
      }
    }
  });
});
