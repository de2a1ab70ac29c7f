// A topology on Kafka, as Kafka Streams' `new KafkaStreams(topology, config)`: runs all processors or
// a chosen subset, each as its own consumer group with one task per partition; runtimes in many
// processes share the work and tasks move between them. It follows the cluster state: a pause stops
// work that honours RuntimeControl, and a new generation (a new partition count) re-opens every task.
import { hostname } from 'node:os';
import { isMainThread, threadId } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import type { Logger, RuntimeControl } from '../api.js';
import { selectProcessors, type ProcessorNode, type Topology } from '../topology.js';
import type { TopicCodecs } from '../avro/topic-codecs.js';
import { missingTopics, partitionCount, readClusterState, readLogId, topologyCodecs, watchClusterState, type Cluster, type ClusterState } from './kafka-cluster.js';
import { ProcessorRunner, reopenAll } from './processor-runner.js';
import { ensureChangelogs } from './topic-admin.js';
import { TaskOwners } from './task-owners.js';
import { WorkerTransactions } from './worker-transactions.js';
import { busyReason, type TaskStatus } from './task-status.js';
import type { CommitReport, StreamTask } from '../task/stream-task.js';

export interface KafkaRuntimeOptions<S> {
  cluster: Cluster;
  topology: Topology<S>;
  services: S;
  /** Flipped by the runtime as the cluster state pauses and resumes; give the same object to processors. */
  control: RuntimeControl;
  registryUrl: string;
  processors?: readonly string[];
  /** Local state of this process's tasks (restored from changelogs when missing). */
  dataDir: string;
  logger: Logger;
  sessionTimeoutMs?: number;
  /** Least time between the worker's transactions while it has work (default 100 ms). */
  commitIntervalMs?: number;
  /** How long a task's new owner waits for a silent previous owner to release it before fencing it (default HANDOVER_GRACE_MS). */
  handoverGraceMs?: number;
  /**
   * How long a hand-over lets records in flight end before cutting them off (default 2.5 s); the
   * previous owner says it is at it, and the new owner waits for it, up to this bound.
   */
  handOverFinishMs?: number;
  /** The processors' clock (default Date.now), as the embedded runtime's. */
  clock?: () => number;
  /** Told what each committed task transaction held (metrics); must return at once. */
  onCommitted?: (report: CommitReport) => void;
}

/** A task this process runs and how far it has read each input (control records included). */
export interface TaskProgress<S> {
  task: StreamTask<S>;
  consumedUpTo: Record<string, number>;
  /** Everything it read is finished and committed. */
  settled: boolean;
  /** When not settled: why (task-status.ts busyReason). */
  busy?: string;
}

/**
 * A task's new owner waits this long for its previous owner to release it, or to say it is handing it
 * over (then as long as it keeps saying so, up to its bound), before fencing it: a hand-over usually
 * releases within a commit interval, and a fence makes the old owner re-open all its tasks and lose
 * its last commit interval's work, so it is kept for owners that are gone or stuck. A kill -9 costs
 * this on top of the session timeout.
 */
export const HANDOVER_GRACE_MS = 5_000;

/** A worker's identity in task ownership and client ids: one per thread when a process runs several workers (`worker --threads`). */
export function workerIdentity(): string {
  return `${hostname()}-${process.pid}${isMainThread ? '' : `-t${threadId}`}`;
}

export class KafkaRuntime<S> {
  readonly id = workerIdentity();
  private runners: ProcessorRunner<S>[] = [];
  private owners!: TaskOwners;
  private transactions!: WorkerTransactions;
  private fatal: Error | undefined;
  private onFatal!: (err: Error) => void;
  /** Settles with the error that stopped the runtime (a failed punctuation), as the embedded runtime's whenStopped. */
  readonly failed = new Promise<Error>((resolve) => (this.onFatal = resolve));
  private statusProducer: Producer | undefined;
  private statusTimer: NodeJS.Timeout | undefined;
  private unwatch: (() => Promise<void>) | undefined;
  /** The generation of the cluster state last seen, and the one the running tasks were opened for. */
  private generation = 0;
  private runningGeneration = 0;
  private partitions = 0;
  private nodes: ProcessorNode<S>[] = [];
  private codecs!: TopicCodecs;
  private logId = '';
  private reopening: Promise<void> = Promise.resolve();

