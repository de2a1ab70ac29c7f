// The engine's public API: everything an application (the crawler, a user's module, a test topology)
// needs to declare topics, stores and processors and wire them into a topology. The runtimes
// (embedded log, Kafka, test driver) take a Topology and services and know nothing else of the
// application; processors never learn which runtime drives them.
//
//   const words = defineTopic<Word>()({ name: 'words', schema: {...}, key: 'the word', ... });
//   const counter = defineProcessor({ name: 'count', inputs: [words], outputs: [counts], stores: [totals],
//     create: (services: { config: MyConfig }) => new Count(services.config), ... });
//   const topology = new TopologyBuilder<MyServices>().topic(words).topic(counts).processor(counter).build();
import type avro from 'avsc';
import type { KeyValueStore, StoreSpec } from './stores/key-value-store.js';

export type { KeyValueStore, StoreSpec, KeyCodec, ValueCodec } from './stores/key-value-store.js';
export { defineStore, storedName } from './stores/key-value-store.js';
export { stringKey, avroValues, avroBytes, jsonValues, emptyValue } from './stores/codecs.js';
export { TopologyBuilder, describeTopology, isSink, type Topology, type ProcessorNode } from './topology.js';
export {
  topologyDescription, renderDescription, renderProcessorTable,
  type TopologyDescription, type ProcessorDescription, type TopicDescription, type StoreDescription,
} from './topology-description.js';
export { defineTopic, type TopicSpec, type AnyTopic, type TopicValues } from './topic.js';
import type { AnyTopic, TopicValues } from './topic.js';

// --------------------------------------------------------------------------------------- records

export interface InputRecord<N extends string = string, V = unknown> {
  /** The topic's declared name (a replay may read it under another physical name). */
  readonly topic: N;
  readonly partition: number;
  readonly offset: number;
  /** Producer time, epoch milliseconds. */
  readonly timestamp: number;
  readonly key: string;
  readonly value: V;
}

/** What `process` receives: a union discriminated by `topic` when a processor has several inputs. */
export type RecordOf<In> = { [N in keyof In & string]: InputRecord<N, In[N]> }[keyof In & string];

// ------------------------------------------------------------------------------------ processors

