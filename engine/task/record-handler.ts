// How a task handles one record: decode, process, and on failure undo what the record did. What the
// record leaves behind when it ends (its position, its outputs, a dead letter) is the task's decision
// (StreamTask.recordEnded), told here with the failure's reason if any. Synchronous processors cost
// no promise per record.
import type { InputRecord, Logger, Processor, ProcessorContext } from '../api.js';
import { type Projection, RecordTooLargeError, type TopicCodecs, UnknownSchemaIdError } from '../avro/topic-codecs.js';
import { DEAD_LETTERS, deadLetterFor } from '../dead-letters.js';
import type { LevelStore } from '../stores/level-store.js';
import type { ProcessorNode } from '../topology.js';
import type { TaskMetrics } from './task-metrics.js';
import type { OutputRecord, RawRecord } from './task-records.js';

type AnyProcessor = Processor<Record<string, unknown>, Record<string, unknown>>;
type Context = ProcessorContext<Record<string, unknown>>;

export interface RecordHandlerParts {
  id: string;
  node: Pick<ProcessorNode<unknown>, 'name' | 'storedName' | 'physical'>;
  processor: AnyProcessor;
  codecs: TopicCodecs;
  stores: readonly LevelStore<unknown, unknown>[];
  metrics: TaskMetrics;
  logger: Logger;
  clock: () => number;
  /** Physical input topic → the name the processor declared. */
  declared: ReadonlyMap<string, string>;
  /** Physical input topic → the fields the processor never reads (not decoded) or reads as bytes. */
  projections?: ReadonlyMap<string, Projection>;
  /** The record ended: processed (`failure` undefined), or failed and undone, with the reason. */
  ended(record: RawRecord, failure: string | undefined, sink: OutputRecord[]): void;
}

const NO_MARKS: number[] = [];

export class RecordHandler {
  constructor(private readonly p: RecordHandlerParts) {}

  /**
   * Processes `record`, its outputs going to `sink`. Returns a promise only when the processor (or
   * loading an unknown schema) does.
   */
  handle(record: RawRecord, ctx: Context, sink: OutputRecord[], schemaLoaded = false): void | Promise<void> {
    const { p } = this;
    let value: unknown;
    try {
      value = p.codecs.decode(record.topic, record.value, p.projections?.get(record.topic));
    } catch (err) {
      if (err instanceof UnknownSchemaIdError && !schemaLoaded) {
        return p.codecs.loadSchemaId(err.schemaId).then(
          () => this.handle(record, ctx, sink, true),
          (loadErr: Error) => p.ended(record, `undecodable: ${loadErr.message}`, sink),
        );
      }
      return p.ended(record, `undecodable: ${(err as Error).message}`, sink);
    }
    const mark = sink.length;
    const journal = p.stores.length === 0 ? NO_MARKS : p.stores.map((s) => s.journalMark());
    const input: InputRecord = {
      topic: p.declared.get(record.topic) ?? record.topic, partition: record.partition, offset: record.offset,
      timestamp: record.timestamp, key: record.key, value,
    };
    // Only a processor that can recover needs the decoded record again. Any other's must not be
    // reachable from `failed`, which an asynchronous processor (the sink) keeps for as long as the
    // record is in flight: up to seconds, long enough for V8 to promote the whole record.
    const again = p.processor.recordFailed ? input : undefined;
    const failed = (err: unknown): void | Promise<void> => {
      // Undo what the failed record did, so that a commit holds either all of a record or none.
      sink.length = mark;
      p.stores.forEach((s, i) => s.rollbackTo(journal[i]));
      const reason = `processor failed: ${(err as Error)?.stack ?? err}`;
      if (!again) return p.ended(record, reason, sink);
      return this.recover(record, again, ctx, sink, reason);
    };
    let result: void | Promise<void>;
    try {
      result = p.processor.process(input as never, ctx);
    } catch (err) {
      return failed(err);
    }
    if (result) return result.then(() => p.ended(record, undefined, sink), failed);
    p.ended(record, undefined, sink);
  }

  /**
   * The processor puts back the in-memory state the failed record changed (its stores are already
   * rolled back). What it writes and forwards here commits with the dead letter; if it fails too, that
   * is undone as well and the dead letter says so.
   */
  private recover(record: RawRecord, input: InputRecord, ctx: Context, sink: OutputRecord[], reason: string): void | Promise<void> {
    const { p } = this;
    const mark = sink.length;
    const journal = p.stores.length === 0 ? NO_MARKS : p.stores.map((s) => s.journalMark());
    const undo = (err: unknown) => {
      sink.length = mark;
      p.stores.forEach((s, i) => s.rollbackTo(journal[i]));
      p.ended(record, `${reason}\nrecordFailed failed as well, so in-memory state may not match the stores: ${(err as Error)?.stack ?? err}`, sink);
    };
    let result: void | Promise<void>;
    try {
      result = p.processor.recordFailed!(input as never, ctx);
    } catch (err) {
      return undo(err);
    }
    if (result) return result.then(() => p.ended(record, reason, sink), undo);
    p.ended(record, reason, sink);
  }

  /** Adds the dead letter of a record that failed for `reason` to `sink`. */
  deadLetter(record: RawRecord, reason: string, sink: OutputRecord[]): void {
    const { p } = this;
    p.metrics.count('dead-letters');
    p.logger.warn(`${p.id}: ${record.topic}/${record.partition}@${record.offset} sent to ${DEAD_LETTERS}: ${reason.split('\n')[0]}`);
    const letter = deadLetterFor(record, p.node.storedName, reason, p.clock());
    const topic = p.node.physical.get(DEAD_LETTERS)!;
    let value: Buffer;
    try {
      value = p.codecs.encode(topic, letter);
    } catch (err) {
      if (!(err instanceof RecordTooLargeError)) throw err;
      // An input near its own bound, plus the reason, can pass the dead letters' bound: the letter then
      // says so and where the record is (kept there for as long as its topic's retention keeps it).
      const note = `\n(its value, ${record.value.length} bytes, is not kept here: too large for ${DEAD_LETTERS}; read it at ${record.topic}/${record.partition}@${record.offset} while its topic keeps it)`;
      value = p.codecs.encode(topic, { ...letter, reason: letter.reason.slice(0, 4000 - note.length) + note, value: Buffer.alloc(0) });
    }
    sink.push({ topic, key: record.key, value, timestamp: letter.failed_at });
  }
}

/** A processor's `skips` and `asBytes` by physical input topic, for RecordHandlerParts.projections. */
export function projectionsOf(node: Pick<ProcessorNode<any>, 'definition' | 'physical'>): ReadonlyMap<string, Projection> | undefined {
  const skips = (node.definition.skips ?? {}) as Readonly<Record<string, readonly string[]>>;
  const asBytes = (node.definition.asBytes ?? {}) as Readonly<Record<string, readonly string[]>>;
  const topics = new Set([...Object.keys(skips), ...Object.keys(asBytes)]);
  if (topics.size === 0) return undefined;
  return new Map([...topics].map((topic) => [node.physical.get(topic) ?? topic, { skip: skips[topic] ?? [], asBytes: asBytes[topic] ?? [] }]));
}
