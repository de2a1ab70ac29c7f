// test-plan: e2e uses=kafka
// Restoring from a changelog partition on which a transaction is still open (issue 18: after a
// broker restart a worker found its tasks' local state "ahead of changelog" and could not start
// them). The open transaction holds the partition's last stable offset at its first record; records
// committed after it, and a local checkpoint past them, lie beyond. A real broker: the last stable
// offset is the broker's, not a model of it. Also: a restore leaves no consumer group behind.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel, type Producer, type Transaction } from 'kafkajs';
import { requireServices } from '../../test/support/services.js';
import { restoreChangelogs } from './changelog-restore.js';
import { createTopics } from './topic-admin.js';
import { partitionEnds } from './partition-ends.js';

describe('changelog restore past an open transaction', () => {
  const kafka = new Kafka({ brokers: [requireServices().kafka], clientId: 'restore-test', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const prefix = `restore${Date.now()}.`;
  const producers: Producer[] = [];

  before(() => admin.connect());
  after(async () => {
    for (const p of producers) await p.disconnect().catch(() => {});
    await admin.deleteTopics({ topics: ['a', 'b', 'c', 'd', 'e'].map((t) => `${prefix}${t}.changelog`) }).catch(() => {});
    await admin.disconnect();
  });

  async function transactional(id: string): Promise<Producer> {
    const p = kafka.producer({ transactionalId: `${prefix}${id}`, idempotent: true, maxInFlightRequests: 1 });
    await p.connect();
    producers.push(p);
    return p;
  }

  /**
   * A changelog partition holding: k0–k2 committed by the owner, then one record of another producer's
   * open transaction, then k3–k4 committed by the owner. Returns the open transaction and the owner's
   * end after its last commit (what its worker wrote as the local checkpoint).
   */
  async function changelogWithOpenTransaction(topic: string): Promise<{ open: Transaction; checkpoint: number }> {
    // The engine's own creation: a loaded broker answers "does not host this topic-partition" for a
    // while after creating it, which kafkajs's createTopics does not wait out.
    await createTopics(admin, [{ name: topic, partitions: 1, configs: { 'cleanup.policy': 'compact' } }]);
    const owner = await transactional(`${topic}-owner`);
    const other = await transactional(`${topic}-other`);
    const commit = async (keys: string[]) => {
      const t = await owner.transaction();
      const [sent] = await t.send({ topic, messages: keys.map((k) => ({ key: k, value: `v-${k}`, partition: 0 })) });
      await t.commit();
      return Number(sent.baseOffset) + keys.length;
    };
    await commit(['k0', 'k1', 'k2']);
    const open = await other.transaction();
    await open.send({ topic, messages: [{ key: 'pending', value: 'v-pending', partition: 0 }] });
    const checkpoint = await commit(['k3', 'k4']);
    // EndTxn returns once the coordinator has decided; the commit marker reaches the partition after
    // it. Until it does the log ends at the checkpoint and there is nothing to restore (the fresh-clone
    // CI failure of this file): wait for the marker, so the partition is what each test describes.
    for (let waited = 0; ; waited += 20) {
      const high = (await partitionEnds(kafka, admin, [topic])).get(`${topic}/0`)!.high;
      if (high > checkpoint) break;
      assert.ok(waited < 10_000, `the owner's commit marker did not reach ${topic}/0 within 10 s (end ${high}, checkpoint ${checkpoint})`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const [p] = await admin.fetchTopicOffsets(topic);
    assert.ok(Number(p.high) < checkpoint, `the admin's end (${p.high}) is the last stable offset, held below the checkpoint ${checkpoint} by the open transaction`);
    return { open, checkpoint };
  }

  /** Restores `topic` from `from`; `onWait` is called once when the restore says it waits. */
  async function restore(topic: string, from: number, onWait: () => void) {
    const applied: string[] = [];
    let told = false;
    const lines: string[] = [];
    const logger = {
      info: (m: string) => {
        lines.push(m);
        if (!told && m.includes('waits for an open transaction')) {
          told = true;
          onWait();
        }
      },
      warn: (m: string) => lines.push(m),
    };
    const reached = await restoreChangelogs(kafka, admin, [{ topic, partition: 0, from }], async (_t, entries) => {
      for (const e of entries) applied.push(e.key.toString('utf8'));
    }, { logger });
    return { reached: reached.get(`${topic}/0`)!, applied, lines };
  }

  it('should wait for the open transaction to end instead of calling a checkpoint past it "ahead of the changelog"', async () => {
    const topic = `${prefix}a.changelog`;
    const { open, checkpoint } = await changelogWithOpenTransaction(topic);
    const { reached, applied, lines } = await restore(topic, checkpoint, () => void open.abort());
    assert.notEqual(reached, -1, 'a checkpoint within the log is not "ahead" of it');
    assert.ok(reached >= checkpoint, `restored up to ${reached}, not below the checkpoint ${checkpoint}`);
    assert.deepEqual(applied, [], 'nothing past the checkpoint but the markers');
    assert.ok(lines.some((l) => l.includes(`${topic}/0 stable at`)), `the wait names the partition and its offsets: ${lines.join(' | ')}`);
  });

  it('should restore every committed record, including those committed after an open transaction', async () => {
    const topic = `${prefix}b.changelog`;
    const { open, checkpoint } = await changelogWithOpenTransaction(topic);
    const { reached, applied } = await restore(topic, 0, () => void open.commit());
    assert.deepEqual(applied, ['k0', 'k1', 'k2', 'pending', 'k3', 'k4']);
    assert.ok(reached > checkpoint, `restored up to ${reached}, past the owner's last commit (${checkpoint}) and its marker`);
  });

  it('should leave no consumer group behind on the broker', async () => {
    // `status` restores the task-status topic every second: each group left behind was kept for days.
    const topic = `${prefix}e.changelog`;
    await createTopics(admin, [{ name: topic, partitions: 1, configs: { 'cleanup.policy': 'compact' } }]);
    const owner = await transactional(`${topic}-owner`);
    const t = await owner.transaction();
    await t.send({ topic, messages: [{ key: 'k0', value: 'v', partition: 0 }] });
    await t.commit();
    const groupId = `${prefix}restore-group`;
    const applied: string[] = [];
    await restoreChangelogs(kafka, admin, [{ topic, partition: 0, from: 0 }], async (_t, entries) => void applied.push(...entries.map((e) => e.key.toString('utf8'))), { groupId });
    assert.deepEqual(applied, ['k0']);
    const { groups } = await admin.listGroups();
    assert.deepEqual(groups.filter((g) => g.groupId === groupId), [], 'the restore\'s group is gone');
  });

  it('should fail, naming the producer that holds the partition, when the transaction outlives the bound', async () => {
    const topic = `${prefix}c.changelog`;
    const { open, checkpoint } = await changelogWithOpenTransaction(topic);
    try {
      await assert.rejects(
        restoreChangelogs(kafka, admin, [{ topic, partition: 0, from: checkpoint }], async () => {}, { stableWithinMs: 1_500 }),
        (err: Error) => {
          assert.match(err.message, new RegExp(`${topic.replace(/\./g, '\\.')}/0@\\d+ by producer id \\d+ epoch \\d+, key pending`));
          assert.match(err.message, /local checkpoint/);
          return true;
        },
      );
    } finally {
      await open.abort();
    }
  });

  it('should start a task at once whose checkpoint is the end of the log, with its own last records still without a marker', async () => {
    // The fresh-clone failure: a worker's last transaction before the broker restart was committed
    // as far as the worker knew (its checkpoint moved to the end of its records), but its partitions
    // held those records without a commit marker, so their last stable offset stayed below for good.
    // Nothing is left to read; the task's next commit, from the same producer, writes the marker.
    const topic = `${prefix}d.changelog`;
    // The engine's own creation: a loaded broker answers "does not host this topic-partition" for a
    // while after creating it, which kafkajs's createTopics does not wait out.
    await createTopics(admin, [{ name: topic, partitions: 1, configs: { 'cleanup.policy': 'compact' } }]);
    const owner = await transactional(`${topic}-owner`);
    const t = await owner.transaction();
    const [sent] = await t.send({ topic, messages: ['k0', 'k1'].map((k) => ({ key: k, value: `v-${k}`, partition: 0 })) });
    const checkpoint = Number(sent.baseOffset) + 2;
    try {
      const waited: string[] = [];
      const reached = await restoreChangelogs(kafka, admin, [{ topic, partition: 0, from: checkpoint }], async () => assert.fail('nothing to apply'), {
        logger: { info: (m) => waited.push(m), warn: (m) => waited.push(m) },
        stableWithinMs: 60_000,
      });
      assert.equal(reached.get(`${topic}/0`), checkpoint, 'not "ahead": the checkpoint is the end of the log');
      assert.deepEqual(waited, [], 'nothing to wait for');
    } finally {
      await t.abort();
    }
  });
});
