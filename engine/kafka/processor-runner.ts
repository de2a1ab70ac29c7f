// One processor of the topology on Kafka: a consumer group over its input topics with the
// co-partitioned assigner, and one KafkaTaskHost per assigned partition, all committing in the
// worker's transactions. Partitions that move away are handed over (finished work committed, work in
// progress left to the new owner); new ones are taken over and restore their state first.
import type { Consumer, EachBatchPayload } from 'kafkajs';
import type { RawRecord } from '../task/stream-task.js';
import { coPartitionedAssigner } from './co-partitioned-assigner.js';
import { KafkaTaskHost, type KafkaTaskOptions } from './kafka-task-host.js';
import { OffsetGapGuard } from './offset-gaps.js';
import type { WorkerTransactions } from './worker-transactions.js';
import { afterFailure } from './restart-backoff.js';

/**
 * After a failed worker transaction: every task abandoned, the producer re-initialised (ending that
 * transaction one way or the other), each group joined afresh, so that only the tasks the worker owns
 * now re-open, each from its last commit.
 */
export async function reopenAll(runners: readonly ProcessorRunner<any>[], transactions: WorkerTransactions): Promise<void> {
  await Promise.all(runners.map((r) => r.abandonTasks()));
  await transactions.reset();
  await Promise.all(runners.map((r) => r.reopen()));
}

/** What every task of the runner shares; partitions and callbacks are the runner's to fill in. */
export interface RunnerOptions<S> extends Omit<KafkaTaskOptions<S>, 'partition' | 'onActivity'> {
  /** Session timeout: how long a dead worker keeps its tasks before they move. */
  sessionTimeoutMs: number;
  /** A punctuation failed: the runtime stops, as the embedded one does. Must return at once. */
  onFatal: (err: Error) => void;
}

/**
 * How long a consumer's fetch waits on the broker when there is nothing to read: a fetch returns as
 * soon as a committed record arrives, so this bounds only idle polling (nine consumers polling every
 * 50 ms cost the broker ~180 requests a second per worker doing nothing; 500 ms still left idle
 * polls the most frequent request of a one-worker crawl).
 */
const MAX_WAIT_MS = 1_000;

/**
 * How much one fetch may bring back, per partition and in all. kafkajs holds a whole response, and
 * its decoded records, at once: at 20 MB per partition and 64 MB per response, nine consumers of a
 * lagging worker kept Buffers of 100-300 MB alive in spikes (10,000-page bench crawl, one worker:
 * peak RSS 647-717 MB, 576 MB at 4 MB and 16 MB, 535-549 MB at 1 MB and 4 MB where the crawl also
 * slowed down). 2 MB and 8 MB came with the producer of engine/kafka/txn-producer.ts, whose client
 * adds ~25 MB of code to a worker: at 4/16 MB a worker peaked at 562-601 MB, at 2/8 MB at 535-584
 * (mean 550, against 559 before both changes) for ~0.1 ms a page of CPU. A record larger than
 * either bound still arrives, alone (KIP-74).
 */
const MAX_BYTES_PER_PARTITION = 2 * 1024 * 1024;
const MAX_BYTES = 8 * 1024 * 1024;

export class ProcessorRunner<S = unknown> {
  readonly hosts = new Map<number, Promise<KafkaTaskHost<S> | undefined>>();
  private readonly ready = new Map<number, KafkaTaskHost<S>>();
  /** Next offset per input topic-partition, control records included (for idle detection). */
  readonly consumedUpTo = new Map<string, number>();
  private consumer!: Consumer;
  private assignment = new Set<number>();
  /** Bumped when every task is dropped: an open begun before then abandons what it opened. */
  private epoch = 0;
  /** The open under way for each partition, and the hand-overs not yet over. */
  private readonly opening = new Map<number, object>();
  private readonly leaving = new Map<number, Promise<void>>();
  private stopping = false;
  private punctuator: NodeJS.Timeout | undefined;
  private readonly gaps = new WeakMap<KafkaTaskHost<S>, OffsetGapGuard>();

  constructor(private readonly o: RunnerOptions<S>) {}

  get name(): string {
    return this.o.node.name;
  }

  tasks(): KafkaTaskHost<S>[] {
    return [...this.ready.values()];
  }

  async start(): Promise<void> {
    const every = this.o.node.definition.punctuateEveryMs;
    if (every) {
      this.punctuator = setInterval(() => {
        const now = this.o.clock();
        for (const host of this.ready.values()) host.task.punctuate(now).catch((err) => this.o.onFatal(new Error(`${host.id}: punctuate failed: ${(err as Error)?.stack ?? err}`)));
      }, every);
    }
    await this.startConsumer();
  }

