// test-plan: e2e uses=kafka
// Setting a group's positions without joining it (what a replay's groups start from), on a real broker.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { requireServices } from '../../test/support/services.js';
import { setGroupOffsets } from './group-offsets.js';
import { createTopics } from './topic-admin.js';

describe('setting a consumer group\'s positions', () => {
  const kafka = new Kafka({ brokers: [requireServices().kafka], clientId: 'group-offsets-test', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const prefix = `groupoffsets${Date.now()}.`;
  const topic = `${prefix}source`;
  const consumers: Consumer[] = [];

  before(async () => {
    await admin.connect();
    await createTopics(admin, [{ name: topic, partitions: 3, configs: {} }]);
  });
  after(async () => {
    for (const c of consumers) await c.disconnect().catch(() => {});
    await admin.deleteGroups([`${prefix}new`, `${prefix}reading`]).catch(() => {});
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  });

  it('should give a new group exactly the positions asked, partition by partition', async () => {
    const groupId = `${prefix}new`;
    await setGroupOffsets(kafka, admin, groupId, topic, new Map([[0, 4], [1, 2], [2, 7]]));
    await setGroupOffsets(kafka, admin, groupId, topic, new Map([[1, 3]])); // again, one partition: the others keep theirs
    const [{ partitions }] = await admin.fetchOffsets({ groupId, topics: [topic] });
    assert.deepEqual(partitions.map((p) => [p.partition, p.offset]).sort(), [[0, '4'], [1, '3'], [2, '7']]);
  });

  it('should refuse a group whose members are reading, naming it', async () => {
    const groupId = `${prefix}reading`;
    const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.run({ eachMessage: async () => {} });
    await joined;
    await assert.rejects(setGroupOffsets(kafka, admin, groupId, topic, new Map([[0, 0]])), new RegExp(`consumer group ${groupId.replace(/\./g, '\\.')} has 1 running member`));
  });
});
