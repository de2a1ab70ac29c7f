// The public processor API: the only part of the engine that processor code sees.
// Processors never learn which runtime (embedded log, Kafka, test driver) drives them.
import type { KeyValueStore } from './stores/key-value-store.js';
import type { CrawlConfig } from '../crawl/config.js';

export interface InputRecord<V> {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** Producer time, epoch milliseconds. */
  readonly timestamp: number;
  /** The routing key: a host, or a band for the near-duplicate repartition. */
  readonly key: string;
  readonly value: V;
}

export interface Metrics {
  /** Monotonic counter, e.g. count('rejected.too-long'). Survives restarts through the task's stats store. */
  count(name: string, by?: number): void;
  /** Last-value gauge, e.g. gauge('frontier', 1234). Not persisted. */
  gauge(name: string, value: number): void;
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

export interface ProcessorContext {
  readonly processorName: string;
  /** Partition of the task this processor instance belongs to. */
  readonly partition: number;
  readonly config: CrawlConfig;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Runtime clock in epoch milliseconds (a manual clock under the test driver). */
  now(): number;
  /**
   * Emit a record. It becomes visible downstream atomically with this record's store writes
   * and the input position that covers it; until then nothing downstream can see it.
   */
  forward(topic: string, key: string, value: unknown): void;
  store<K, V>(name: string): KeyValueStore<K, V>;
}

export interface Processor<V = unknown> {
  /** Called once per task before any record, after the task's stores are restored. */
  init?(ctx: ProcessorContext): void | Promise<void>;
  /**
   * Handle one record. Sequential processors see records one at a time in offset order.
   * Concurrent processors (see ProcessorSpec.concurrency) may have many calls pending; each call
   * gets its own context so that what it forwards is committed with exactly that record.
   */
  process(record: InputRecord<V>, ctx: ProcessorContext): void | Promise<void>;
  /** Called by the runtime every `punctuateEveryMs` of runtime clock; used for timers. */
  punctuate?(now: number, ctx: ProcessorContext): void | Promise<void>;
  /** True while the processor holds work that no input record will trigger (timers, queues). */
  hasPendingWork?(): boolean;
  /**
   * The task moved to another worker: stop work in progress at once (e.g. abort requests in
   * flight). Nothing of it will be committed; the new owner redoes it.
   */
  abandon?(): void;
  close?(): void | Promise<void>;
}
