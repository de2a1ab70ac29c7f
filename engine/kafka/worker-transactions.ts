// The Kafka commit: ONE transactional producer per worker process, and every commit interval ONE
// transaction that carries every task's outputs, changelog records, input positions, counters and
// group offsets (Kafka Streams' exactly_once_v2). A transaction costs the broker several requests, a
// marker in every partition it touched and transaction-log writes whatever it carries, so their number
// follows the workers, not the tasks. Claims and releases of tasks (engine/kafka/task-owners.ts) ride
// in the same transactions. A failed transaction leaves this worker unable to tell what is committed:
// it stops committing and tells the runtime, which abandons every task, fences its own producer
// (reset) and re-opens the tasks it owns from their last commit. The producer is opened through
// `openProducer` (engine/kafka/txn-producer.ts: @platformatic/kafka, see there why).
import type { Logger } from '../api.js';
import type { Committer } from '../task/task-commit.js';
import type { KafkaNames } from './kafka-names.js';
import { ownerRecord } from './task-owners.js';
import { transactionRecords, type CommitParticipant, type GroupOffsets, type Part } from './transaction-records.js';
import { sendOffsetsInTransaction } from './txn-offsets.js';
import type { TxnProducer } from './txn-producer.js';
import { chunks, recordEnds } from './sent-records.js';
import { afterFailure } from './restart-backoff.js';

export { COUNTER_KEY, COUNTER_PREFIX, POSITION_KEY, type CommitParticipant } from './transaction-records.js';

export interface WorkerTransactionsOptions {
  /** A new transactional producer under `transactionalId`, initialised: it has fenced every earlier one under that id. */
  openProducer: () => Promise<TxnProducer>;
  names: KafkaNames;
  transactionalId: string;
  /** Least time between two transactions while there is work; default DEFAULT_COMMIT_INTERVAL_MS. */
  intervalMs?: number;
  logger: Logger;
  /** A transaction failed: nothing more is committed until reset(). Must return at once. */
  onFailure: (err: Error, fenced: boolean) => void;
}

/**
 * Transactions are at least this far apart while there is work (Kafka Streams' default under
 * exactly-once). One transaction serves every task of the worker, so its cost per page falls as the
 * worker gets busier; each hop of a record waits up to this long.
 */
export const DEFAULT_COMMIT_INTERVAL_MS = 100;

/** A transaction slower than this is told: new owners of tasks wait on it, and so do the crawl's hops. */
const SLOW_TRANSACTION_MS = 2_000;
/**
 * Group offsets ride in a transaction at most this often (and never in one that claims or releases a
 * task): each costs an AddOffsetsToTxn, a TxnOffsetCommit and a coordinator lookup per processor
 * group. A task's positions changelog, written in every transaction, is what it restores from; the
 * group offsets only let a consumer start near its task and let Kafka's tools show progress.
 */
const GROUP_OFFSETS_EVERY_MS = 5_000;
/** A transaction that takes longer than this is given up, and every task re-opened. */
const COMMIT_TIMEOUT_MS = 30_000;

interface Claim { task: string; resolve: () => void; reject: (err: Error) => void }

export class WorkerTransactions implements Committer {
  private producer: TxnProducer | undefined;
  private readonly members = new Set<CommitParticipant>();
  private claims: Claim[] = [];
  /** Tasks claimed and not released: after a failure they are released at once (see reset). */
  private readonly claimed = new Set<string>();
  private waiters: (() => void)[] = [];
  private running = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private lastStart = 0;
  /** Group → topic → partition → offset not yet sent, and when offsets were last sent. */
  private readonly pendingOffsets: GroupOffsets = new Map();
  private offsetsSentAt = 0;
  private failure: Error | undefined;
  private stopped = false;
  readonly intervalMs: number;

  constructor(private readonly o: WorkerTransactionsOptions) {
    this.intervalMs = o.intervalMs ?? DEFAULT_COMMIT_INTERVAL_MS;
  }

  /** Connects the producer; its first InitProducerId fences any earlier producer under our id. */
  async start(): Promise<void> {
    this.producer = await this.o.openProducer();
  }

