// One task on Kafka: its stores in a local LevelDB restored from compacted changelogs. It commits in
// its worker's transactions (worker-transactions.ts), which carry its outputs, store changes,
// positions, counters and group offsets together with every other task's; its local copy follows a
// commit only once the transaction is committed. Before it reads its state, the task is taken over
// from its previous owner (task-owners.ts): that owner released it, or is fenced.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Admin, Kafka } from 'kafkajs';
import { Level } from 'level';
import type { Logger } from '../api.js';
import { LevelStore, type BinaryDb } from '../stores/level-store.js';
import { storedName } from '../stores/key-value-store.js';
import type { TopicCodecs } from '../avro/topic-codecs.js';
import { bucketsOfPartition, partitionFor } from '../partitioning.js';
import type { ProcessorNode } from '../topology.js';
import type { InputPosition } from '../task/input-position.js';
import { HANDOVER_FINISH_MS, STOP_GRACE_MS, StreamTask, type CommitReport, type RawRecord, type TaskCommit } from '../task/stream-task.js';
import { storeOps, commitStoreOps } from '../task/task-commit.js';
import { writeBatch } from '../stores/write-batch.js';
import { restoreChangelogs } from './changelog-restore.js';
import { KafkaNames, POSITIONS_STORE } from './kafka-names.js';
import type { TaskOwners } from './task-owners.js';
import { COUNTER_PREFIX, COUNTER_KEY, POSITION_KEY, type CommitParticipant, type WorkerTransactions } from './worker-transactions.js';

export interface KafkaTaskOptions<S> {
  /** Which records of the partition the task processes (default: those whose key it owns now). */
  owns?: (record: RawRecord) => boolean;
  kafka: Kafka;
  admin: Admin;
  names: KafkaNames;
  node: ProcessorNode<S>;
  partition: number;
  partitions: number;
  dataDir: string;
  codecs: TopicCodecs;
  services: S;
  /** The topics' identity (see renewLogId). */
  logId: string;
  logger: Logger;
  clock: () => number;
  owners: TaskOwners;
  transactions: WorkerTransactions;
  onActivity: () => void;
  /**
   * How long a hand-over lets records in flight end before it cuts them off (the crawl: its fetch
   * timeout, so that no request on the wire is cut off and sent again by the next owner).
   */
  handOverFinishMs?: number;
  /** Told what each committed transaction held for this task (metrics); must return at once. */
  onCommitted?: (report: CommitReport) => void;
}

const CHECKPOINT = (topic: string) => Buffer.from(`ckpt!${topic}`, 'utf8');

function prefixed(logger: Logger, prefix: string): Logger {
  return { info: (m) => logger.info(prefix + m), warn: (m) => logger.warn(prefix + m) };
}

export class KafkaTaskHost<S = unknown> implements CommitParticipant {
  readonly task: StreamTask<S>;
  readonly id: string;
  readonly node: ProcessorNode<S>;
  readonly partition: number;
  readonly partitions: number;
  private readonly db: Level<Buffer, Buffer>;

