// test-plan: e2e uses=kafka
// The worker's transactional producer (@platformatic/kafka) against a real broker: what the commit
// protocol needs of it. Records and group offsets are visible together or not at all, base offsets
// are where the records landed, and a new producer under the same id fences the old one (a worker's
// reset, and the owners' fencer, rely on it).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel, type TopicMessages } from 'kafkajs';
import { requireServices } from '../../test/support/services.js';
import { chunks, recordEnds } from './sent-records.js';
import { createTopics } from './topic-admin.js';
import { sendOffsetsInTransaction } from './txn-offsets.js';
import { errorNames, openTxnProducer, type TxnProducer } from './txn-producer.js';

describe('the transactional producer on a real broker', () => {
  const brokers = [requireServices().kafka];
  const kafka = new Kafka({ brokers, clientId: 'txn-producer-test', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const topic = `txnproducer${Date.now()}.fetched.changelog`;
  const group = `${topic}.group`;
  const producers: TxnProducer[] = [];
  const open = async (id: string) => {
    const requests: string[] = [];
    const p = await openTxnProducer({ brokers, transactionalId: `${topic}.${id}`, kafka, onRequest: (api) => requests.push(api) });
    producers.push(p);
    return { p, requests };
  };
  /** Records of `topic` a read_committed consumer sees, as partition → values. */
  const committed = async () => {
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.map((o) => [o.partition, Number(o.high)]));
  };

  before(async () => {
    await admin.connect();
    await createTopics(admin, [{ name: topic, partitions: 2, configs: {} }]);
  });
  after(async () => {
    for (const p of producers) await p.close().catch(() => {});
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  });

  it('should make records and group offsets visible only at commit, and answer where the records landed', async () => {
    const { p, requests } = await open('a');
    const big = Array.from({ length: 3_000 }, (_, i) => ({ key: `k${i}`, value: Buffer.alloc(600, i % 251), partition: i % 2, timestamp: String(Date.now()) }));
    const t = await p.begin();
    const ends = new Map<string, number>();
    const requestsOf = [...chunks([{ topic, messages: big } satisfies TopicMessages])];
    assert.ok(requestsOf.length > 1, 'the records need more than one request (512 KB a partition)');
    for (const r of requestsOf) recordEnds(r, await t.send(r), ends);
    await t.sendOffsets({ consumerGroupId: group, topics: [{ topic, partitions: [{ partition: 0, offset: '7' }] }] });
    assert.deepEqual([...(await committed()).values()], [0, 0], 'nothing is visible before the commit');
    assert.deepEqual(await admin.fetchOffsets({ groupId: group, topics: [topic] }).then((r) => r[0]!.partitions.find((x) => x.partition === 0)!.offset), '-1');
    await t.commit();
    assert.deepEqual(Object.fromEntries(ends), { [`${topic}/0`]: 1_500, [`${topic}/1`]: 1_500 });
    // The last stable offset moves once the coordinator has written the markers, just after commit() returns.
    for (let i = 0; i < 100 && (await committed()).get(0)! < 1_500; i++) await new Promise((r) => setTimeout(r, 50));
    const visible = await committed();
    assert.ok(visible.get(0)! >= 1_500 && visible.get(1)! >= 1_500, `all 3,000 records visible (${[...visible.values()]})`);
    const groupOffsets = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    assert.equal(groupOffsets[0]!.partitions.find((x) => x.partition === 0)!.offset, '7');
    assert.ok(requests.includes('Produce') && requests.includes('EndTxn'), `requests counted (${[...new Set(requests)]})`);
  });

  it('should leave nothing visible from an aborted transaction', async () => {
    const { p } = await open('b');
    const before = await committed();
    const t = await p.begin();
    await t.send([{ topic, messages: [{ key: 'x', value: Buffer.from('aborted'), partition: 0 }] }]);
    await t.abort();
    const t2 = await p.begin();
    const [r] = await t2.send([{ topic, messages: [{ key: 'y', value: Buffer.from('kept'), partition: 0 }] }]);
    await t2.commit();
    // The aborted record and its marker took offsets: the kept one landed after them.
    assert.ok(Number(r!.baseOffset) >= before.get(0)! + 2, `base offset ${r!.baseOffset} after the aborted record and its marker`);
  });

  it('should write a store delete as a tombstone (a null value), which compaction and restore read as a delete', async () => {
    const { p } = await open('d');
    const t = await p.begin();
    const [r] = await t.send([{ topic, messages: [{ key: 'gone', value: null, partition: 1 }] }]);
    await t.commit();
    const consumer = kafka.consumer({ groupId: `${topic}.tombstone` });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      const seen = new Promise<Buffer | null>((resolve) => {
        void consumer.run({ eachMessage: async ({ partition, message }) => { if (partition === 1 && message.offset === r!.baseOffset) resolve(message.value); } });
      });
      assert.equal(await seen, null);
    } finally {
      await consumer.disconnect();
    }
  });

  it('should leave no connection open after close, however many groups sent their offsets at once', async () => {
    const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
    const before = sockets();
    const p = await openTxnProducer({ brokers, transactionalId: `${topic}.e`, kafka });
    const t = await p.begin();
    await t.send([{ topic, messages: [{ key: 'o', value: Buffer.from('o'), partition: 0 }] }]);
    // As a worker transaction sends them: every group's at once, each asking for the offsets connection.
    await Promise.all([1, 2, 3].map((g) => sendOffsetsInTransaction(t, { consumerGroupId: `${group}.${g}`, topics: [{ topic, partitions: [{ partition: 0, offset: '1' }] }] })));
    await t.commit();
    await p.close();
    for (let i = 0; i < 40 && sockets() > before; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(sockets(), before, 'every connection the producer opened is closed (a left one keeps the process from exiting)');
  });

  it('should be fenced by a new producer under the same id, its open transaction aborted', async () => {
    const { p: old } = await open('c');
    const t = await old.begin();
    await t.send([{ topic, messages: [{ key: 'z', value: Buffer.from('zombie'), partition: 1 }] }]);
    await open('c');
    const err = await t.commit().then(() => undefined, (e: Error) => e);
    assert.ok(err, 'the old producer cannot commit');
    assert.match(err.message, /PRODUCER_FENCED|INVALID_PRODUCER_EPOCH/, 'the failure names the fencing, which is how the worker tells it apart');
  });
});

describe('client errors', () => {
  it('should find the broker error names nested in a client error', () => {
    const err = { message: 'EndTxn failed 2 times.', errors: [{ message: 'x', apiId: 'CONCURRENT_TRANSACTIONS' }, { message: 'y', errors: [{ message: 'z', apiId: 'PRODUCER_FENCED' }] }] };
    assert.deepEqual(errorNames(err), ['CONCURRENT_TRANSACTIONS', 'PRODUCER_FENCED']);
  });
});
