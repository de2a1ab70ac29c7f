// Fencing a task's previous owner without the group generation (KIP-447), which kafkajs 2.2.4 cannot
// send: every worker commits all its tasks in the transactions of ONE producer, so a task's new owner
// must know which transactional id last wrote for the task and fence it (InitProducerId bumps its
// epoch and aborts its open transaction) BEFORE it reads the task's state.
//
// The owners topic (one compacted partition) holds, per task, the transactional id that claimed it and
// whether that owner released it. A worker claims a task in a committed transaction before it writes
// anything else for it, and releases it in the same transaction as the task's last commit (a clean
// stop or hand-over). Every worker follows the topic with read_uncommitted, so a claim or release is
// seen as soon as it is appended, committed or not; a release counts once its transaction is over
// (the last stable offset passed it). To take a task over:
//   1. the last record names another owner that has not released (or whose release is still in an
//      open transaction): wait up to the grace for the release to land, then fence that owner;
//   2. claim the task (a transaction of our own producer, committed);
//   3. any other owner that claimed the task meanwhile is fenced too (two workers that both believed
//      the task theirs, across a rebalance): after this, nobody but us can commit for the task;
//   4. only then read its changelogs and positions.
// A worker that was fenced finds its next transaction refused; it abandons every task and re-opens the
// ones it owns once its groups have re-settled (engine/kafka/kafka-runtime.ts).
//
// A hand-over may take a while: the old owner lets its requests on the wire be answered (up to the
// fetch timeout) before it commits and releases. Meanwhile it says so every second (a notice, under
// its own key so that compaction never hides a claim behind it), and the new owner waits up to the
// bound the notices carry, at most three graces: it fences only an owner that never said so (gone)
// or did not release in that time.
// A fence would throw away every finished request of the old owner's last commit interval, and its
// next owner would send them again.
import { randomUUID } from 'node:crypto';
import type { Admin, Consumer, Kafka, Producer } from 'kafkajs';
import type { Logger } from '../api.js';
import { fixedAssigner } from './co-partitioned-assigner.js';
import { afterFailure } from './restart-backoff.js';

interface OwnerRecord {
  offset: number;
  owner: string;
  released: boolean;
}

export interface TaskOwnersOptions {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  /** This worker's transactional id. */
  me: string;
  logger: Logger;
  /** How long a new owner waits for a live previous owner to release the task before fencing it. */
  graceMs: number;
}

/** The record that claims or releases `task` for `owner`, for the owners topic. */
export function ownerRecord(task: string, owner: string, released: boolean): { key: string; value: Buffer; partition: number } {
  return { key: task, value: Buffer.from(JSON.stringify({ owner, released })), partition: 0 };
}

const SYNC_KEY = '~sync';
/** A hand-over notice is keyed by the task and this suffix. */
const NOTICE_SUFFIX = '~handing-over';
/** How often an owner handing a task over says it is still at it. */
const NOTICE_EVERY_MS = 1_000;
/** How many graces a new owner waits at most for an owner that said it is handing the task over. */
const HANDOVER_WAITS = 3;
/** Past a notice's bound, what the old owner's last commit and release may still take. */
const RELEASE_MARGIN_MS = 10_000;

/** The last hand-over notice of a task, as this worker read it. */
interface Notice {
  offset: number;
  owner: string;
  /** The latest time (performance.now) the old owner said it would be done by, counted from when it was read. */
  until: number;
}
/** How many records per task are kept: enough to see every claim made since a take-over began. */
const HISTORY = 32;
const POLL_MS = 25;
const WRITERS_KEPT = 1_024;
const SYNC_TIMEOUT_MS = 30_000;

export class TaskOwners {
  private consumer: Consumer | undefined;
  private producer: Producer | undefined;
  private readonly history = new Map<string, OwnerRecord[]>();
  private readonly notices = new Map<string, Notice>();
  private readonly syncs = new Map<string, () => void>();
  /** Who wrote the last records (claims and releases): names the transaction a waiting take-over waits on. */
  private readonly writers = new Map<number, string>();
  private stopped = false;
  /** Next offset to read: a restarted consumer reads the topic again from its start. */
  private next = 0;

  constructor(private readonly o: TaskOwnersOptions) {}

  async start(): Promise<void> {
    this.producer = this.o.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await this.producer.connect();
    await this.follow();
  }