  constructor(private readonly o: KafkaTaskOptions<S>) {
    const { node, partition, names } = o;
    this.id = `${node.storedName}/${partition}`;
    this.node = node;
    this.partition = partition;
    this.partitions = o.partitions;
    // Created closed: the stores hold the database now and read it once open() has restored it.
    this.db = new Level<Buffer, Buffer>(join(o.dataDir, names.group(node.storedName), String(partition)), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    this.task = new StreamTask({
      node, partition,
      services: o.services,
      stores: node.definition.stores.map((spec) => new LevelStore(this.db as unknown as BinaryDb, spec, bucketsOfPartition(partition, o.partitions))),
      codecs: o.codecs,
      logId: o.logId,
      clock: o.clock,
      logger: o.logger,
      owns: o.owns ?? ((r) => partitionFor(r.key, o.partitions) === partition),
      onActivity: () => {
        if (!this.task.lifecycle.leaving) o.transactions.request();
        o.onActivity();
      },
      onCommitted: o.onCommitted,
    });
  }

  /**
   * Takes the task over (its previous owner released it or is fenced), restores its state, starts it.
   * False when `wanted` turned false on the way: the task is then released at once, unopened, so that
   * its new owner need not wait for it.
   */
  async open(wanted: () => boolean = () => true): Promise<boolean> {
    const { node, partition, names } = this.o;
    this.task.restoring();
    mkdirSync(this.db.location, { recursive: true });
    await this.db.open();
    // Fence BEFORE reading: once taken over, no other worker can commit for this task, so the
    // changelogs and group offsets read next cannot move under us.
    if (!(await this.o.owners.takeOver(this.id, () => this.o.transactions.claim(this.id), wanted))) {
      await this.abandon(); // nothing claimed, nothing to release
      return false;
    }
    if (!wanted()) return this.releaseUnopened();
    await this.restore(wanted);
    if (!wanted()) return this.releaseUnopened();
    const positions = new Map<string, InputPosition>();
    for (const topic of node.inputs) {
      const raw = await this.db.get(POSITION_KEY(topic));
      positions.set(topic, raw ? (JSON.parse(raw.toString('utf8')) as InputPosition) : { base: 0, done: [] });
    }
    // Positions also live in the consumer group, committed in the same transactions; after the fence
    // both agree, and taking the further one is a guard against a local copy that lags.
    const committed = await this.o.admin.fetchOffsets({ groupId: names.group(node.storedName), topics: node.inputs.map((t) => names.topic(t)) });
    for (const t of committed) {
      const p = t.partitions.find((x) => x.partition === partition);
      const offset = Number(p?.offset ?? -1);
      const topic = names.logical(t.topic);
      const mine = positions.get(topic)!;
      if (offset > mine.base) positions.set(topic, { base: offset, done: mine.done.filter((d) => d >= offset) });
    }
    // Counters move with the task, as embedded, instead of starting again at zero on each owner.
    const counters = new Map<string, number>();
    const prefix = Buffer.from(COUNTER_PREFIX, 'utf8');
    for await (const [k, v] of this.db.iterator({ gte: prefix, lt: Buffer.from(`${COUNTER_PREFIX}\uffff`, 'utf8') })) {
      counters.set(k.subarray(prefix.length).toString('utf8'), Number(v.toString('utf8')));
    }
    await this.task.start(positions, counters);
    this.o.transactions.add(this);
    return true;
  }

  /** Claimed but no longer wanted (the partition moved on while it opened): released at once. */
  private async releaseUnopened(): Promise<false> {
    await this.task.close();
    this.o.transactions.add(this);
    await this.o.transactions.now();
    await this.release();
    return false;
  }

  /** Everything read so far is committed and nothing is waiting to be. */
  settled(): boolean {
    return !this.o.transactions.busy && !this.task.lifecycle.discarded && this.task.isQuiescent() && this.task.isFullyCommitted();
  }

  /** It can no longer commit (abandoned). */
  get lost(): boolean {
    return this.task.lifecycle.discarded;
  }

  get leaving(): boolean {
    return this.task.lifecycle.ended && !this.task.lifecycle.discarded;
  }

  offer(records: RawRecord[]): void {
    this.task.offer(records);
  }

  takeCommit(): TaskCommit | undefined {
    return this.task.takeCommit();
  }

  /** Clean stop: records in progress finish; the next transaction commits them and releases the task. */
  async close(): Promise<void> {
    if (this.task.lifecycle.state !== 'running') return this.abandon();
    await this.task.close();
    await this.o.transactions.now();
    await this.release();
  }

  /**
   * The partition moved to another worker: nothing new starts, records in flight get the finishing
   * bound to end (a request on the wire is answered and recorded), the rest are told to stop and stay
   * unfinished; what finished is committed with the release. The new owner waits for it as long as
   * this worker keeps saying it is at it (up to the bound) instead of fencing it; work a failed last
   * commit held is redone by the new owner.
   */
  async handOver(): Promise<void> {
    if (this.task.lifecycle.state !== 'running') return this.abandon();
    const finishMs = this.o.handOverFinishMs ?? HANDOVER_FINISH_MS;
    const started = performance.now();
    // The bound covers the finishing window, the wait for records told to stop, and the commit.
    const quiet = this.o.owners.handingOver(this.id, finishMs + STOP_GRACE_MS);
    try {
      const { cut, unstarted } = await this.task.handOver(finishMs);
      await this.o.transactions.now();
      await this.release();
      const took = Math.round(performance.now() - started);
      if (cut > 0) this.o.logger.warn(`${this.id}: handed over after ${took} ms; ${cut} record(s) still running at the ${finishMs} ms bound were cut off and will be redone by the next owner`);
      else if (took > 1_000 || unstarted > 0) this.o.logger.info(`${this.id}: handed over after ${took} ms (${unstarted} record(s) read but not started are the next owner's)`);
    } finally {
      quiet();
    }
  }

  /** Stops at once: nothing more is committed, nothing released (its next owner fences this worker). */
  async abandon(): Promise<void> {
    this.o.transactions.remove(this);
    await this.task.abandon();
    await this.release();
  }

  /** The transaction holding `commit` is committed: the local copy and its checkpoints follow. */
  async committed(commit: TaskCommit, ends: ReadonlyMap<string, number>): Promise<void> {
    const { partition } = this.o;
    const ops = commitStoreOps(commit);
    for (const { topic, position } of commit.positions) ops.push({ type: 'put', key: POSITION_KEY(topic), value: Buffer.from(JSON.stringify(position)) });
    for (const [name, total] of commit.counters) ops.push({ type: 'put', key: COUNTER_KEY(name), value: Buffer.from(String(total)) });
    for (const topic of this.changelogs()) {
      const end = ends.get(`${topic}/${partition}`);
      if (end !== undefined) ops.push({ type: 'put', key: CHECKPOINT(topic), value: Buffer.from(String(end)) });
    }
    if (ops.length && this.db.status === 'open') await writeBatch(this.db, ops);
    this.task.committed(commit);
  }

  private changelogs(): string[] {
    const { node, names } = this.o;
    return [...node.definition.stores.map((s) => names.changelog(node.storedName, storedName(s))), names.changelog(node.storedName, POSITIONS_STORE)];
  }

  /** After the last commit: nothing of this task stays open. */
  private async release(): Promise<void> {
    this.o.transactions.remove(this);
    if (this.db?.status === 'open') await this.db.close();
  }

  private async restore(wanted: () => boolean): Promise<void> {
    const { partition } = this.o;
    const targets = [];
    for (const topic of this.changelogs()) {
      const raw = await this.db.get(CHECKPOINT(topic));
      targets.push({ topic, partition, from: raw ? Number(raw.toString('utf8')) : 0 });
    }
    const reached = await restoreChangelogs(this.o.kafka, this.o.admin, targets, async (topic, entries) => {
      const last = entries[entries.length - 1].offset + 1;
      await writeBatch(this.db, [...storeOps(entries), { type: 'put', key: CHECKPOINT(topic), value: Buffer.from(String(last)) }]);
    }, { logger: prefixed(this.o.logger, `${this.id}: `), wanted });
    for (const [id, offset] of reached) {
      if (offset < 0) {
        throw new Error(`${this.id}: the local state at ${this.o.dataDir} is ahead of the end of changelog ${id} (was the topic recreated?); remove the task directory to restore from scratch`);
      }
      const topic = id.slice(0, id.lastIndexOf('/'));
      await this.db.put(CHECKPOINT(topic), Buffer.from(String(offset)));
    }
  }
}
