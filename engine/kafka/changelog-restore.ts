// Restoring a task's LevelDB from its compacted changelog partitions before the task processes
// anything. Reads with read_committed from the local checkpoint to the partition's high watermark
// taken at the start, once every transaction below it is decided; transaction markers count as
// consumed, so the restore ends even when the last offsets of a partition are markers.
//
// Why the high watermark and not the last stable offset (what kafkajs's admin calls "high"): an open
// transaction holds the last stable offset at its first record, and records committed after it (the
// previous owner's last commit, whose markers are written after its EndTxn returned; a transaction
// left open across a broker restart until the coordinator ends it) lie beyond. A restore that
// stopped there missed them without a word, and a local checkpoint already past them looked "ahead
// of the changelog" and the task could not start. Kafka Streams restores the same way (KAFKA-10167).
import type { Admin, Kafka } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../api.js';
import { fixedAssigner } from './co-partitioned-assigner.js';
import { partitionEnds, stableOffsets, writersAt } from './partition-ends.js';

export interface RestoreTarget {
  topic: string;
  partition: number;
  /** First offset not yet in the local store. */
  from: number;
}

/** A restore that reads nothing for this long is given up (and retried by its caller). */
const RESTORE_STALL_MS = 60_000;
/**
 * How long a restore waits for the transactions open below a partition's end to be decided: past the
 * workers' transaction timeout (60 s) and the coordinator's check for expired ones (every 10 s).
 */
export const STABLE_WAIT_MS = 90_000;
/** A wait shorter than this is a marker on its way, not worth a line. */
const WAIT_TOLD_AFTER_MS = 1_000;
const WAIT_TOLD_EVERY_MS = 10_000;

export interface RestoreOptions {
  /** Told when the restore waits on an open transaction, and why. */
  logger?: Logger;
  /** Bound of that wait (default STABLE_WAIT_MS); past it the restore fails and its caller retries. */
  stableWithinMs?: number;
  /** Turned false (the task moved on): the wait ends and nothing is restored. */
  wanted?: () => boolean;
  /** The reading consumer's group, deleted once the restore ends (default: a fresh one each time). */
  groupId?: string;
}

export type RestoreApply = (topic: string, entries: { key: Buffer; value: Buffer | null; offset: number; timestamp: number }[]) => Promise<void>;

/**
 * Reads each target partition from `from` up to its end offset; returns the offsets reached, -1 for a
 * partition whose checkpoint is beyond the end of its log (the topic was recreated).
 */
export async function restoreChangelogs(kafka: Kafka, admin: Admin, targets: RestoreTarget[], apply: RestoreApply, o: RestoreOptions = {}): Promise<Map<string, number>> {
  const reached = new Map<string, number>();
  const ends = new Map<string, number>();
  const pending: RestoreTarget[] = [];
  const found = await partitionEnds(kafka, admin, [...new Set(targets.map((t) => t.topic))]);
  const unstable = new Map<string, Unstable>();
  for (const t of targets) {
    const id = `${t.topic}/${t.partition}`;
    const end = found.get(id);
    // Not "empty": an empty partition has ends 0 and a checkpoint past them would read as "recreated".
    if (!end) throw new Error(`the broker did not say where changelog ${id} ends`);
    const { low, stable, high } = end;
    // A checkpoint beyond the end of the log means the changelog was recreated: the local copy cannot be trusted.
    const from = t.from > high ? -1 : Math.max(t.from, low);
    reached.set(id, from);
    ends.set(id, high);
    if (from < 0 || from >= high) continue;
    pending.push({ ...t, from });
    // Something to read, and a transaction below the end still open: its outcome (and that of any
    // committed after it) must be known before reading.
    if (stable < high) unstable.set(id, { topic: t.topic, partition: t.partition, stable, checkpoint: t.from });
  }
  if (unstable.size && !(await untilStable(kafka, admin, unstable, ends, o))) return reached;
  if (pending.length === 0) return reached;

  const assigned = new Map<string, number[]>();
  for (const t of pending) assigned.set(t.topic, [...(assigned.get(t.topic) ?? []), t.partition]);
  // A group of its own (kafkajs cannot read without one), committing nothing and deleted afterwards:
  // `status` restores the task-status topic every second, and each group that committed offsets stayed
  // on the broker for the offsets' retention (7 days), thousands of them to load after every restart.
  const groupId = o.groupId ?? `crawlstream-restore-${randomUUID()}`;
  const consumer = kafka.consumer({
    groupId,
    partitionAssigners: [fixedAssigner(() => assigned)],
    readUncommitted: false,
    maxWaitTimeInMs: 100,
    maxBytesPerPartition: 32 * 1024 * 1024,
    sessionTimeout: 30_000,
  });
  await consumer.connect();
  let failed = true;
  try {
    for (const topic of assigned.keys()) await consumer.subscribe({ topic, fromBeginning: true });
    const remaining = new Set(pending.map((t) => `${t.topic}/${t.partition}`));
    let failure: Error | undefined;
    let lastProgress = performance.now();
    let stall: NodeJS.Timeout | undefined;
    const done = new Promise<void>((resolve, reject) => {
      // A consumer that never gets its partitions (a coordinator that stays away after a broker
      // restart) must not hold the task's open forever: the caller retries.
      stall = setInterval(() => {
        if (performance.now() - lastProgress > RESTORE_STALL_MS) reject(new Error(`no progress for ${RESTORE_STALL_MS} ms`));
      }, 1000);
      const check = (topic: string, partition: number, lastOffset: number) => {
        lastProgress = performance.now();
        const id = `${topic}/${partition}`;
        // A batch may reach past the end (read while later transactions were decided); what lies
        // past it was not applied, so the checkpoint must not pass it either.
        reached.set(id, Math.max(reached.get(id) ?? 0, Math.min(lastOffset + 1, ends.get(id)!)));
        if (lastOffset + 1 >= ends.get(id)!) remaining.delete(id);
        if (remaining.size === 0) resolve();
      };
      consumer.on(consumer.events.END_BATCH_PROCESS, (e) => {
        check(e.payload.topic, e.payload.partition, Number(e.payload.lastOffset));
      });
      // A retriable crash ("the coordinator is loading", right after a broker starts) is restarted
      // by kafkajs itself; the stall guard bounds how long that may take.
      consumer.on(consumer.events.CRASH, (e) => {
        if (!e.payload.restart) reject(e.payload.error);
      });
      consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch, heartbeat }) => {
          const entries = batch.messages
            .filter((m) => Number(m.offset) < ends.get(`${batch.topic}/${batch.partition}`)!)
            .map((m) => ({ key: m.key ?? Buffer.alloc(0), value: m.value, offset: Number(m.offset), timestamp: Number(m.timestamp) }));
          if (entries.length) await apply(batch.topic, entries);
          await heartbeat();
        },
      }).catch((err) => reject(err));
    });
    const seekWhenAssigned = consumer.on(consumer.events.GROUP_JOIN, () => {
      for (const t of pending) consumer.seek({ topic: t.topic, partition: t.partition, offset: String(t.from) });
    });
    try {
      await done;
    } catch (err) {
      failure = err as Error;
    }
    clearInterval(stall);
    seekWhenAssigned();
    if (failure) throw new Error(`restoring from changelogs failed: ${failure.message}`);
    failed = false;
  } finally {
    await consumer.disconnect();
    // Housekeeping never holds a restore up: kafkajs retries a broker that is away for ~75 s, and a
    // failed restore's caller retries at once. A restore that worked waits for it a little (so that
    // what it leaves is gone when it returns); one that failed does not wait.
    const deleted = deleteGroup(admin, groupId, o.logger);
    if (!failed) await Promise.race([deleted, new Promise<void>((r) => setTimeout(r, GROUP_DELETE_WAIT_MS).unref())]);
  }
  return reached;
}

