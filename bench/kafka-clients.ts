// The two Kafka clients the adapter uses, side by side on the dev broker: CPU a record to produce in
// transactions (what a worker's commits do) and to consume read_committed, and the broker's CPU for
// each. The measurement behind engine/kafka/txn-producer.ts: kafkajs 2.2.4 against @platformatic/kafka.
//   scripts/dev-services.sh up && set -a && eval "$(scripts/dev-services.sh env)" && set +a
//   node dist/bench/kafka-clients.js [--records 100000] [--per-transaction 2000] [--rounds 2]
// Each arm runs in a process of its own (its own JIT), the first tenth of its records unmeasured; arms
// alternate (ABBA) and the table prints each round. Records are sized like a crawl's: mostly URL
// batches and results of a few hundred bytes, some page-sized.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Consumer, FetchIsolationLevels, Producer } from '@platformatic/kafka';
import { Kafka, logLevel } from 'kafkajs';
import { createTopics } from '../engine/kafka/topic-admin.js';
import { cpuSecondsOf } from './proc.js';
import { pidListeningOn } from './service-pids.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' }, 'per-transaction': { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '2' }, arm: { type: 'string' }, topic: { type: 'string' },
  },
});
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:19092').split(',');
const records = Number(values.records);
const perTransaction = Number(values['per-transaction']);
const SIZES = [180, 180, 240, 300, 420, 600, 900, 1400, 3000, 9000];
const PARTITIONS = 8;
const message = (i: number) => ({ key: Buffer.from(`127.20.0.${i % 200}:41234`), value: Buffer.alloc(SIZES[i % SIZES.length]!, 97 + (i % 26)), partition: i % PARTITIONS });
const ARMS = ['kafkajs produce', 'platformatic produce', 'kafkajs consume', 'platformatic consume'] as const;
type Arm = (typeof ARMS)[number];

interface ArmResult { arm: Arm; records: number; clientMicrosPerRecord: number; brokerMicrosPerRecord: number; wallSeconds: number }

/** One arm, in this process: counts from the first tenth of the records on. */
async function runArm(arm: Arm, topic: string): Promise<ArmResult> {
  const broker = pidListeningOn(Number(brokers[0]!.split(':')[1]));
  let start: { cpu: NodeJS.CpuUsage; broker: number; at: number; done: number } | undefined;
  let done = 0;
  const mark = () => {
    if (!start && done >= records / 10) start = { cpu: process.cpuUsage(), broker: broker ? cpuSecondsOf(broker) ?? 0 : 0, at: performance.now(), done };
  };
  const kafka = new Kafka({ brokers, clientId: 'bench-clients', logLevel: logLevel.NOTHING });
  if (arm === 'kafkajs produce') {
    const producer = kafka.producer({ transactionalId: `${topic}.kafkajs`, idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    for (let i = 0; i < records; i += perTransaction) {
      const t = await producer.transaction();
      const messages = Array.from({ length: Math.min(perTransaction, records - i) }, (_, j) => message(i + j));
      await t.sendBatch({ topicMessages: [{ topic, messages }] });
      await t.commit();
      done += messages.length;
      mark();
    }
    await producer.disconnect();
  } else if (arm === 'platformatic produce') {
    const producer = new Producer({ clientId: 'bench-clients', bootstrapBrokers: brokers, transactionalId: `${topic}.platformatic`, idempotent: true, producerId: -1n, producerEpoch: -1, retries: 40, retryDelay: 20 });
    for (let i = 0; i < records; i += perTransaction) {
      const t = await producer.beginTransaction();
      const messages = Array.from({ length: Math.min(perTransaction, records - i) }, (_, j) => ({ topic, ...message(i + j) }));
      await t.send({ messages });
      await t.commit();
      done += messages.length;
      mark();
    }
    await producer.close();
  } else if (arm === 'kafkajs consume') {
    const consumer = kafka.consumer({ groupId: `${topic}.kafkajs.${process.pid}`, readUncommitted: false, maxWaitTimeInMs: 200 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve) => {
      void consumer.run({ autoCommit: false, eachBatch: async ({ batch }) => { done += batch.messages.length; mark(); if (done >= records) resolve(); } });
    });
    await consumer.disconnect();
  } else {
    const consumer = new Consumer({ groupId: `${topic}.platformatic.${process.pid}`, clientId: 'bench-clients', bootstrapBrokers: brokers, isolationLevel: FetchIsolationLevels.READ_COMMITTED, maxWaitTime: 200 });
    const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false });
    await new Promise<void>((resolve) => stream.on('data', () => { done++; mark(); if (done >= records) resolve(); }));
    await stream.close();
    await consumer.close(true);
  }
  const cpu = process.cpuUsage(start!.cpu);
  const n = done - start!.done;
  const brokerSeconds = broker ? (cpuSecondsOf(broker) ?? 0) - start!.broker : NaN;
  const r2 = (x: number) => Math.round(x * 100) / 100;
  return { arm, records: n, clientMicrosPerRecord: r2(((cpu.user + cpu.system) / n)), brokerMicrosPerRecord: r2((brokerSeconds * 1e6) / n), wallSeconds: r2((performance.now() - start!.at) / 1000) };
}

async function main(): Promise<void> {
  if (values.arm) {
    process.stdout.write(`${JSON.stringify(await runArm(values.arm as Arm, values.topic!))}\n`);
    return;
  }
  const admin = new Kafka({ brokers, clientId: 'bench-clients', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const run = Date.now();
  const topics: string[] = [];
  const rows: ArmResult[] = [];
  try {
    for (let round = 0; round < Number(values.rounds); round++) {
      // Each producer writes a topic of its own; both consumers then read the one kafkajs wrote.
      const order = round % 2 === 0 ? ARMS : ([ARMS[1], ARMS[0], ARMS[3], ARMS[2]] as const);
      const of: Record<string, string> = { kafkajs: `benchclients${run}r${round}a`, platformatic: `benchclients${run}r${round}b` };
      topics.push(...Object.values(of));
      await createTopics(admin, Object.values(of).map((name) => ({ name, partitions: PARTITIONS, configs: {} })));
      for (const arm of order) {
        const topic = arm.endsWith('consume') ? of.kafkajs! : of[arm.split(' ')[0]!]!;
        const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--arm', arm, '--topic', topic, '--records', String(records), '--per-transaction', String(perTransaction)], { encoding: 'utf8', env: process.env });
        if (child.status !== 0) throw new Error(`${arm}: exit ${child.status}: ${child.stderr.slice(-2000)}`);
        const r = JSON.parse(child.stdout.trim().split('\n').pop()!) as ArmResult;
        rows.push(r);
        process.stderr.write(`kafka-clients: round ${round + 1}, ${arm}: ${r.clientMicrosPerRecord} µs a record (broker ${r.brokerMicrosPerRecord}), ${r.records} records in ${r.wallSeconds} s\n`);
      }
    }
  } finally {
    await admin.deleteTopics({ topics }).catch(() => {});
    await admin.disconnect();
  }
  const mean = (arm: Arm, k: 'clientMicrosPerRecord' | 'brokerMicrosPerRecord') => {
    const xs = rows.filter((r) => r.arm === arm).map((r) => r[k]);
    return Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100;
  };
  console.log(`| arm (${records} records of ${SIZES.join('/')} bytes, ${perTransaction} a transaction, ${PARTITIONS} partitions) | client µs a record | broker µs a record |`);
  console.log('|---|---:|---:|');
  for (const arm of ARMS) console.log(`| ${arm} | ${mean(arm, 'clientMicrosPerRecord')} | ${mean(arm, 'brokerMicrosPerRecord')} |`);
}

await main();