  constructor(private readonly o: KafkaRuntimeOptions<S>) {}

  async start(): Promise<void> {
    const { cluster, topology, logger } = this.o;
    const missing = await missingTopics(cluster, topology);
    if (missing.length) {
      throw new Error(`topics missing on the cluster: ${missing.join(', ')}; create them with \`crawlstream topics create\``);
    }
    const logId = await readLogId(cluster);
    if (!logId) throw new Error(`${cluster.names.stateTopic} holds no log identity: run \`crawlstream topics create\` (it keeps existing topics)`);
    this.logId = logId;
    this.nodes = selectProcessors(topology, this.o.processors);
    this.codecs = await topologyCodecs(topology, cluster.names, this.o.registryUrl);
    const state = await readClusterState(cluster);
    this.o.control.paused = state?.control.paused ?? false;
    this.generation = this.runningGeneration = state?.control.generation ?? 0;
    this.partitions = await partitionCount(cluster, [...topology.topics.keys()][0]);
    if (state?.control.partitions) this.partitions = Math.min(this.partitions, state.control.partitions);
    // One transactional producer for every task of this process; a fresh id per process, so that a
    // restarted worker never inherits (or fences) a live one's transactions.
    const transactionalId = cluster.names.workerTransactionalId(`${this.id}-${randomUUID().slice(0, 8)}`);
    this.owners = new TaskOwners({ kafka: cluster.kafka, admin: cluster.admin, topic: cluster.names.taskOwners, me: transactionalId, logger, graceMs: this.o.handoverGraceMs ?? HANDOVER_GRACE_MS });
    this.transactions = new WorkerTransactions({
      openProducer: () => cluster.transactionalProducer(transactionalId), names: cluster.names, transactionalId, intervalMs: this.o.commitIntervalMs, logger,
      onFailure: (err, fenced) => this.recover(err, fenced),
    });
    await this.ensureTopics();
    await this.owners.start();
    await this.transactions.start();
    await this.startRunners();
    this.unwatch = await watchClusterState(cluster, this.id, (s) => this.follow(s));
    this.statusProducer = cluster.kafka.producer();
    await this.statusProducer.connect();
    this.statusTimer = setInterval(() => void this.publishStatus().catch(() => {}), 1000);
    logger.info(`worker ${this.id} running ${this.nodes.map((n) => n.name).join(', ')} over ${this.partitions} partitions`);
  }

  /** Finishes records in progress, commits, leaves the groups. */
  async stop(): Promise<void> {
    if (this.statusTimer) clearInterval(this.statusTimer);
    await this.phase('re-opening tasks', this.reopening);
    await this.phase('the cluster state watch', this.unwatch?.().catch(() => {}));
    await Promise.all(this.runners.map((r) => this.phase(`${r.name} tasks`, this.fatal ? r.abandonAll() : r.stop())));
    await this.transactions?.stop();
    await this.owners?.stop();
    await this.phase('the last status', this.publishStatus(true).catch(() => {}));
    await this.phase('the status producer', this.statusProducer?.disconnect().catch(() => {}));
  }

  /** The worker's transaction failed: nothing it held is known to be committed (see reopenAll). */
  private recover(err: Error, fenced: boolean): void {
    this.o.logger.warn(`the worker's transaction failed (${err.message})${fenced ? ': another worker fenced this one' : ''}; re-opening every task from its last commit`);
    this.reopening = this.reopening.then(async () => {
      if (!this.fatal) await reopenAll(this.runners, this.transactions);
    }).catch((e) => this.o.logger.warn(`re-opening tasks failed: ${(e as Error).message}`));
  }

  /** Stops every task at once, committing nothing, and reports the error (a failed punctuation). */
  private fail(err: Error): void {
    if (this.fatal) return;
    this.fatal = err;
    this.o.logger.warn(`fatal: ${err.message}`);
    this.reopening = this.reopening.then(() => Promise.all(this.runners.map((r) => r.abandonAll()))).then(() => undefined, () => undefined);
    this.onFatal(err);
  }