const GROUP_DELETE_WAIT_MS = 5_000;

async function deleteGroup(admin: Admin, groupId: string, logger: RestoreOptions['logger']): Promise<void> {
  await admin.deleteGroups([groupId]).catch((err: Error & { groups?: { error?: { type?: string } }[] }) => {
    // Never joined (the restore failed first): nothing was left.
    if (err.groups?.every((g) => g.error?.type === 'GROUP_ID_NOT_FOUND')) return;
    logger?.warn(`restore: its consumer group ${groupId} was left on the broker (${err.message}); it holds no offsets, so the broker drops it at its next offsets.retention.check.interval.ms`);
  });
}

/** A partition with a transaction still open below its end. */
interface Unstable { topic: string; partition: number; stable: number; checkpoint: number }

/**
 * Waits until every partition's last stable offset reached its end (the high watermark taken at the
 * start): every transaction that wrote below it is committed or aborted. False when the restore is no
 * longer wanted; throws, naming the offsets, when the wait passes its bound.
 */
async function untilStable(kafka: Kafka, admin: Admin, unstable: Map<string, Unstable>, ends: ReadonlyMap<string, number>, o: RestoreOptions): Promise<boolean> {
  const bound = o.stableWithinMs ?? STABLE_WAIT_MS;
  const started = performance.now();
  let toldAt: number | undefined;
  const describe = () => [...unstable].map(([id, u]) => `${id} stable at ${u.stable}, end ${ends.get(id)}, local checkpoint ${u.checkpoint}`).join('; ');
  for (let attempt = 0; unstable.size; attempt++) {
    if (o.wanted && !o.wanted()) return false;
    const waited = performance.now() - started;
    if (waited >= bound) {
      const writers = await writersAt(kafka, [...unstable.values()].map((u) => ({ topic: u.topic, partition: u.partition, offset: u.stable })));
      const held = [...writers].map(([id, w]) => `${id}@${w.offset} by producer id ${w.producerId} epoch ${w.producerEpoch}${w.inTransaction ? '' : ' (not in a transaction)'}, key ${w.key}`).join('; ');
      throw new Error(`an open transaction held the changelog below its end for ${Math.round(waited / 1000)} s (${describe()}${held ? `; held at ${held}` : ''}); a worker's transaction ends within its timeout, so one that does not is left hanging on the broker (kafka-transactions.sh describe-producers names its transactional id; find-hanging and abort end it)`);
    }
    if (waited >= WAIT_TOLD_AFTER_MS && (toldAt === undefined || performance.now() - toldAt >= WAIT_TOLD_EVERY_MS)) {
      toldAt = performance.now();
      o.logger?.info(`restore waits for an open transaction to end before reading (${describe()}; up to ${Math.round((bound - waited) / 1000)} s more)`);
    }
    await new Promise((r) => setTimeout(r, Math.min(20 * 2 ** attempt, 500)));
    const stable = await stableOffsets(admin, [...new Set([...unstable.values()].map((u) => u.topic))]);
    for (const [id, u] of unstable) {
      u.stable = stable.get(id) ?? u.stable;
      if (u.stable >= ends.get(id)!) unstable.delete(id);
    }
  }
  if (toldAt !== undefined) o.logger?.info(`restore: the open transaction ended after ${Math.round((performance.now() - started) / 1000)} s; reading on`);
  return true;
}
