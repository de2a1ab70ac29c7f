// One task on Kafka: its stores in a local LevelDB restored from compacted changelogs, and a
// transactional producer of its own. A commit is one Kafka transaction holding the task's output
// records, its store changes (to the changelogs), its input positions and the consumer offsets:
// all of it becomes visible together or not at all, and a task that moves to
// another worker fences the producer of its old owner.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Admin, Kafka, Message, Producer, TopicMessages } from 'kafkajs';
import { Level } from 'level';
import type { Logger } from '../api.js';
import { LevelStore, type BinaryDb } from '../stores/level-store.js';
import type { TopicCodecs } from '../avro/topic-codecs.js';
import { bucketsOfPartition, partitionFor } from '../partitioning.js';
import type { ProcessorNode } from '../topology.js';
import type { InputPosition } from '../task/input-position.js';
import { StreamTask, type CommitReport, type RawRecord, type TaskCommit } from '../task/stream-task.js';
import { restoreChangelogs } from './changelog-restore.js';
import { KafkaNames, POSITIONS_STORE } from './kafka-names.js';

export interface KafkaTaskOptions<S> {
  /** Which records of the partition the task processes (default: those whose key it owns now). */
  owns?: (record: RawRecord) => boolean;
  /** The task can no longer commit (fenced, or its producer is broken): its runner re-opens it. */
  onLost: (host: KafkaTaskHost<S>, reason: string) => void;
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
  log: Logger;
  onActivity: () => void;
  /** Default HANDOVER_GRACE_MS. */
  handoverGraceMs?: number;
  /** Least time between a task's transactions; default DEFAULT_COMMIT_INTERVAL_MS. */
  commitIntervalMs?: number;
  /** Told what each committed transaction held (metrics); must return at once. */
  onCommitted?: (report: CommitReport) => void;
}

const CHECKPOINT = (topic: string) => Buffer.from(`ckpt!${topic}`, 'utf8');
const POSITION_KEY = (topic: string) => Buffer.from(`pos!${topic}`, 'utf8');
/** A commit that takes longer than this is given up and the task re-opened. */
const COMMIT_TIMEOUT_MS = 30_000;
/** How long a task's new owner lets a live previous owner finish its last commit before fencing it. */
export const HANDOVER_GRACE_MS = 3_000;
/**
 * A task's transactions are at least this far apart (Kafka Streams' default under exactly-once):
 * every transaction costs the broker several requests and a marker in each partition it touched,
 * so at 20 ms the broker's CPU per page was several times the crawler's. Each hop of a record
 * waits up to this long; the politeness delay between two pages of a host is ten times more.
 */
export const DEFAULT_COMMIT_INTERVAL_MS = 100;
/** Keep each produce request well under the broker's limits; bodies can be megabytes. */
const MAX_SEND_BYTES = 8 * 1024 * 1024;

export class KafkaTaskHost<S = unknown> {
  readonly task: StreamTask<S>;
  private readonly db: Level<Buffer, Buffer>;
  private producer!: Producer;
  private committing: Promise<void> | undefined;
  private commitWanted = false;
  /** Set once a commit failed: this instance can no longer tell what is committed. */
  private fenced = false;
  readonly id: string;