  /** Says what a slow stop is waiting for, so that an operator is not left guessing. */
  private async phase(what: string, done: Promise<unknown> | undefined): Promise<void> {
    const timer = setInterval(() => this.o.logger.info(`stopping: still waiting for ${what}`), 5000);
    try {
      await done;
    } finally {
      clearInterval(timer);
    }
  }

  private follow(state: ClusterState<unknown>): void {
    const { control, logger } = this.o;
    if (control.paused !== state.control.paused) logger.info(state.control.paused ? 'paused: no new work is released' : 'resumed');
    control.paused = state.control.paused;
    if (state.control.generation === this.generation) return;
    this.generation = state.control.generation;
    const partitions = state.control.partitions;
    this.reopening = this.reopening.then(async () => {
      // Every task re-opens for the new count: ownership of keys and buckets changed.
      logger.info(`partition count now ${partitions} (generation ${this.generation}): re-opening every task`);
      await Promise.all(this.runners.map((r) => r.stop()));
      this.partitions = partitions;
      await this.ensureTopics();
      await this.transactions.renew();
      await this.startRunners();
      this.runningGeneration = this.generation;
    }).catch((err) => logger.warn(`re-opening tasks failed: ${(err as Error).message}`));
  }

  /** The tasks running in this process now. */
  get tasks(): StreamTask<S>[] {
    return this.progress().map((p) => p.task);
  }

  /** Each local task with how far it has read its inputs. */
  progress(): TaskProgress<S>[] {
    const out: TaskProgress<S>[] = [];
    for (const runner of this.runners) {
      for (const host of runner.tasks()) {
        const t = host.task;
        const consumedUpTo: Record<string, number> = {};
        for (const topic of t.node.inputs) {
          consumedUpTo[topic] = Math.max(runner.consumedUpTo.get(`${topic}/${t.partition}`) ?? 0, t.nextOffset(topic));
        }
        const settled = host.settled();
        out.push({ task: t, consumedUpTo, settled, busy: settled ? undefined : busyReason(t, this.transactions) });
      }
    }
    return out;
  }

  private async ensureTopics(): Promise<void> {
    const { cluster } = this.o;
    const made = await ensureChangelogs(cluster.admin, cluster.names, this.nodes, this.partitions);
    if (made.length) this.o.logger.info(`created or grew ${made.length} topic(s) made after \`topics create\`: ${made.join(', ')}`);
  }

  private async startRunners(): Promise<void> {
    const { cluster } = this.o;
    this.runners = this.nodes.map((node) => new ProcessorRunner<S>({
      kafka: cluster.kafka, admin: cluster.admin, names: cluster.names, node, partitions: this.partitions,
      dataDir: this.o.dataDir, codecs: this.codecs, services: this.o.services, logId: this.logId, logger: this.o.logger,
      clock: this.o.clock ?? Date.now, owners: this.owners, transactions: this.transactions,
      sessionTimeoutMs: this.o.sessionTimeoutMs ?? 10_000, handOverFinishMs: this.o.handOverFinishMs, onCommitted: this.o.onCommitted, onFatal: (err) => this.fail(err),
    }));
    await Promise.all(this.runners.map((r) => r.start()));
  }

  private async publishStatus(leaving = false): Promise<void> {
    const at = Date.now();
    const messages = this.progress().map(({ task: t, consumedUpTo, settled, busy }) => {
      const status: TaskStatus = {
        processor: t.node.storedName, partition: t.partition, worker: leaving ? '' : this.id, paused: this.o.control.paused,
        generation: this.runningGeneration, quiescent: settled, busy, pendingWork: t.hasPendingWork(), consumedUpTo,
        gauges: Object.fromEntries(t.metrics.gauges), counters: Object.fromEntries(t.metrics.totals), at,
      };
      return { key: `${t.node.storedName}/${t.partition}`, value: JSON.stringify(status) };
    });
    if (messages.length) await this.statusProducer!.send({ topic: this.o.cluster.names.taskStatus, messages });
  }
}
