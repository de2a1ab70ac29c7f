import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RecordMetadata, TopicMessages } from 'kafkajs';
import { recordEnds } from './sent-records.js';

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