  constructor(private readonly o: KafkaTaskOptions<S>) {
    this.id = `${o.node.name}-${o.partition}`;
    const { node, partition, names } = o;
    // Created closed: the stores hold the database now and read it once open() has restored it.
    this.db = new Level<Buffer, Buffer>(join(o.dataDir, names.group(node.name), String(partition)), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    this.task = new StreamTask({
      node, partition,
      services: o.services,
      stores: node.definition.stores.map((spec) => new LevelStore(this.db as unknown as BinaryDb, spec, bucketsOfPartition(partition, o.partitions))),
      codecs: o.codecs,
      logId: o.logId,
      clock: Date.now,
      log: o.log,
      owns: o.owns ?? ((r) => partitionFor(r.key, o.partitions) === partition),
      onActivity: () => {
        this.requestCommit();
        this.o.onActivity();
      },
      onCommitted: o.onCommitted,
    });
  }

  async open(): Promise<void> {
    const { node, partition, names } = this.o;
    this.task.restoring();
    mkdirSync(this.db.location, { recursive: true });
    await this.db.open();
    this.producer = this.o.kafka.producer({
      transactionalId: names.transactionalId(node.name, partition),
      idempotent: true,
      maxInFlightRequests: 1,
      transactionTimeout: 60_000,
    });
    await this.producer.connect();
    // A previous owner that is still alive is committing its finished work right now (handOver);
    // fencing at once would abort that commit and make us refetch what it already fetched.
    await new Promise((r) => setTimeout(r, this.o.handoverGraceMs ?? HANDOVER_GRACE_MS));
    // Fence the task's previous owner BEFORE reading its state: its open transaction is aborted and
    // it can commit nothing more, so the changelogs and group offsets we read next cannot move.
    await (await this.producer.transaction()).abort();
    await this.restore();
    const positions = new Map<string, InputPosition>();
    for (const topic of node.inputs) {
      const raw = await this.db.get(POSITION_KEY(topic));
      positions.set(topic, raw ? (JSON.parse(raw.toString('utf8')) as InputPosition) : { base: 0, done: [] });
    }
    // Positions also live in the consumer group, committed in the same transactions; after the fence
    // both agree, and taking the further one is a guard against a local copy that lags.
    const committed = await this.o.admin.fetchOffsets({ groupId: names.group(node.name), topics: node.inputs.map((t) => names.topic(t)) });
    for (const t of committed) {
      const p = t.partitions.find((x) => x.partition === partition);
      const offset = Number(p?.offset ?? -1);
      const topic = names.logical(t.topic);
      const mine = positions.get(topic)!;
      if (offset > mine.base) positions.set(topic, { base: offset, done: mine.done.filter((d) => d >= offset) });
    }
    await this.task.start(positions);
  }


  /** Everything read so far is committed and nothing is waiting to be. */
  settled(): boolean {
    return !this.committing && !this.commitWanted && !this.fenced && this.task.isQuiescent() && this.task.isFullyCommitted();
  }

  get lost(): boolean {
    return this.fenced;
  }

  offer(records: RawRecord[]): void {
    this.task.offer(records);
  }

  /** Commits what the task has finished; one transaction at a time, retried while the broker is away. */
  requestCommit(): void {
    if (this.task.lifecycle.leaving) return;
    this.scheduleCommit();
  }

  private scheduleCommit(): void {
    this.commitWanted = true;
    if (this.committing) return;
    this.committing = (async () => {
      try {
        while (this.commitWanted && !this.fenced) {
          this.commitWanted = false;
          // Let the records of the next interval join this transaction.
          await new Promise((r) => setTimeout(r, this.o.commitIntervalMs ?? DEFAULT_COMMIT_INTERVAL_MS));
          const commit = this.task.takeCommit();
          if (commit) await this.commitWithRetry(commit);
        }
      } finally {
        this.committing = undefined;
      }
    })();
  }

  /**
   * Leaves the task. `finish`: records in progress complete and are committed (a clean stop).
   * Otherwise (the partition moved to another worker) in-flight work is abandoned uncommitted:
   * its new owner redoes it, and our producer is fenced.
   */
  async close(finish: boolean): Promise<void> {
    if (finish && !this.fenced && this.task.lifecycle.state === 'running') {
      await this.task.close();
      await this.committing;
      this.scheduleCommit();
    } else {
      await this.task.abandon();
    }
    await this.release();
  }

  /**
   * The partition moved to another worker: commit what is finished, then leave. The new owner waits
   * HANDOVER_GRACE_MS before it fences this producer, which is this commit's window; a commit that
   * misses it is aborted by the fence, and the new owner redoes that work (as after a crash).
   */
  async handOver(): Promise<void> {
    if (this.task.lifecycle.state !== 'running') return this.close(false);
    await this.task.handOver();
    await this.committing;
    const commit = this.fenced ? undefined : this.task.takeCommit();
    if (commit) await this.commitWithRetry(commit);
    await this.release();
  }

  /** After the last commit: nothing of this task stays open. */
  private async release(): Promise<void> {
    await this.committing;
    await this.producer?.disconnect().catch(() => {});
    if (this.db?.status === 'open') await this.db.close();
  }

  private async commitWithRetry(commit: TaskCommit): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.commitOnce(commit),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${COMMIT_TIMEOUT_MS} ms`)), COMMIT_TIMEOUT_MS))),
      ]);
    } catch (err) {
      // Whatever failed — fenced by a newer owner, the broker gone while the transaction ended, a
      // coordinator that moved — this instance can no longer tell what is committed. It stops
      // here; the runner re-opens the task if it is still ours, and opening fences this producer
      // (its open transaction is aborted) and restores exactly what was committed.
      const e = err as { name?: string; type?: string; message?: string };
      this.fenced = true;
      const reason = `${e.type ?? e.name ?? ''} ${e.message ?? ''}`.trim();
      // A task already leaving is not re-opened: its work is its new owner's now.
      if (this.task.lifecycle.leaving) this.o.log.info(`${this.id}: last commit before leaving failed (${reason}); the new owner redoes that work`);
      else this.o.onLost(this, reason);
    } finally {
      clearTimeout(timer);
    }
  }

  private async commitOnce(commit: TaskCommit): Promise<void> {
    const { names, node, partition } = this.o;
    const byTopic = new Map<string, Message[]>();
    const push = (topic: string, m: Message) => {
      let list = byTopic.get(topic);
      if (!list) byTopic.set(topic, (list = []));
      list.push(m);
    };
    for (const o of commit.outputs) {
      push(names.topic(o.topic), { key: o.key, value: o.value, partition: partitionFor(o.key, this.o.partitions), timestamp: String(o.timestamp) });
    }
    for (const { store, writes } of commit.stores) {
      for (const w of writes) push(names.changelog(node.name, store.name), { key: w.key, value: w.value, partition });
    }
    for (const { topic, position } of commit.positions) {
      push(names.changelog(node.name, POSITIONS_STORE), { key: POSITION_KEY(topic), value: Buffer.from(JSON.stringify(position)), partition });
    }
    const transaction = await this.producer.transaction();
    const changelogEnds = new Map<string, number>();
    try {
      for (const chunk of chunks([...byTopic].map(([topic, messages]) => ({ topic, messages })))) {
        const results = await transaction.sendBatch({ topicMessages: chunk });
        for (const r of results) {
          if (!r.topicName.endsWith('.changelog')) continue;
          // Changelog records of a task all go to its own partition: the batch ends count records later.
          const count = chunk.filter((t) => t.topic === r.topicName).reduce((n, t) => n + t.messages.length, 0);
          const end = Number(r.baseOffset ?? '0') + count;
          changelogEnds.set(r.topicName, Math.max(changelogEnds.get(r.topicName) ?? 0, end));
        }
      }
      if (commit.positions.length) {
        await transaction.sendOffsets({
          consumerGroupId: names.group(node.name),
          topics: commit.positions.map(({ topic, position }) => ({ topic: names.topic(topic), partitions: [{ partition, offset: String(position.base) }] })),
        });
      }
      await transaction.commit();
    } catch (err) {
      // Not awaited: after a broker failure kafkajs may retry the abort for minutes; re-opening
      // the task aborts the transaction anyway.
      void transaction.abort().catch(() => {});
      throw err;
    }
    // The changelogs hold the commit now; the local copy and its checkpoint follow (never ahead).
    const ops: { type: 'put' | 'del'; key: Buffer; value?: Buffer }[] = [];
    for (const { writes } of commit.stores) for (const w of writes) ops.push(w.value === null ? { type: 'del', key: w.key } : { type: 'put', key: w.key, value: w.value });
    for (const { topic, position } of commit.positions) ops.push({ type: 'put', key: POSITION_KEY(topic), value: Buffer.from(JSON.stringify(position)) });
    for (const [topic, end] of changelogEnds) ops.push({ type: 'put', key: CHECKPOINT(topic), value: Buffer.from(String(end)) });
    if (ops.length) await this.db.batch(ops as never);
    this.task.committed(commit);
  }

  private async restore(): Promise<void> {
    const { node, names, partition } = this.o;
    const topics = [...node.definition.stores.map((s) => names.changelog(node.name, s.name)), names.changelog(node.name, POSITIONS_STORE)];
    const targets = [];
    for (const topic of topics) {
      const raw = await this.db.get(CHECKPOINT(topic));
      targets.push({ topic, partition, from: raw ? Number(raw.toString('utf8')) : 0 });
    }
    const reached = await restoreChangelogs(this.o.kafka, this.o.admin, targets, async (topic, entries) => {
      const ops = entries.map((e) => (e.value === null ? { type: 'del' as const, key: e.key } : { type: 'put' as const, key: e.key, value: e.value }));
      const last = entries[entries.length - 1].offset + 1;
      await this.db.batch([...ops, { type: 'put', key: CHECKPOINT(topic), value: Buffer.from(String(last)) }] as never);
    });
    for (const [id, offset] of reached) {
      if (offset < 0) {
        throw new Error(`${this.id}: the local state at ${this.o.dataDir} is ahead of changelog ${id} (was the topic recreated?); remove the task directory to restore from scratch`);
      }
      const topic = id.slice(0, id.lastIndexOf('/'));
      await this.db.put(CHECKPOINT(topic), Buffer.from(String(offset)));
    }
  }
}

function* chunks(topics: TopicMessages[]): Generator<TopicMessages[]> {
  let current: TopicMessages[] = [];
  let bytes = 0;
  for (const t of topics) {
    let messages: Message[] = [];
    for (const m of t.messages) {
      const size = (m.value as Buffer | null)?.length ?? 0;
      if (bytes + size > MAX_SEND_BYTES && (messages.length || current.length)) {
        if (messages.length) current.push({ topic: t.topic, messages });
        yield current;
        current = [];
        messages = [];
        bytes = 0;
      }
      messages.push(m);
      bytes += size;
    }
    if (messages.length) current.push({ topic: t.topic, messages });
  }
  if (current.length) yield current;
}
