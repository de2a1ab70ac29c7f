// Where a partition ends, both ways: its last stable offset (what read_committed consumers can read:
// nothing at or past the first record of a transaction still open) and its high watermark (the end
// of the log, read_uncommitted). kafkajs's admin lists offsets read_committed only, so its "high" is
// the last stable offset; the high watermark is asked through kafkajs's own cluster, read
// uncommitted (its admin has no isolation option).
import type { Admin, Kafka } from 'kafkajs';
import { kafkajsCluster, READ_UNCOMMITTED } from './kafkajs-cluster.js';
import { fixedAssigner } from './co-partitioned-assigner.js';

export interface PartitionEnd {
  /** Log start offset. */
  low: number;
  /** Last stable offset: below it, every transaction is decided. */
  stable: number;
  /** High watermark: the end of the log, decided or not. */
  high: number;
}

/** Every partition's end offsets of each topic (`topic/partition` → ends). */
export async function partitionEnds(kafka: Kafka, admin: Admin, topics: string[]): Promise<Map<string, PartitionEnd>> {
  const ends = new Map<string, PartitionEnd>();
  // Stable offsets first: a high watermark read after them is never below them.
  for (const topic of topics) {
    for (const o of await admin.fetchTopicOffsets(topic)) {
      ends.set(`${topic}/${o.partition}`, { low: Number(o.low), stable: Number(o.high), high: Number(o.high) });
    }
  }
  const cluster = kafkajsCluster(kafka, READ_UNCOMMITTED, 'list high watermarks, which changelog restores need');
  await cluster.connect();
  try {
    for (const topic of topics) {
      await cluster.addTargetTopic(topic);
      const partitions = [...ends.keys()].filter((id) => id.slice(0, id.lastIndexOf('/')) === topic).map((id) => ({ partition: Number(id.slice(id.lastIndexOf('/') + 1)) }));
      const [answer] = await cluster.fetchTopicsOffset([{ topic, fromBeginning: false, partitions }]);
      for (const p of answer?.partitions ?? []) {
        const end = ends.get(`${topic}/${p.partition}`)!;
        end.high = Math.max(end.stable, Number(p.offset));
      }
    }
  } finally {
    await cluster.disconnect().catch(() => {});
  }
  return ends;
}

/** The last stable offsets only (cheap: the admin's own connection). */
export async function stableOffsets(admin: Admin, topics: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const topic of topics) for (const o of await admin.fetchTopicOffsets(topic)) out.set(`${topic}/${o.partition}`, Number(o.high));
  return out;
}

/** The first record at or after `offset` as read_uncommitted sees it: who wrote it, and in a transaction or not. */
export interface RecordWriter {
  offset: number;
  producerId: string;
  producerEpoch: number;
  inTransaction: boolean;
  key: string;
}

/**
 * Who wrote the record at each partition's given offset (read_uncommitted), within `withinMs`: names
 * the producer whose open transaction holds a last stable offset. Partitions it could not read are left out.
 */
export async function writersAt(kafka: Kafka, at: { topic: string; partition: number; offset: number }[], withinMs = 10_000): Promise<Map<string, RecordWriter>> {
  const found = new Map<string, RecordWriter>();
  const byTopic = new Map<string, number[]>();
  for (const a of at) byTopic.set(a.topic, [...(byTopic.get(a.topic) ?? []), a.partition]);
  const wanted = new Map(at.map((a) => [`${a.topic}/${a.partition}`, a.offset]));
  const consumer = kafka.consumer({ groupId: `crawlstream-inspect-${Date.now()}-${Math.random().toString(36).slice(2)}`, readUncommitted: true, partitionAssigners: [fixedAssigner(() => byTopic)], maxWaitTimeInMs: 100 });
  try {
    await consumer.connect();
    for (const topic of byTopic.keys()) await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, withinMs);
      consumer.on(consumer.events.GROUP_JOIN, () => {
        for (const a of at) consumer.seek({ topic: a.topic, partition: a.partition, offset: String(a.offset) });
      });
      void consumer.run({
        autoCommit: false, // a look, not a reader: nothing to keep on the broker for its group
        eachBatch: async ({ batch }) => {
          const id = `${batch.topic}/${batch.partition}`;
          const offset = wanted.get(id);
          const raw = (batch as unknown as { messagesWithinOffset?: { offset: string; key: Buffer | null; batchContext?: { producerId: string; producerEpoch: number; inTransaction: boolean } }[] }).messagesWithinOffset ?? [];
          const m = raw.find((r) => offset !== undefined && Number(r.offset) >= offset);
          if (m && !found.has(id)) {
            found.set(id, { offset: Number(m.offset), producerId: String(m.batchContext?.producerId ?? '?'), producerEpoch: Number(m.batchContext?.producerEpoch ?? -1), inTransaction: m.batchContext?.inTransaction === true, key: m.key?.toString('utf8').slice(0, 60) ?? '' });
          }
          if (found.size === wanted.size) {
            clearTimeout(timer);
            resolve();
          }
        },
      }).catch(() => resolve());
    });
  } catch {
    // a diagnosis only: what was found is returned
  } finally {
    await consumer.disconnect().catch(() => {});
  }
  return found;
}