  /**
   * After a failure: a new producer under the same id, whose InitProducerId ends the failed
   * transaction (aborted, or completed if the broker had already decided), so that what the tasks
   * restore next is final.
   */
  async reset(): Promise<void> {
    const old = this.producer;
    this.producer = undefined;
    void old?.close().catch(() => {});
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        await this.start();
        // Every task was abandoned before this reset and the old epoch can write nothing more, so
        // the tasks it had claimed are released now: their new owners need not wait and fence us
        // (a fence would fail our next transaction and start all this again).
        if (this.claimed.size) await this.releaseAll();
        break;
      } catch (err) {
        await afterFailure(this.o.logger, `worker producer ${this.o.transactionalId}`, err as Error, attempt);
      }
    }
    this.failure = undefined;
  }

  /**
   * After topics grew (a new partition count), a new producer under the same id, with metadata that
   * knows the new partitions.
   * Called with every task stopped; it waits for a transaction still under way.
   */
  async renew(): Promise<void> {
    while (this.running) await new Promise((r) => setTimeout(r, 10));
    const old = this.producer;
    this.producer = undefined;
    await old?.close().catch(() => {});
    await this.start();
  }

  private async releaseAll(): Promise<void> {
    const t = await this.producer!.begin();
    try {
      const messages = [...this.claimed].map((task) => ownerRecord(task, this.o.transactionalId, true));
      await t.send([{ topic: this.o.names.taskOwners, messages }]);
      await t.commit();
    } catch (err) {
      void t.abort().catch(() => {});
      throw err;
    }
    this.claimed.clear();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.wake?.();
    await this.producer?.close().catch(() => {});
  }

  /** True while a transaction runs or is due. */
  get busy(): boolean {
    return this.running || this.timer !== undefined || this.claims.length > 0;
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  add(member: CommitParticipant): void {
    this.members.add(member);
  }

  remove(member: CommitParticipant): void {
    this.members.delete(member);
  }

  /** Claims `task` for this worker in the next transaction; resolves once it is committed. */
  claim(task: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.claims.push({ task, resolve, reject });
      void this.now();
    });
  }

  request(): void {
    if (this.failure || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) return;
    const wait = Math.max(0, this.intervalMs - (performance.now() - this.lastStart));
    this.timer = setTimeout(() => void this.loop(), wait);
  }

  /** A transaction of everything finished, after the one running; resolves when it ended either way. */
  now(): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      if (this.running) {
        this.again = true;
        this.wake?.();
      } else {
        clearTimeout(this.timer);
        void this.loop();
      }
    });
  }

  private async loop(): Promise<void> {
    this.timer = undefined;
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        this.again = false;
        const waiting = this.waiters.splice(0);
        this.lastStart = performance.now();
        if (!this.failure && !this.stopped) await this.round();
        // Claims cannot be committed by a failed or stopped producer: their tasks must not start.
        if (this.failure || this.stopped) for (const c of this.claims.splice(0)) c.reject(this.failure ?? new Error('the worker is stopping'));
        for (const w of waiting) w();
        if (this.waiters.length === 0 && (!this.again || this.failure || this.stopped)) break;
        if (this.waiters.length === 0) await this.pause(this.intervalMs - (performance.now() - this.lastStart));
      }
    } finally {
      this.running = false;
    }
  }

  /** Sleeps up to `ms`; now() cuts it short. */
  private pause(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }

  private async round(): Promise<void> {
    // Whether a member leaves is decided here, once: a task that ends its hand-over while this
    // transaction is on the wire leaves in the next one, with its release and its last work (deciding
    // again after the commit dropped such a task unreleased: its new owner fenced this worker).
    const parts: Part[] = [];
    for (const m of this.members) {
      const leaving = m.leaving;
      const commit = m.takeCommit();
      if (commit || leaving) parts.push({ m, commit, leaving });
    }
    const claims = this.claims.splice(0);
    if (parts.length === 0 && claims.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      const ends = await Promise.race([
        this.transaction(parts, claims),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${COMMIT_TIMEOUT_MS} ms`)), COMMIT_TIMEOUT_MS))),
      ]);
      for (const c of claims) {
        this.claimed.add(c.task);
        c.resolve();
      }
      for (const { m, commit, leaving } of parts) {
        if (leaving) {
          this.members.delete(m);
          this.claimed.delete(m.id);
        }
        if (commit) await m.committed(commit, ends);
      }
    } catch (err) {
      const e = err as { name?: string; type?: string; message?: string };
      const failure = new Error(`${e.type ?? e.name ?? ''} ${e.message ?? ''}`.trim());
      this.failure = failure;
      // A claim whose transaction failed may still have been appended: release it with the others.
      for (const c of claims) {
        this.claimed.add(c.task);
        c.reject(failure);
      }
      for (const { m, leaving } of parts) if (leaving) this.members.delete(m);
      const fenced = /PRODUCER_FENCED|INVALID_PRODUCER_EPOCH|fenced/i.test(failure.message);
      this.o.onFailure(failure, fenced);
    } finally {
      clearTimeout(timer);
    }
  }

  /** One transaction; returns the end offset each changelog partition reached. */
  private async transaction(parts: Part[], claims: Claim[]): Promise<Map<string, number>> {
    const byTopic = transactionRecords(parts, claims, this.o.names, this.o.transactionalId, this.pendingOffsets);
    const offsets = this.pendingOffsets;
    const producer = this.producer;
    if (!producer) throw new Error('the worker producer is not connected');
    const t0 = performance.now();
    const transaction = await producer.begin();
    const ends = new Map<string, number>();
    const took: string[] = [];
    const step = (what: string, since: number) => took.push(`${what} ${Math.round(performance.now() - since)} ms`);
    let doing = 'send';
    try {
      for (const chunk of chunks([...byTopic].map(([topic, messages]) => ({ topic, messages })))) {
        const sent = performance.now();
        const results = await transaction.send(chunk);
        step('send', sent);
        recordEnds(chunk, results, ends);
      }
      // Never in a transaction that claims or releases a task: a TxnOffsetCommit waits on its group's
      // coordinator, which is busy during the very rebalance that moves tasks, and while such a
      // transaction is open the owners topic's last stable offset cannot pass it, so every new owner
      // waiting to see a release committed waits too (and past its bound, fences a live worker).
      const movesTasks = claims.length > 0 || parts.some((p) => p.leaving);
      const offsetsDue = !movesTasks && performance.now() - this.offsetsSentAt >= GROUP_OFFSETS_EVERY_MS;
      if (offsetsDue) {
        // Every group at once: each costs four round trips (two coordinator lookups, AddOffsetsToTxn,
        // TxnOffsetCommit), and one after another they kept a loaded worker's transaction open for
        // seconds, holding back its outputs and the owners topic's last stable offset meanwhile.
        doing = 'group offsets';
        await Promise.all([...offsets].map(async ([consumerGroupId, topics]) => {
          const list = [...topics].map(([topic, partitions]) => ({ topic, partitions: [...partitions].map(([partition, offset]) => ({ partition, offset })) }));
          const sent = performance.now();
          try {
            const again = await sendOffsetsInTransaction(transaction, { consumerGroupId, topics: list });
            step(`offsets of ${consumerGroupId}${again ? ` (asked ${again + 1} times)` : ''}`, sent);
          } catch (err) {
            doing = `group offsets of ${consumerGroupId}`;
            throw err;
          }
        }));
      }
      const committing = performance.now();
      doing = 'commit';
      await transaction.commit();
      step('commit', committing);
      if (performance.now() - t0 > SLOW_TRANSACTION_MS) {
        this.o.logger.warn(`worker producer ${this.o.transactionalId}: a transaction took ${Math.round(performance.now() - t0)} ms (${took.join(', ')})${movesTasks ? '; it claimed or released tasks' : ''}`);
      }
      if (offsetsDue) {
        offsets.clear();
        this.offsetsSentAt = performance.now();
      }
    } catch (err) {
      offsets.clear(); // every task re-opens from its changelogs; offsets are sent again as they move
      // Not awaited: after a broker failure the client may retry the abort for a minute; reset() ends it.
      void transaction.abort().catch(() => {});
      if (err instanceof Error) err.message = `${err.message} (${doing})`;
      throw err;
    }
    return ends;
  }
}
