// The dead-letter topic every topology has: a record a task could not decode or process goes there
// with its reason and its original bytes, instead of stopping the task or vanishing.
import type avro from 'avsc';
import { defineTopic } from './topic.js';

export interface DeadLetter {
  topic: string;
  partition: number;
  offset: number;
  key: string;
  processor: string;
  reason: string;
  value: Buffer;
  failed_at: number;
}

// The namespace stays `crawlstream`: registries already hold this subject under that name.
const schema: avro.Schema = {
  type: 'record', name: 'DeadLetter', namespace: 'crawlstream',
  doc: 'A record a task could not decode or process, kept with the reason (topic dead-letters).',
  fields: [
    { name: 'topic', type: 'string' },
    { name: 'partition', type: 'int' },
    { name: 'offset', type: 'long' },
    { name: 'key', type: 'string' },
    { name: 'processor', type: 'string' },
    { name: 'reason', type: 'string' },
    { name: 'value', type: 'bytes' },
    { name: 'failed_at', type: 'long' },
  ],
} as avro.Schema;

export const DEAD_LETTERS = 'dead-letters';

export const deadLettersTopic = defineTopic<DeadLetter>()({
  name: DEAD_LETTERS, schema, key: 'the failed record\'s key', retention: { ms: 7 * 24 * 3_600_000 }, maxRecordBytes: 16 * 1024 * 1024,
  description: 'records a task could not decode or process, with the reason and the original bytes',
});

/** The letter for a record `processor` could not handle, with the reason bounded (a stack can be long). */
export function deadLetterFor(record: Omit<DeadLetter, 'processor' | 'reason' | 'failed_at'>, processor: string, reason: string, failedAt: number): DeadLetter {
  return {
    topic: record.topic, partition: record.partition, offset: record.offset, key: record.key,
    processor, reason: reason.slice(0, 4000), value: record.value, failed_at: failedAt,
  };
}
