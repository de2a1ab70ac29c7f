// Replay on Kafka: a plan's processors in this process, as consumer groups of their own
// (`<prefix>crawlstream.replay-<id>.<processor>`) starting at the chosen offsets of the source
// topic, writing private topics that are deleted at the end. The live workers go on.
import type { Logger } from '../api.js';
import { connectCluster, partitionCount, readLogId, topologyCodecs } from '../kafka/kafka-cluster.js';
import { KafkaNames } from '../kafka/kafka-names.js';
import { randomUUID } from 'node:crypto';
import { ProcessorRunner, reopenAll } from '../kafka/processor-runner.js';
import { HANDOVER_GRACE_MS } from '../kafka/kafka-runtime.js';
import { TaskOwners } from '../kafka/task-owners.js';
import { WorkerTransactions } from '../kafka/worker-transactions.js';
import { createTopics, plannedTopics } from '../kafka/topic-admin.js';
import { setGroupOffsets } from '../kafka/group-offsets.js';
import type { ReplayPlan } from './replay-plan.js';
import { ProgressMeter, type ReplayProgress, type ReplayView } from './replay-progress.js';
import type { CommitReport } from '../task/stream-task.js';

export interface KafkaReplayOptions<S> {
  brokers: string[];
  prefix: string;
  registryUrl: string;
  plan: ReplayPlan<S>;
  services: S;
  since?: number;
  fromOffset?: number;
  logger: Logger;
  onProgress?: (p: ReplayProgress) => void;
  signal?: AbortSignal;
  dataDir?: string;
  /** Told what each committed task transaction held (metrics). */
  onCommitted?: (report: CommitReport) => void;
  /** Called once the replay's runners started; lag covers the source topic (its end when the replay began). */
  onStarted?: (view: ReplayView<S>) => void;
}

