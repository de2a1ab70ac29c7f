// test-plan: e2e uses=kafka
// A transaction's records as the worker sends them, against a real broker's per-batch limit: a slow
// transaction that piled up more than a topic's max.message.bytes for one partition once failed whole
// (MESSAGE_TOO_LARGE), and every task of the worker was re-opened and its fetches done again.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel, type Producer, type TopicMessages } from 'kafkajs';
import { requireServices } from '../../test/support/services.js';
import { chunks } from './sent-records.js';
import { createTopics } from './topic-admin.js';

describe('a transaction\'s produce requests on a real broker', () => {
  const kafka = new Kafka({ brokers: [requireServices().kafka], clientId: 'sent-records-test', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const topic = `sentrecords${Date.now()}.discovered-urls`;
  const producers: Producer[] = [];
  // 3 MB of URL-sized records for one partition of a topic sized as the URL topics are (1 MB + 64 KB).
  const messages = Array.from({ length: 12_000 }, (_, i) => ({ key: 'host-7', value: Buffer.alloc(256, i % 251), partition: 1 }));

  before(async () => {
    await admin.connect();
    await createTopics(admin, [{ name: topic, partitions: 2, configs: { 'max.message.bytes': String(1024 * 1024 + 64 * 1024) } }]);
  });
  after(async () => {
    for (const p of producers) await p.disconnect().catch(() => {});
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  });

  async function inTransaction(id: string, send: (t: Awaited<ReturnType<Producer['transaction']>>) => Promise<void>): Promise<void> {
    const producer = kafka.producer({ transactionalId: `${topic}.${id}`, idempotent: true, maxInFlightRequests: 1 });
    producers.push(producer);
    await producer.connect();
    const t = await producer.transaction();
    try {
      await send(t);
      await t.commit();
    } catch (err) {
      await t.abort().catch(() => {});
      throw err;
    }
  }

  it('should be refused as one record batch (the failure the chunking prevents)', async () => {
    await assert.rejects(inTransaction('whole', (t) => t.sendBatch({ topicMessages: [{ topic, messages }] }).then(() => {})), /larger than the max message size/);
  });

  it('should commit every record when sent chunk by chunk', async () => {
    // Partition 0: the refused transaction above touched partition 1, and its abort marker lands
    // there whenever the coordinator gets to it.
    const toZero = messages.map((m) => ({ ...m, partition: 0 }));
    const requests = [...chunks([{ topic, messages: toZero } satisfies TopicMessages])];
    assert.ok(requests.length > 1);
    // kafkajs lists offsets read_committed: the last stable offset, which moves only once the
    // coordinator has written the commit marker, and it writes it after commit() returns.
    const stableOf = async () => Number((await admin.fetchTopicOffsets(topic)).find((o) => o.partition === 0)!.high);
    const before = await stableOf();
    await inTransaction('chunked', async (t) => {
      for (const r of requests) await t.sendBatch({ topicMessages: r });
    });
    // Every record, then the commit marker.
    const expected = before + messages.length + 1;
    let stable = await stableOf();
    for (const deadline = Date.now() + 30_000; stable < expected && Date.now() < deadline; stable = await stableOf()) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(stable - before, messages.length + 1);
  });
});
