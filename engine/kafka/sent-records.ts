// What one transaction hands the producer, in produce requests of bounded size, and what the broker
// answered: where each changelog partition ends, and whether every partition written to answered.
import type { Message, RecordMetadata, TopicMessages } from 'kafkajs';

/** Keep each produce request well under the broker's limits; bodies can be megabytes. */
const MAX_SEND_BYTES = 8 * 1024 * 1024;

/** Changelog partitions' end offsets after a produce: base offset plus the records sent there. */
export function recordEnds(chunk: TopicMessages[], results: RecordMetadata[], ends: Map<string, number>): void {
  // kafkajs skips, without a word, messages for a partition its metadata does not know yet (a topic
  // grown by scale): the transaction would commit without them. Every partition written to must
  // have answered, or the transaction fails and its work is redone.
  const answered = new Set(results.map((r) => `${r.topicName}/${r.partition}`));
  for (const t of chunk) {
    for (const m of t.messages) {
      if (!answered.has(`${t.topic}/${m.partition}`)) throw new Error(`the producer did not send to ${t.topic}/${m.partition} (no metadata for that partition yet)`);
    }
  }
  const sent = new Map<string, number>();
  for (const t of chunk) {
    if (!t.topic.endsWith('.changelog')) continue;
    for (const m of t.messages) {
      const id = `${t.topic}/${m.partition}`;
      sent.set(id, (sent.get(id) ?? 0) + 1);
    }
  }
  for (const r of results) {
    const id = `${r.topicName}/${r.partition}`;
    const n = sent.get(id);
    if (n === undefined) continue;
    ends.set(id, Math.max(ends.get(id) ?? 0, Number(r.baseOffset ?? '0') + n));
  }
}

export function* chunks(topics: TopicMessages[]): Generator<TopicMessages[]> {
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
