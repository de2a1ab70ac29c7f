// Restoring a task's LevelDB from its compacted changelog partitions before the task processes
// anything. Reads with read_committed from the local checkpoint to the end offset taken
// at the start; transaction markers count as consumed, so the restore ends even when the last
// offsets of a partition are markers.
import type { Admin, Kafka } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import { fixedAssigner } from './co-partitioned-assigner.js';

export interface RestoreTarget {
  topic: string;
  partition: number;
  /** First offset not yet in the local store. */
  from: number;
}

/** A restore that reads nothing for this long is given up (and retried by its caller). */
const RESTORE_STALL_MS = 60_000;

export type RestoreApply = (topic: string, entries: { key: Buffer; value: Buffer | null; offset: number; timestamp: number }[]) => Promise<void>;

/** Reads each target partition from `from` up to its end offset; returns the offsets reached. */
export async function restoreChangelogs(kafka: Kafka, admin: Admin, targets: RestoreTarget[], apply: RestoreApply): Promise<Map<string, number>> {
  const reached = new Map<string, number>();
  const ends = new Map<string, number>();
  const pending: RestoreTarget[] = [];
  for (const t of targets) {
    const offsets = await admin.fetchTopicOffsets(t.topic);
    const meta = offsets.find((o) => o.partition === t.partition);
    const high = Number(meta?.high ?? 0);
    const low = Number(meta?.low ?? 0);
    const id = `${t.topic}/${t.partition}`;
    // A checkpoint beyond the end means the changelog was recreated: the local copy cannot be trusted.
    const from = t.from > high ? -1 : Math.max(t.from, low);
    reached.set(id, from);
    ends.set(id, high);
    if (from >= 0 && from < high) pending.push({ ...t, from });
  }
  if (pending.length === 0) return reached;

  const wanted = new Map<string, number[]>();
  for (const t of pending) wanted.set(t.topic, [...(wanted.get(t.topic) ?? []), t.partition]);
  const consumer = kafka.consumer({
    groupId: `crawlstream-restore-${randomUUID()}`,
    partitionAssigners: [fixedAssigner(() => wanted)],
    readUncommitted: false,
    maxWaitTimeInMs: 100,
    maxBytesPerPartition: 32 * 1024 * 1024,
    sessionTimeout: 30_000,
  });
  await consumer.connect();
  try {
    for (const topic of wanted.keys()) await consumer.subscribe({ topic, fromBeginning: true });
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
        reached.set(id, Math.max(reached.get(id) ?? 0, lastOffset + 1));
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
  } finally {
    await consumer.disconnect();
  }
  return reached;
}
