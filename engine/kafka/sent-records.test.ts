import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RecordMetadata, TopicMessages } from 'kafkajs';
import fc from 'fast-check';
import { chunks, MAX_PARTITION_BATCH_BYTES, recordEnds } from './sent-records.js';

const msg = (partition: number) => ({ key: 'k', value: 'v', partition });
const answer = (topicName: string, partition: number, baseOffset: string): RecordMetadata => ({ topicName, partition, errorCode: 0, baseOffset });

describe('what a transaction sent', () => {
  it('should give each changelog partition the end its records reached', () => {
    const chunk: TopicMessages[] = [{ topic: 'a.changelog', messages: [msg(0), msg(0), msg(1)] }, { topic: 'out', messages: [msg(1)] }];
    const ends = new Map<string, number>();
    recordEnds(chunk, [answer('a.changelog', 0, '10'), answer('a.changelog', 1, '4'), answer('out', 1, '7')], ends);
    assert.deepEqual([...ends], [['a.changelog/0', 12], ['a.changelog/1', 5]]);
  });

  it('should fail when a partition written to did not answer (a partition the producer does not know yet), not commit without its records', () => {
    const chunk: TopicMessages[] = [{ topic: 'scheduled', messages: [msg(1), msg(5)] }];
    assert.throws(() => recordEnds(chunk, [answer('scheduled', 1, '3')], new Map()), /did not send to scheduled\/5/);
  });
});

describe('produce requests of one transaction', () => {
  const big = (partition: number, kb: number) => ({ key: 'host', value: Buffer.alloc(kb * 1024), partition });
  const batches = (chunk: TopicMessages[]) => {
    const by = new Map<string, number[]>();
    for (const t of chunk) for (const m of t.messages) {
      const id = `${t.topic}/${m.partition}`;
      by.set(id, [...(by.get(id) ?? []), (m.value as Buffer).length]);
    }
    return by;
  };

  it('should never put more than a batch bound of one partition in one request (the broker refuses the whole transaction)', () => {
    // 3 MB of URL records to one partition, the way a slow transaction piles them up.
    const topics: TopicMessages[] = [{ topic: 'discovered-urls', messages: Array.from({ length: 48 }, () => big(3, 64)) }];
    const requests = [...chunks(topics)];
    assert.ok(requests.length >= 6, `${requests.length} requests`);
    for (const r of requests) for (const [id, sizes] of batches(r)) {
      const total = sizes.reduce((a, b) => a + b, 0);
      assert.ok(sizes.length === 1 || total <= MAX_PARTITION_BATCH_BYTES, `${id}: ${total} bytes in one batch`);
    }
  });

  it('should let other partitions fill the requests a full partition needs, not add requests of their own', () => {
    const topics: TopicMessages[] = [
      { topic: 'parsed', messages: Array.from({ length: 32 }, () => big(0, 64)) }, // 2 MB: several requests' worth
      { topic: 'parsed', messages: Array.from({ length: 24 }, (_, i) => big(1 + (i % 6), 64)) }, // 256 KB for each of six others
    ];
    const alone = [...chunks([topics[0]])].length;
    assert.ok(alone >= 4);
    assert.equal([...chunks(topics)].length, alone);
  });

  it('should keep every record once, in order within each partition, and send a record above the bound alone', () => {
    fc.assert(fc.property(
      fc.array(fc.record({ topic: fc.constantFrom('a', 'b'), partition: fc.integer({ min: 0, max: 2 }), kb: fc.integer({ min: 0, max: 700 }) }), { maxLength: 40 }),
      (specs) => {
        const byTopic = new Map<string, TopicMessages>();
        specs.forEach((s, i) => {
          const t = byTopic.get(s.topic) ?? { topic: s.topic, messages: [] };
          byTopic.set(s.topic, t);
          t.messages.push({ key: String(i), value: Buffer.alloc(s.kb * 1024), partition: s.partition });
        });
        const topics = [...byTopic.values()];
        const byPartition = (list: TopicMessages[]) => {
          const out = new Map<string, string[]>();
          for (const t of list) for (const m of t.messages) out.set(`${t.topic}/${m.partition}`, [...(out.get(`${t.topic}/${m.partition}`) ?? []), String(m.key)]);
          return out;
        };
        const sent: TopicMessages[] = [];
        for (const r of chunks(topics)) {
          sent.push(...r);
          for (const sizes of batches(r).values()) assert.ok(sizes.length === 1 || sizes.reduce((a, b) => a + b, 0) <= MAX_PARTITION_BATCH_BYTES);
        }
        assert.deepEqual(new Map([...byPartition(sent)].sort()), new Map([...byPartition(topics)].sort()));
      }));
  });
});
