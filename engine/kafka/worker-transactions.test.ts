import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RecordMetadata, TopicMessages } from 'kafkajs';
import type { TaskCommit } from '../task/task-records.js';
import { KafkaNames } from './kafka-names.js';
import type { TxnProducer } from './txn-producer.js';
import { WorkerTransactions, type CommitParticipant } from './worker-transactions.js';

/** A producer that records what each transaction sent and lets the test hold a commit open. */
function fakeKafka() {
  const transactions: { sent: TopicMessages[]; committed: boolean }[] = [];
  let hold: Promise<void> | undefined;
  let releaseHold = () => {};
  const producer: TxnProducer = {
    close: async () => {},
    begin: async () => {
      const t = { sent: [] as TopicMessages[], committed: false };
      return {
        send: async (topicMessages: TopicMessages[]): Promise<RecordMetadata[]> => {
          t.sent.push(...topicMessages);
          return topicMessages.flatMap((tm) => tm.messages.map((m) => ({ topicName: tm.topic, partition: m.partition ?? 0, errorCode: 0, baseOffset: '0' })));
        },
        sendOffsets: async () => {},
        commit: async () => {
          transactions.push(t);
          await hold;
          t.committed = true;
        },
        abort: async () => {},
      };
    },
  };
  return {
    openProducer: async () => producer,
    transactions,
    holdCommits() {
      hold = new Promise((r) => (releaseHold = r));
    },
    releaseCommits() {
      hold = undefined;
      releaseHold();
    },
  };
}

function member(id: string) {
  const m = {
    id,
    node: { name: id.split('/')[0]!, storedName: id.split('/')[0]! },
    partition: Number(id.split('/')[1]),
    partitions: 4,
    leaving: false,
    pending: true,
    takeCommit(): TaskCommit | undefined {
      if (!m.pending) return undefined;
      m.pending = false;
      return { outputs: [{ topic: 'out', key: id, value: Buffer.from('v'), timestamp: 0 }], stores: [], positions: [], counters: new Map() };
    },
    committed: async () => {},
  };
  return m satisfies CommitParticipant;
}

const releases = (sent: TopicMessages[], topic: string) =>
  sent.filter((t) => t.topic === topic).flatMap((t) => t.messages)
    .filter((m) => JSON.parse(String(m.value)).released === true).map((m) => String(m.key));

describe('worker transactions', () => {
  it('should release a task whose hand-over ended while a transaction was on the wire, in the next transaction', async () => {
    const fake = fakeKafka();
    const names = new KafkaNames('t.');
    const tx = new WorkerTransactions({ openProducer: fake.openProducer, names, transactionalId: 'w', intervalMs: 1, logger: { info() {}, warn() {} }, onFailure: (e) => assert.fail(e) });
    await tx.start();
    const task = member('dedup/2');
    tx.add(task);

    fake.holdCommits();
    const first = tx.now();
    await new Promise((r) => setTimeout(r, 10)); // the first transaction waits on its commit
    assert.equal(fake.transactions.length, 1);
    // Meanwhile the task finishes handing over and asks for the transaction that releases it.
    task.leaving = true;
    task.pending = true;
    const handedOver = tx.now();
    fake.releaseCommits();
    await first;
    await handedOver;

    assert.deepEqual(releases(fake.transactions[0]!.sent, names.taskOwners), [], 'the first transaction was built before the task left');
    const second = fake.transactions[1];
    assert.ok(second, 'a second transaction ran for the task that left');
    assert.deepEqual(releases(second.sent, names.taskOwners), ['dedup/2'], 'the task is released, not dropped unreleased');
    assert.ok(second.sent.some((t) => t.topic === 't.out'), 'with the work it finished while handing over');
    await tx.stop();
  });
});