export interface Metrics {
  /** Monotonic counter, e.g. count('rejected.too-long'). Committed with the task, so totals survive restarts. */
  count(name: string, by?: number): void;
  /** Last-value gauge, e.g. gauge('frontier', 1234). Not persisted. */
  gauge(name: string, value: number): void;
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

export interface ProcessorContext<Out> {
  /** The processor's name, for logs and messages. */
  readonly processorName: string;
  /**
   * The name the processor is persisted under (its pinned `storedAs`, else its name): key anything
   * kept outside the engine (a sink's positions in a database) by it and `logId`, so that renaming
   * the processor in code does not orphan what it wrote.
   */
  readonly storedName: string;
  /** Partition of the task this processor instance belongs to. */
  readonly partition: number;
  /**
   * Identity of the log this task reads: created with the embedded data directory or with the
   * Kafka topics, and new whenever they are recreated. Positions kept outside the engine (a sink's
   * offsets in a database) must be keyed by it, or a new log would be mistaken for an old one.
   */
  readonly logId: string;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** Runtime clock in epoch milliseconds (a manual clock under the test driver). */
  now(): number;
  /**
   * Emits a record to one of the processor's declared outputs. It becomes visible downstream
   * atomically with this record's store writes and the input position that covers it.
   */
  forward<N extends keyof Out & string>(topic: N, key: string, value: Out[N]): void;
  /** One of the processor's declared stores. Reads are synchronous; writes commit with the task. */
  store<K, V>(spec: StoreSpec<K, V>): KeyValueStore<K, V>;
}

export interface Processor<In, Out> {
  /** Once per task before any record, after its stores are restored. */
  init?(ctx: ProcessorContext<Out>): void | Promise<void>;
  /**
   * One record. Sequential processors see records one at a time in offset order. Concurrent ones
   * (ProcessorDefinition.concurrency) may have many pending; each call gets its own context so that
   * what it forwards is committed with exactly that record.
   */
  process(record: RecordOf<In>, ctx: ProcessorContext<Out>): void | Promise<void>;
  /**
   * `process` threw (or its promise rejected). The engine has already undone the record's store
   * writes and dropped what it forwarded; the record goes to dead-letters. The engine does NOT undo
   * in-memory state: a processor that keeps any (copies of store entries, counts over them, caches,
   * timers) puts it back here, by reloading it from its stores, which now hold what they held before
   * the record. A processor without this hook must keep nothing in memory that a record can change
   * other than through its stores. What is written or forwarded here commits with the dead letter
   * (e.g. "count this report as received"); if this throws too, that is undone and the dead letter says so.
   */
  recordFailed?(record: RecordOf<In>, ctx: ProcessorContext<Out>): void | Promise<void>;
  /** Every `punctuateEveryMs` of runtime clock: timers. */
  punctuate?(now: number, ctx: ProcessorContext<Out>): void | Promise<void>;
  /** True while the processor holds work that no input record will trigger (timers, queues). */
  hasPendingWork?(): boolean;
  /**
   * The task is moving to another owner: start nothing new (give back what has not begun, as outputs),
   * let what is under way end. The runtime commits what ends within its bound, then calls abandon.
   */
  handingOver?(): void;
  /** The task is leaving: stop work in progress at once (abort requests in flight); none of it commits. */
  abandon?(): void;
  close?(): void | Promise<void>;
}

export interface ProcessorDefinition<Ins extends readonly AnyTopic[], Outs extends readonly AnyTopic[], S> {
  /** What the code, the docs, `describe` and `--processors` call it. */
  readonly name: string;
  /**
   * The name its identity is persisted under, when it differs from `name`: consumer groups, changelog
   * topics, task ids (status and owners topics), input positions and counters in a data directory,
   * metrics labels, dead letters. A processor renamed after crawls began keeps its old name here, so
   * existing data directories and clusters go on as before with no migration. Change it only together
   * with a migration. `--processors` accepts either name.
   */
  readonly storedAs?: string;
  readonly description: string;
  /**
   * 'sink': the processor ends the dataflow (writes to a database or files, forwards nothing) and
   * declares no outputs; a stop lets sinks read to the end of what the others committed. Absent:
   * 'transform', which must declare at least one output. The topology refuses either mismatch.
   */
  readonly kind?: ProcessorKind;
  readonly inputs: Ins;
  readonly outputs: Outs;
  readonly stores: readonly StoreSpec<any, any>[];
  /**
   * Sequential processors handle one record at a time. Concurrent ones may have up to `maxInFlight`
   * records pending; with `perKeyOrder`, records of one key run one after another. Positions commit
   * only below the oldest record still in progress. Concurrent processors own no stores.
   */
  readonly concurrency?: { maxInFlight: number; perKeyOrder: boolean };
  readonly punctuateEveryMs?: number;
  /**
   * Fields of an input topic the processor never reads: they are skipped, not decoded, and absent
   * from its records. For large fields a stage has no use for (a fetch's headers, a page's text and
   * links): decoding them only to drop them costs the event loop and the garbage collector.
   */
  readonly skips?: { readonly [T in Ins[number] as T['name']]?: readonly (keyof TopicValues<[T]>[T['name']] & string)[] };
  /**
   * String fields of an input topic the processor receives as their UTF-8 bytes (a Buffer in place of
   * the string): for a sink that copies a large text out unchanged, decoding it into a JavaScript
   * string only to encode it again costs the event loop and the garbage collector. The bytes are
   * what the record holds, not checked as UTF-8.
   */
  readonly asBytes?: { readonly [T in Ins[number] as T['name']]?: readonly (keyof TopicValues<[T]>[T['name']] & string)[] };
  /** What can happen to a record on a crash, in plain words (shown by `describe`). */
  readonly delivery: string;
  /** One instance per task, from the services the application gives the runtime. */
  readonly create: (services: S) => Processor<TopicValues<Ins>, TopicValues<Outs>>;
}

export type ProcessorKind = 'transform' | 'sink';

export type AnyProcessorDefinition<S = any> = ProcessorDefinition<readonly AnyTopic[], readonly AnyTopic[], S>;

export function defineProcessor<const Ins extends readonly AnyTopic[], const Outs extends readonly AnyTopic[], S = object>(
  def: ProcessorDefinition<Ins, Outs, S>,
): ProcessorDefinition<Ins, Outs, S> {
  return def;
}

/** A runtime's switch for processors that honour pausing (e.g. a scheduler stops releasing work). */
export interface RuntimeControl {
  paused: boolean;
}