  private async follow(): Promise<void> {
    const { kafka, topic } = this.o;
    const consumer = (this.consumer = kafka.consumer({
      groupId: `crawlstream-owners-${randomUUID()}`,
      partitionAssigners: [fixedAssigner(() => new Map([[topic, [0]]]))],
      readUncommitted: true,
      // A fetch returns as soon as a record arrives; the wait only bounds idle polling.
      maxWaitTimeInMs: 2_000,
      sessionTimeout: 30_000,
      // Never restarted by kafkajs, always by restart() below, in a group of its own again. kafkajs
      // restarts a consumer only after retriable errors (after any other, every take-over would wait
      // for a sync that never comes back), and it rejoins the same group as a new member: after a
      // broker restart that group still held the old member, and the join waited out its 30 s
      // session while every task's open waited on a sync (a 28-35 s stall in the fault test's crawl).
      retry: { retries: 5, restartOnFailure: async () => false },
    }));
    consumer.on(consumer.events.CRASH, (e) => {
      if (this.stopped || consumer !== this.consumer) return;
      this.o.logger.warn(`${topic}: consumer stopped (${e.payload.error.message}); starting it again`);
      void this.restart(consumer);
    });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) this.read(m.key?.toString('utf8') ?? '', m.value, Number(m.offset));
      },
    });
  }

  private async restart(crashed: Consumer): Promise<void> {
    for (let attempt = 0; !this.stopped && crashed === this.consumer; attempt++) {
      await crashed.disconnect().catch(() => {});
      try {
        await this.follow();
        return;
      } catch (err) {
        await afterFailure(this.o.logger, `${this.o.topic} consumer`, err as Error, attempt);
        crashed = this.consumer!;
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.consumer?.disconnect().catch(() => {});
    await this.producer?.disconnect().catch(() => {});
  }

  /**
   * Steps 1 and 3 around the claim: fences whoever else may still write for `task`. `claim` makes our
   * claim durable (a committed transaction of this worker's producer). False, having fenced and
   * claimed nothing, when `wanted` turned false while it waited (our view of the group was stale).
   */
  async takeOver(task: string, claim: () => Promise<void>, wanted: () => boolean = () => true): Promise<boolean> {
    await this.sync();
    const last = this.latest(task);
    if (last && last.owner !== this.o.me) {
      const released = await this.releasedInTime(task, last, wanted);
      if (!wanted()) return false;
      if (!released) await this.fence(last.owner, `${task}: its last owner ${last.owner} did not release it in time`);
    }
    await claim();
    await this.sync();
    const racing = new Set<string>();
    for (const r of this.history.get(task) ?? []) {
      if (r.offset > (last?.offset ?? -1) && r.owner !== this.o.me && !r.released) racing.add(r.owner);
    }
    for (const owner of racing) await this.fence(owner, `${task}: ${owner} claimed it at the same time`);
    return true;
  }

  private read(key: string, value: Buffer | null, offset: number): void {
    if (offset < this.next) return;
    this.next = offset + 1;
    if (key === SYNC_KEY) {
      const id = value?.toString('utf8') ?? '';
      this.syncs.get(id)?.();
      this.syncs.delete(id);
      return;
    }
    if (!value) return;
    let parsed: { owner?: unknown; released?: unknown; boundMs?: unknown };
    try {
      parsed = JSON.parse(value.toString('utf8')) as typeof parsed;
    } catch {
      this.o.logger.warn(`${this.o.topic}@${offset}: unreadable owner record for ${key}; ignored`);
      return;
    }
    if (typeof parsed.owner !== 'string') return;
    if (key.endsWith(NOTICE_SUFFIX)) {
      const seenAt = performance.now();
      const bound = typeof parsed.boundMs === 'number' ? parsed.boundMs : 0;
      this.notices.set(key.slice(0, -NOTICE_SUFFIX.length), { offset, owner: parsed.owner, until: seenAt + bound });
      return;
    }
    this.writers.set(offset, `${parsed.owner}'s ${parsed.released === true ? 'release' : 'claim'} of ${key}`);
    if (this.writers.size > WRITERS_KEPT) this.writers.delete(this.writers.keys().next().value!);
    const list = this.history.get(key) ?? [];
    list.push({ offset, owner: parsed.owner, released: parsed.released === true });
    if (list.length > HISTORY) list.shift();
    this.history.set(key, list);
  }

  /**
   * This worker is handing `task` over and will release it within `boundMs`: says so now and every
   * second until the returned function is called (after the release is committed), so that the new
   * owner waits instead of fencing a live owner.
   */
  handingOver(task: string, boundMs: number): () => void {
    const until = performance.now() + boundMs;
    const send = () => {
      const value = Buffer.from(JSON.stringify({ owner: this.o.me, boundMs: Math.max(0, Math.round(until - performance.now())) }));
      void this.producer?.send({ topic: this.o.topic, messages: [{ key: `${task}${NOTICE_SUFFIX}`, value, partition: 0 }] })
        .catch((err: Error) => this.o.logger.warn(`${task}: telling the next owner that the hand-over is under way failed: ${err.message}`));
    };
    send();
    const timer = setInterval(send, NOTICE_EVERY_MS);
    return () => clearInterval(timer);
  }

  private latest(task: string): OwnerRecord | undefined {
    return this.history.get(task)?.at(-1);
  }

  /** Resolves once everything appended to the owners topic before this call has been read. */
  private async sync(): Promise<void> {
    const id = randomUUID();
    const seen = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.syncs.delete(id);
        reject(new Error(`the owners topic ${this.o.topic} did not come back within ${SYNC_TIMEOUT_MS} ms`));
      }, SYNC_TIMEOUT_MS);
      this.syncs.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    await this.producer!.send({ topic: this.o.topic, messages: [{ key: SYNC_KEY, value: id, partition: 0 }] });
    await seen;
  }

  /**
   * Waits for `last.owner` to release the task and for that release's transaction to be over (a
   * hand-over commits the task's last work with it: reading the state before then would miss that
   * work): up to the grace, and while the owner keeps saying it is handing the task over, up to the
   * bound it gave. False when it did not (the caller fences it).
   */
  private async releasedInTime(task: string, last: OwnerRecord, wanted: () => boolean): Promise<boolean> {
    const started = performance.now();
    let told = false;
    let stable = 0;
    while (!this.stopped && wanted()) {
      const now = this.latest(task);
      if (now && now.owner === last.owner && now.released && now.offset < (stable = await this.lastStableOffset())) return true;
      if (now && now.owner !== last.owner) return false; // someone else claimed it meanwhile: fence both
      const notice = this.notices.get(task);
      const live = notice && notice.owner === last.owner && notice.offset > last.offset ? notice : undefined;
      // Told of a hand-over: up to its bound, but never more than HANDOVER_WAITS graces (a release
      // not seen yet made a new owner wait the whole bound, up to the fetch timeout, and stopped a
      // short crawl; fencing after one grace of silence made live workers redo their last interval).
      const deadline = live ? Math.min(live.until + RELEASE_MARGIN_MS, started + HANDOVER_WAITS * this.o.graceMs) : started + this.o.graceMs;
      if (performance.now() >= deadline) {
        if (now?.released && now.owner === last.owner) {
          const holder = this.writers.get(stable) ?? 'a transaction this worker has not read';
          this.o.logger.warn(`${task}: ${last.owner} released it at offset ${now.offset}, but the owners topic's last stable offset is still ${stable}, held by ${holder}, an open transaction`);
        }
        if (live) this.o.logger.warn(`${task}: ${last.owner} was handing it over but did not release it within ${Math.round((performance.now() - started) / 1000)} s (the owners topic read up to ${this.next}, stable up to ${await this.lastStableOffset()}, last notice at ${live.offset})`);
        return false;
      }
      if (live && !told && performance.now() - started > 2_000) {
        told = true;
        this.o.logger.info(`${task}: waiting for ${last.owner} to finish its work in flight and release it (up to ${Math.round((live.until - performance.now()) / 1000)} s)`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    return false;
  }

  private async lastStableOffset(): Promise<number> {
    // The admin lists offsets read_committed: "high" is the last stable offset.
    const [p] = await this.o.admin.fetchTopicOffsets(this.o.topic);
    return Number(p?.high ?? 0);
  }

  /** InitProducerId under `owner`'s transactional id: its epoch moves on, its open transaction is aborted. */
  private async fence(owner: string, why: string): Promise<void> {
    const fencer = this.o.kafka.producer({ transactionalId: owner, idempotent: true, maxInFlightRequests: 1, transactionTimeout: 60_000 });
    await fencer.connect();
    try {
      await (await fencer.transaction()).abort();
    } finally {
      await fencer.disconnect().catch(() => {});
    }
    this.o.logger.info(`fenced ${owner} (${why})`);
  }
}
