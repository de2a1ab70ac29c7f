// The conformance suite on Kafka: workers are KafkaRuntimes in this process; moving every task is a
// second worker joining and the first leaving cleanly (hand-over, release, restore elsewhere).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { partitionFor } from '../partitioning.js';
import { connectCluster, renewLogId, topologyCodecs, writeClusterState } from '../kafka/kafka-cluster.js';
import { KafkaRuntime } from '../kafka/kafka-runtime.js';
import { restoreChangelogs } from '../kafka/changelog-restore.js';
import { createTopics, plannedTopics } from '../kafka/topic-admin.js';
import type { Harness, RunningApp } from './conformance-suite.js';

const PARTITIONS = 2;
const quiet = process.env.CONFORMANCE_DEBUG ? { info: (m: string) => console.error(m), warn: (m: string) => console.error(`warn: ${m}`) } : { info: () => {}, warn: () => {} };

export const kafkaHarness = (brokers: string, registryUrl: string): Harness => ({
  async start(topology, services, clock) {
    const prefix = `conf${Date.now()}${Math.floor(Math.random() * 1000)}.`;
    const cluster = await connectCluster({ brokers: [brokers], prefix, logger: quiet });
    await createTopics(cluster.admin, plannedTopics(topology, cluster.names, PARTITIONS));
    await renewLogId(cluster);
    await writeClusterState(cluster, { options: {}, control: { paused: false, generation: 0, partitions: PARTITIONS } });
    const codecs = await topologyCodecs(topology, cluster.names, registryUrl);
    const producer = cluster.kafka.producer();
    await producer.connect();
    const worker = async () => {
      const rt = new KafkaRuntime({
        cluster, topology, services, control: { paused: false }, registryUrl, logger: quiet, clock,
        dataDir: mkdtempSync(join(tmpdir(), 'conformance-kafka-')), sessionTimeoutMs: 6000, handoverGraceMs: 30_000,
      });
      await rt.start();
      return rt;
    };
    const workers = [await worker()];
    const allTasks = topology.processors.length * PARTITIONS;
    const settled = async () => {
      const progress = workers.flatMap((w) => w.progress());
      if (progress.length !== allTasks || progress.some((p) => !p.settled)) return false;
      for (const p of progress) {
        for (const topic of p.task.node.inputs) {
          const ends = await cluster.admin.fetchTopicOffsets(cluster.names.topic(topic));
          const end = Number(ends.find((e) => e.partition === p.task.partition)?.high ?? 0);
          if ((p.consumedUpTo[topic] ?? 0) < end) return false;
        }
      }
      return true;
    };
    const app: RunningApp = {
      async produce(topic, key, value) {
        await producer.send({ topic: cluster.names.topic(topic), messages: [{ key, value: codecs.encode(topic, value), partition: partitionFor(key, PARTITIONS) }] });
      },
      async settle() {
        for (let quietChecks = 0; quietChecks < 3;) {
          quietChecks = (await settled()) ? quietChecks + 1 : 0;
          await new Promise((r) => setTimeout(r, 50));
        }
      },
      async read<V>(topic: string) {
        const out: { key: string; value: V; timestamp: number }[] = [];
        const targets = Array.from({ length: PARTITIONS }, (_, p) => ({ topic: cluster.names.topic(topic), partition: p, from: 0 }));
        await restoreChangelogs(cluster.kafka, cluster.admin, targets, async (_t, entries) => {
          for (const e of entries) out.push({ key: e.key.toString('utf8'), value: codecs.decode(topic, e.value!) as V, timestamp: e.timestamp });
        });
        return out;
      },
      counter: async (processor, name) => workers.flatMap((w) => w.tasks).filter((t) => t.node.name === processor).reduce((n, t) => n + (t.metrics.totals.get(name) ?? 0), 0),
      async move() {
        workers.push(await worker());
        await workers.shift()!.stop();
      },
      async failure(ms) {
        return Promise.race([...workers.map((w) => w.failed), new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);
      },
      async close() {
        for (const w of workers) await w.stop().catch(() => {});
        await producer.disconnect();
        await cluster.close();
      },
    };
    return app;
  },
});