export async function runKafkaReplay<S>(o: KafkaReplayOptions<S>): Promise<ReplayProgress> {
  const { plan } = o;
  const cluster = await connectCluster({ brokers: o.brokers, prefix: o.prefix, clientId: `crawlstream-replay-${plan.id}`, logger: o.logger });
  const names = new KafkaNames(o.prefix, `crawlstream.replay-${plan.id}`);
  const from = plan.from;
  const runners: ProcessorRunner<S>[] = [];
  let owners: TaskOwners | undefined;
  let transactions: WorkerTransactions | undefined;
  let failure: Error | undefined;
  let timer: NodeJS.Timeout | undefined;
  const created: string[] = [];
  try {
    const partitions = await partitionCount(cluster, from);
    if (!partitions) throw new Error(`topic ${names.topic(from)} does not exist on the cluster`);
    // The replay's own topics: its private topics and the changelogs of its groups (positions included).
    const ownPrefix = names.group('');
    const wanted = plannedTopics(plan.topology, names, partitions)
      .filter((t) => plan.privateTopics.includes(names.logical(t.name)) || t.name.startsWith(ownPrefix));
    created.push(...wanted.map((t) => t.name));
    await createTopics(cluster.admin, wanted);
    const codecs = await topologyCodecs(plan.topology, names, o.registryUrl);
    const logId = await readLogId(cluster);
    if (!logId) throw new Error(`${names.stateTopic} holds no log identity: run \`crawlstream topics create\``);

    // Each replay group starts at the chosen place in the source topic; the end is where it stands now.
    const source = names.topic(from);
    const bounds = await cluster.admin.fetchTopicOffsets(source);
    const byTime = o.since !== undefined ? await cluster.admin.fetchTopicOffsetsByTimestamp(source, o.since) : [];
    const starts = new Map<number, number>();
    const ends = new Map<number, number>();
    for (const b of bounds) {
      const low = Number(b.low);
      const high = Number(b.high);
      const t = byTime.find((x) => x.partition === b.partition);
      const start = t ? (Number(t.offset) < 0 ? high : Number(t.offset)) : Math.min(high, Math.max(low, o.fromOffset ?? low));
      starts.set(b.partition, start);
      ends.set(b.partition, high);
    }
    for (const node of plan.topology.processors) {
      if (!node.inputs.includes(from)) continue;
      await setGroupOffsets(cluster.kafka, cluster.admin, names.group(node.storedName), source, starts);
    }
    const transactionalId = names.workerTransactionalId(randomUUID().slice(0, 8));
    owners = new TaskOwners({ kafka: cluster.kafka, admin: cluster.admin, topic: names.taskOwners, me: transactionalId, logger: o.logger, graceMs: HANDOVER_GRACE_MS });
    let reopening = Promise.resolve();
    const commits = (transactions = new WorkerTransactions({
      openProducer: () => cluster.transactionalProducer(transactionalId), names, transactionalId, logger: o.logger,
      onFailure: (err) => {
        o.logger.warn(`replay ${plan.id}: a transaction failed (${err.message}); re-opening its tasks from their last commit`);
        reopening = reopening.then(() => reopenAll(runners, commits)).catch((e: Error) => o.logger.warn(`replay ${plan.id}: re-opening failed: ${e.message}`));
      },
    }));
    await owners.start();
    await commits.start();
    const total = [...ends].reduce((n, [p, end]) => n + end - starts.get(p)!, 0);
    const meter = new ProgressMeter(total);
    for (const node of plan.topology.processors) {
      runners.push(new ProcessorRunner({
        kafka: cluster.kafka, admin: cluster.admin, names, node, partitions, codecs, services: o.services, logId, logger: o.logger,
        dataDir: o.dataDir ?? `crawl-data/replay-${plan.id}`,
        sessionTimeoutMs: 10_000, clock: Date.now, owners, transactions: commits,
        onFatal: (err) => {
          failure ??= err;
          o.logger.warn(`replay ${plan.id}: ${err.message}`);
        },
        // Kafka scaling drains topics before it moves hosts and copies no record, so a record is
        // replayed in the partition it lies in, whoever owns its host today.
        owns: () => true,
        onCommitted: o.onCommitted,
      }));
    }
    await Promise.all(runners.map((r) => r.start()));
    o.onStarted?.({
      tasks: () => runners.flatMap((r) => r.tasks().map((h) => h.task)),
      lag: () => runners.flatMap((r) => r.tasks().filter((h) => h.task.node.inputs.includes(from)).map((h) => ({
        processor: r.name, partition: h.task.partition, topic: from,
        records: Math.max(0, ends.get(h.task.partition)! - Math.max(r.consumedUpTo.get(`${from}/${h.task.partition}`) ?? 0, h.task.nextOffset(from))),
      }))),
    });
    const first = runners.find((r) => plan.topology.processors.find((p) => p.name === r.name)!.inputs.includes(from))!;
    // Read up to, transaction markers included: what tells the end is reached.
    const read = () => [...ends.keys()].reduce((n, p) => n + Math.min(ends.get(p)!, first.consumedUpTo.get(`${from}/${p}`) ?? starts.get(p)!) - starts.get(p)!, 0);
    // Progress counts committed records: a concurrent processor reads far ahead of what it has
    // finished (a partition's last offset is a transaction marker, so this stops just short of it).
    const committed = (p: number) => first.tasks().find((h) => h.task.partition === p)?.task.committedBase(from) ?? starts.get(p)!;
    const done = () => [...ends.keys()].reduce((n, p) => n + Math.max(0, Math.min(ends.get(p)!, committed(p)) - starts.get(p)!), 0);
    if (o.onProgress) timer = setInterval(() => o.onProgress!(meter.measure(done())), 2000);
    // Downstream replayed processors must also have read their private inputs to the end.
    const allRead = async () => {
      for (const r of runners) {
        for (const topic of plan.topology.processors.find((p) => p.name === r.name)!.inputs) {
          if (topic === from) continue;
          for (const hw of await cluster.admin.fetchTopicOffsets(names.topic(topic))) {
            if ((r.consumedUpTo.get(`${topic}/${hw.partition}`) ?? 0) < Number(hw.high)) return false;
          }
        }
      }
      return true;
    };
    let quiet = 0;
    while (quiet < 3 && !o.signal?.aborted) {
      if (failure) throw failure;
      await new Promise((r) => setTimeout(r, 500));
      const finished = read() >= total && (await allRead()) && runners.every((r) => r.tasks().length === partitions && r.tasks().every((t) => t.settled()));
      quiet = finished ? quiet + 1 : 0;
    }
    return meter.measure(read());
  } finally {
    if (timer) clearInterval(timer);
    await Promise.all(runners.map((r) => (failure ? r.abandonAll() : r.stop())));
    await transactions?.stop();
    await owners?.stop();
    if (!o.signal?.aborted && created.length) {
      await cluster.admin.deleteTopics({ topics: created }).catch((err: Error) =>
        o.logger.warn(`replay ${plan.id}: could not delete its topics (${err.message}); delete ${created.join(', ')} by hand`));
    }
    await cluster.close();
  }
}