  private async startConsumer(): Promise<void> {
    const { kafka, names, node } = this.o;
    const consumer = kafka.consumer({
      groupId: names.group(node.storedName),
      partitionAssigners: [coPartitionedAssigner(() => [...this.assignment], this.o.partitions)],
      readUncommitted: false,
      sessionTimeout: this.o.sessionTimeoutMs,
      heartbeatInterval: Math.max(500, Math.floor(this.o.sessionTimeoutMs / 6)),
      rebalanceTimeout: 60_000,
      maxWaitTimeInMs: MAX_WAIT_MS,
      maxBytesPerPartition: MAX_BYTES_PER_PARTITION,
      maxBytes: MAX_BYTES,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      const owned = new Set<number>();
      for (const partitions of Object.values(e.payload.memberAssignment)) for (const p of partitions as number[]) owned.add(p);
      this.reassign(owned);
    });
    consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
      const id = `${names.logical(e.payload.topic)}/${e.payload.partition}`;
      this.consumedUpTo.set(id, Math.max(this.consumedUpTo.get(id) ?? 0, Number(e.payload.lastOffset) + 1));
      // A batch of markers or aborted records alone: kafkajs skipped it without calling onBatch.
      const host = e.payload.batchSize === 0 && e.payload.firstOffset !== null ? this.ready.get(e.payload.partition) : undefined;
      if (host) {
        const topic = names.logical(e.payload.topic);
        this.gapGuard(host).filtered(topic, Number(e.payload.firstOffset), Number(e.payload.lastOffset), host.task.nextOffset(topic));
      }
    });
    // kafkajs restarts a crashed consumer only after retriable errors. After any other (a broker
    // restart can yield "Failed to find group coordinator") it stays stopped while this worker's
    // tasks still look owned: their inputs would never be read again and their hosts would wait
    // for good. Start it again until it runs or the worker stops.
    consumer.on(consumer.events.CRASH, (e) => {
      if (this.stopping || e.payload.restart || consumer !== this.consumer) return;
      this.o.logger.warn(`${this.name}: consumer stopped (${e.payload.error.message}); starting it again`);
      void this.restartConsumer(consumer);
    });
    await consumer.connect();
    for (const topic of node.inputs) await consumer.subscribe({ topic: names.topic(topic), fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      partitionsConsumedConcurrently: Math.max(1, this.o.partitions),
      eachBatch: (payload) => this.onBatch(payload),
    });
  }

  private async restartConsumer(crashed: Consumer): Promise<void> {
    for (let attempt = 0; !this.stopping && crashed === this.consumer; attempt++) {
      await crashed.disconnect().catch(() => {});
      try {
        // The new member rejoins from the group's committed offsets; records a task already has are
        // skipped in onBatch, so nothing is processed twice.
        await this.startConsumer();
        this.o.logger.info(`${this.name}: consumer running again`);
        return;
      } catch (err) {
        await afterFailure(this.o.logger, `${this.name} consumer`, err as Error, attempt);
        crashed = this.consumer;
      }
    }
  }

  /** Clean stop: records in progress finish and are committed with the tasks' release, then the group is left. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.punctuator);
    await this.consumer.stop().catch(() => {});
    await Promise.all([...this.hosts.values()].map(async (h) => (await h)?.close()));
    await this.consumer.disconnect().catch(() => {});
  }

  /** Stops at once, committing nothing (a dying worker, a fatal error). */
  async abandonAll(): Promise<void> {
    this.stopping = true;
    clearInterval(this.punctuator);
    await this.consumer?.disconnect().catch(() => {});
    await this.dropTasks();
  }

  /**
   * Abandons every task, committing nothing, and stays in the group (leaving it would rebalance every
   * other worker too); reopen() opens the partitions assigned now again.
   */
  async abandonTasks(): Promise<void> {
    const owned = this.assignment;
    await this.dropTasks();
    this.assignment = owned;
  }

  /**
   * Opens every partition assigned now, each from its last commit, and reads them again from there.
   * An assignment that went stale meanwhile is corrected at the consumer's next heartbeat: an open
   * that is no longer wanted gives up without fencing anyone (TaskOwners.takeOver).
   */
  async reopen(): Promise<void> {
    if (this.stopping) return;
    const owned = this.assignment;
    this.assignment = new Set();
    this.reassign(owned);
    for (const p of owned) {
      void this.hosts.get(p)?.then((host) => {
        if (!host) return;
        for (const topic of this.o.node.inputs) {
          try {
            this.consumer?.seek({ topic: this.o.names.topic(topic), partition: p, offset: String(host.task.nextOffset(topic)) });
          } catch {
            // the consumer is between generations: its next assignment starts from the group offsets, and records a task already has are skipped
          }
        }
      });
    }
  }



  /**
   * Abandons every task. Opens still under way are not waited for (one may wait on a broker that is
   * away): they see the new epoch and abandon what they opened themselves.
   */
  private async dropTasks(): Promise<void> {
    this.epoch++;
    const ready = [...this.ready.values()];
    this.hosts.clear();
    this.ready.clear();
    this.opening.clear();
    this.leaving.clear();
    this.assignment = new Set();
    await Promise.all(ready.map((h) => h.abandon().catch(() => {})));
  }

  private reassign(owned: Set<number>): void {
    this.assignment = owned;
    for (const p of [...this.hosts.keys()]) {
      if (owned.has(p)) continue;
      const host = this.hosts.get(p)!;
      this.hosts.delete(p);
      this.ready.delete(p);
      this.opening.delete(p);
      // A partition that comes back before this ends opens after it (one LevelDB, one owner at a time).
      const left = host.then((h) => h?.handOver()).catch((err) => this.o.logger.warn(`handing over ${this.name}/${p}: ${(err as Error).message}`));
      this.leaving.set(p, left);
      void left.then(() => {
        if (this.leaving.get(p) === left) this.leaving.delete(p);
      });
    }
    for (const p of owned) {
      if (this.hosts.has(p) || p >= this.o.partitions) continue;
      const token = {};
      this.opening.set(p, token);
      this.hosts.set(p, this.open(p, token));
    }
  }

  /** Opens the task, retrying with backoff while the cluster is unreachable and the partition is ours. */
  private async open(p: number, token: object): Promise<KafkaTaskHost<S> | undefined> {
    await this.leaving.get(p);
    const epoch = this.epoch;
    // Dropped: every task is being abandoned (a failed transaction, a stop at once).
    const dropped = () => this.stopping || this.epoch !== epoch;
    // Still this open's: the partition did not move on (or leave and come back) meanwhile.
    const current = () => this.opening.get(p) === token && this.assignment.has(p);
    for (let attempt = 0; !dropped() && current(); attempt++) {
      const host = new KafkaTaskHost({ ...this.o, partition: p, onActivity: () => {} });
      try {
        if (!(await host.open(() => current() && !dropped()))) return undefined;
        if (dropped()) {
          await host.abandon(); // nothing of it may commit
          return undefined;
        }
        if (!current()) {
          await host.handOver(); // moved on meanwhile: release it at once rather than make its new owner wait
          return undefined;
        }
        this.ready.set(p, host);
        return host;
      } catch (err) {
        await host.abandon().catch(() => {});
        await afterFailure(this.o.logger, `${this.name}-${p}`, err as Error, attempt);
      }
    }
    return undefined;
  }

  private async onBatch({ batch, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const hostPromise = this.hosts.get(batch.partition);
    if (!hostPromise) return;
    // Restoring a task can take a while; keep the membership alive meanwhile.
    let host: KafkaTaskHost<S> | undefined;
    const beat = setInterval(() => void heartbeat().catch(() => {}), 1000);
    try {
      host = await hostPromise;
    } finally {
      clearInterval(beat);
    }
    if (!host || this.stopping) return;
    const topic = this.o.names.logical(batch.topic);
    const first = batch.firstOffset(); // transaction markers included: null only for an empty batch
    const next = host.task.nextOffset(topic);
    const gaps = this.gapGuard(host);
    const verdict = gaps.check(topic, first === null ? null : Number(first), next);
    if (verdict.kind === 'seek') {
      this.o.logger.info(`${host.id}: ${topic} was read up to ${first} but the task is at ${next}; reading again from there`);
      this.consumer.seek({ topic: batch.topic, partition: batch.partition, offset: String(verdict.offset) });
      return;
    }
    if (verdict.kind === 'lost') {
      this.o.logger.warn(`${host.id}: ${topic} offsets ${verdict.from}–${verdict.to} are gone from the broker (retention?); going on from ${verdict.to + 1}`);
    }
    const records: RawRecord[] = [];
    for (const m of batch.messages) {
      records.push({
        topic, partition: batch.partition, offset: Number(m.offset), timestamp: Number(m.timestamp),
        key: m.key?.toString('utf8') ?? '', value: m.value ?? Buffer.alloc(0),
      });
    }
    let i = 0;
    while (i < records.length && isRunning() && !isStale() && this.hosts.get(batch.partition) === hostPromise) {
      // After a rebalance kafkajs may hand over records the task already has.
      while (i < records.length && records[i].offset < host.task.nextOffset(topic)) i++;
      const room = host.task.capacity();
      if (i >= records.length) break;
      if (room > 0) {
        host.offer(records.slice(i, i + room));
        i += room;
      } else {
        await new Promise((r) => setTimeout(r, 20));
        await heartbeat();
      }
    }
    if (i >= records.length && this.hosts.get(batch.partition) === hostPromise) gaps.givenWhole(topic, Number(batch.lastOffset()));
  }

  private gapGuard(host: KafkaTaskHost<S>): OffsetGapGuard {
    let guard = this.gaps.get(host);
    if (!guard) this.gaps.set(host, (guard = new OffsetGapGuard()));
    return guard;
  }
}
