// How a task handles one record: decode, process, and on failure undo what the record did and send
// it to the dead-letter topic with its reason. Synchronous processors cost no promise per record.
import type { InputRecord, Logger, Processor, ProcessorContext } from '../api.js';
import { type TopicCodecs, UnknownSchemaIdError } from '../avro/topic-codecs.js';
import { DEAD_LETTERS, deadLetterFor } from '../dead-letters.js';
import type { LevelStore } from '../stores/level-store.js';
import type { ProcessorNode } from '../topology.js';
import type { TaskMetrics } from './task-metrics.js';
import type { OutputRecord, RawRecord } from './task-records.js';

type AnyProcessor = Processor<Record<string, unknown>, Record<string, unknown>>;
type Context = ProcessorContext<Record<string, unknown>>;

export interface RecordHandlerParts {
  id: string;
  node: Pick<ProcessorNode<unknown>, 'name' | 'physical'>;
  processor: AnyProcessor;
  codecs: TopicCodecs;
  stores: readonly LevelStore<unknown, unknown>[];
  metrics: TaskMetrics;
  log: Logger;
  clock: () => number;
  /** Physical input topic → the name the processor declared. */
  declared: ReadonlyMap<string, string>;
  /** True while the task hands its partition over or is abandoned: concurrent records then stay unfinished. */
  handingOver(): boolean;
  /** The record is done (processed or dead-lettered): its offset may be committed. */
  finish(record: RawRecord): void;
}

const NO_MARKS: number[] = [];

export class RecordHandler {
  constructor(private readonly p: RecordHandlerParts) {}

  /**
   * Processes `record`, its outputs going to `sink`. Returns a promise only when the processor (or
   * loading an unknown schema) does. `concurrent`: the record runs beside others, so a hand-over
   * interrupting it leaves it unfinished for the next owner.
   */
  handle(record: RawRecord, ctx: Context, sink: OutputRecord[], concurrent: boolean, schemaLoaded = false): void | Promise<void> {
    const { p } = this;
    let value: unknown;
    try {
      value = p.codecs.decode(record.topic, record.value);
    } catch (err) {
      if (err instanceof UnknownSchemaIdError && !schemaLoaded) {
        return p.codecs.loadSchemaId(err.schemaId).then(
          () => this.handle(record, ctx, sink, concurrent, true),
          (loadErr: Error) => this.undecodable(record, loadErr, sink),
        );
      }
      return this.undecodable(record, err as Error, sink);
    }
    const mark = sink.length;
    const journal = p.stores.length === 0 ? NO_MARKS : p.stores.map((s) => s.journalMark());
    const input: InputRecord = {
      topic: p.declared.get(record.topic) ?? record.topic, partition: record.partition, offset: record.offset,
      timestamp: record.timestamp, key: record.key, value,
    };
    const failed = (err: unknown) => {
      // Undo what the failed record did, so that a commit holds either all of a record or none.
      sink.length = mark;
      p.stores.forEach((s, i) => s.rollbackTo(journal[i]));
      // A record interrupted by a hand-over did not fail: its next owner processes it again.
      if (concurrent && p.handingOver()) return;
      this.deadLetter(record, `processor failed: ${(err as Error)?.stack ?? err}`, sink);
      p.finish(record);
    };
    let result: void | Promise<void>;
    try {
      result = p.processor.process(input as never, ctx);
    } catch (err) {
      return failed(err);
    }
    if (result) return result.then(() => this.finished(record, concurrent), failed);
    this.finished(record, concurrent);
  }

  private finished(record: RawRecord, concurrent: boolean): void {
    // Concurrent records still running when the task was handed over stay unfinished.
    if (concurrent && this.p.handingOver()) return;
    this.p.finish(record);
  }

  private undecodable(record: RawRecord, err: Error, sink: OutputRecord[]): void {
    this.deadLetter(record, `undecodable: ${err.message}`, sink);
    this.p.finish(record);
  }

  private deadLetter(record: RawRecord, reason: string, sink: OutputRecord[]): void {
    const { p } = this;
    p.metrics.count('dead-letters');
    p.log.warn(`${p.id}: ${record.topic}/${record.partition}@${record.offset} sent to ${DEAD_LETTERS}: ${reason.split('\n')[0]}`);
    const letter = deadLetterFor(record, p.node.name, reason, p.clock());
    const topic = p.node.physical.get(DEAD_LETTERS)!;
    sink.push({ topic, key: record.key, value: p.codecs.encode(topic, letter), timestamp: letter.failed_at });
  }
}
