// What one transaction hands the producer, in produce requests of bounded size, and what the broker
// answered: where each changelog partition ends, and whether every partition written to answered.
import type { Message, RecordMetadata, TopicMessages } from 'kafkajs';

/** Keep each produce request well under the broker's limits; bodies can be megabytes. */
const MAX_SEND_BYTES = 8 * 1024 * 1024;

/**
 * What one partition's records may add up to in one produce request. kafkajs sends a partition's
 * messages of a request as ONE record batch, and the broker refuses a batch above the topic's
 * max.message.bytes (a record's bound plus 64 KB: 1.06 MB for URL topics) with MESSAGE_TOO_LARGE,
 * which fails the whole transaction. A worker whose transactions had slowed to 3-4 s on a loaded
 * machine sent 1 MB+ of discovered URLs to one partition and re-opened every task, refetching
 * ~2,600 pages of a 30,000-page crawl. A record larger than this still goes, alone in its batch:
 * its topic's limit is sized for it.
 */
export const MAX_PARTITION_BATCH_BYTES = 512 * 1024;

/** A record's bytes in a batch: key, value, headers and ~64 bytes of framing (varints, attributes, timestamp delta). */
function recordBytes(m: Message): number {
  let size = 64 + byteLength(m.key) + byteLength(m.value);
  if (m.headers) for (const [k, v] of Object.entries(m.headers)) size += k.length + (Array.isArray(v) ? v.reduce((n: number, x) => n + byteLength(x), 0) : byteLength(v));
  return size;
}

function byteLength(v: Buffer | string | null | undefined): number {
  if (v == null) return 0;
  return typeof v === 'string' ? Buffer.byteLength(v) : v.length;
}

/** Changelog partitions' end offsets after a produce: base offset plus the records sent there. */
export function recordEnds(chunk: TopicMessages[], results: RecordMetadata[], ends: Map<string, number>): void {
  // kafkajs skips, without a word, messages for a partition its metadata does not know yet (a topic
  // grown by scale): the transaction would commit without them. Every partition written to must
  // have answered, or the transaction fails and its work is redone. (Looked up by topic, then by
  // partition number: a "topic/partition" string made for each of a transaction's thousands of
  // records was the worker's costliest code of its own.)
  const answered = new Map<string, Set<number>>();
  for (const r of results) byTopic(answered, r.topicName, () => new Set<number>()).add(r.partition);
  const sent = new Map<string, Map<number, number>>();
  for (const t of chunk) {
    const partitions = answered.get(t.topic);
    const counts = t.topic.endsWith('.changelog') ? byTopic(sent, t.topic, () => new Map<number, number>()) : undefined;
    for (const m of t.messages) {
      const p = m.partition as number;
      if (!partitions?.has(p)) throw new Error(`the producer did not send to ${t.topic}/${m.partition} (no metadata for that partition yet)`);
      counts?.set(p, (counts.get(p) ?? 0) + 1);
    }
  }
  for (const r of results) {
    const n = sent.get(r.topicName)?.get(r.partition);
    if (n === undefined) continue;
    const id = `${r.topicName}/${r.partition}`;
    ends.set(id, Math.max(ends.get(id) ?? 0, Number(r.baseOffset ?? '0') + n));
  }
}

function byTopic<T>(map: Map<string, T>, topic: string, make: () => T): T {
  let v = map.get(topic);
  if (v === undefined) map.set(topic, (v = make()));
  return v;
}

/**
 * The transaction's messages as produce requests: each partition's in order, at most
 * MAX_PARTITION_BATCH_BYTES of a partition and MAX_SEND_BYTES in all a request (a single larger record
 * goes alone). A partition with more waits for the next request while the others fill this one: order
 * matters only within a partition, and the transaction makes them visible together.
 */
export function* chunks(topics: TopicMessages[]): Generator<TopicMessages[]> {
  interface Queue { topic: string; messages: Message[]; sizes: number[]; next: number }
  // Partitions in the order first met; found by topic, then partition number (no string per record).
  const order: Queue[] = [];
  const queues = new Map<string, Map<number | undefined, Queue>>();
  for (const t of topics) {
    const ofTopic = byTopic(queues, t.topic, () => new Map<number | undefined, Queue>());
    for (const m of t.messages) {
      let q = ofTopic.get(m.partition);
      if (!q) {
        ofTopic.set(m.partition, (q = { topic: t.topic, messages: [], sizes: [], next: 0 }));
        order.push(q);
      }
      q.messages.push(m);
      q.sizes.push(recordBytes(m));
    }
  }
  let open = order;
  while (open.length > 0) {
    const request = new Map<string, Message[]>();
    let total = 0;
    // The first open partition always sends at least one record, so every request makes progress.
    for (const q of open) {
      let batch = 0;
      while (q.next < q.messages.length) {
        const size = q.sizes[q.next];
        if ((batch > 0 && batch + size > MAX_PARTITION_BATCH_BYTES) || (total > 0 && total + size > MAX_SEND_BYTES)) break;
        let out = request.get(q.topic);
        if (!out) request.set(q.topic, (out = []));
        out.push(q.messages[q.next++]);
        batch += size;
        total += size;
      }
    }
    yield [...request].map(([topic, messages]) => ({ topic, messages }));
    open = open.filter((q) => q.next < q.messages.length);
  }
}
