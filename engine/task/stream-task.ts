// One task = one processor instance over one partition of its input topics (co-partitioned by host).
// Runtimes feed it raw records and take commits from it; the task decodes, dispatches, keeps per-key
// order for concurrent processors, and groups everything a commit must make durable together:
// the outputs, the store writes and the input positions that cover them.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { InputRecord, Logger, Processor, ProcessorContext } from '../processor.js';
import type { KeyValueStore } from '../stores/key-value-store.js';
import type { LevelStore, StoreWrite } from '../stores/level-store.js';
import type { CrawlConfig } from '../../crawl/config.js';
import type { ProcessorNode } from '../topology.js';
import { type TopicCodecs, UnknownSchemaIdError } from '../avro/topic-codecs.js';
import type { DeadLetter } from '../../schemas/records.js';
import { InputTracker, type InputPosition } from './input-position.js';
import { TaskMetrics } from './task-metrics.js';

export const DEAD_LETTER_TOPIC = 'dead-letters';

export interface RawRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: string;
  value: Buffer;
}

export interface OutputRecord {
  topic: string;
  key: string;
  value: Buffer;
  timestamp: number;
}

export interface TaskCommit {
  outputs: OutputRecord[];
  stores: { store: LevelStore<unknown, unknown>; writes: StoreWrite[] }[];
  positions: { topic: string; position: InputPosition }[];
  counters: Map<string, number>;
}

export interface TaskOptions {
  node: ProcessorNode;
  partition: number;
  processor: Processor<unknown>;
  stores: LevelStore<unknown, unknown>[];
  positions: Map<string, InputPosition>;
  codecs: TopicCodecs;
  config: CrawlConfig;
  clock: () => number;
  log: Logger;
  /** Whether this task processes the record; the others belong to another partition's task. */
  owns: (record: RawRecord) => boolean;
  /** Persisted counters from earlier runs. */
  counters?: Map<string, number>;
  /** Called whenever the task has something new to commit or can take more input. */
  onActivity: () => void;
}

const SLICE_MS = 8; // yield to the event loop this often so sockets and timers stay responsive

export class StreamTask {
  readonly id: string;
  readonly node: ProcessorNode;
  readonly partition: number;
  readonly metrics: TaskMetrics;
  private readonly processor: Processor<unknown>;
  private readonly trackers = new Map<string, InputTracker>();
  private readonly stores: LevelStore<unknown, unknown>[];
  private readonly storeByName = new Map<string, KeyValueStore<unknown, unknown>>();
  private readonly queue: RawRecord[] = [];
  private queueHead = 0;
  private ready: OutputRecord[] = [];
  private inFlight = 0;
  private busy = false;
  private draining = false;
  private closed = false;
  /** Set by handOver: concurrent records still running are dropped, unfinished, for the next owner. */
  private handingOver = false;
  private readonly keysInFlight = new Map<string, RawRecord[]>();
  private readonly sharedContext: ProcessorContext;
  /** Physical topic → the name the processor knows it by. */
  private readonly logical = new Map<string, string>();

  constructor(private readonly options: TaskOptions) {
    this.node = options.node;
    this.partition = options.partition;
    this.id = `${options.node.name}-${options.partition}`;
    this.processor = options.processor;
    this.stores = options.stores;
    this.metrics = new TaskMetrics(options.counters);
    for (const s of options.stores) this.storeByName.set(s.name, s);
    for (const [logical, physical] of Object.entries(options.node.topicNames ?? {})) this.logical.set(physical, logical);
    for (const topic of options.node.inputs) {
      this.trackers.set(topic, new InputTracker(options.positions.get(topic) ?? { base: 0, done: [] }));
    }
    if (options.node.concurrency && options.stores.length > 0) {
      // Concurrent records would interleave their store writes; positions could then commit state
      // that belongs to a record still in progress.
      throw new Error(`processor ${options.node.name}: concurrent processors cannot own stores`);
    }
    this.sharedContext = this.contextFor(() => this.ready);
  }

  async init(): Promise<void> {
    await this.processor.init?.(this.sharedContext);
  }

  /** Next offset to read for each input topic. */
  nextOffset(topic: string): number {
    return this.trackers.get(topic)!.next;
  }

  committedBase(topic: string): number {
    return this.trackers.get(topic)!.committedBase();
  }

  /** Backpressure: how many more records the runtime may hand over now. */
  capacity(): number {
    const limit = this.node.concurrency ? this.node.concurrency.maxInFlight + 256 : 2048;
    return this.closed ? 0 : Math.max(0, limit - (this.queue.length - this.queueHead) - this.inFlight);
  }

  offer(records: RawRecord[]): void {
    for (const r of records) {
      const tracker = this.trackers.get(r.topic)!;
      if (tracker.alreadyDone(r.offset)) {
        tracker.pass(r.offset);
      } else if (!this.options.owns(r)) {
        // After partitions were added, records of moved hosts were copied to their new owner.
        tracker.pass(r.offset);
        this.metrics.count('skipped.not-owned');
      } else {
        tracker.read(r.offset);
        this.queue.push(r);
      }
    }
    void this.drain();
    this.options.onActivity();
  }

  async punctuate(now: number): Promise<void> {
    if (!this.processor.punctuate || this.closed) return;
    const before = this.ready.length + this.stores.reduce((n, s) => n + s.journalMark(), 0);
    await this.exclusive(async () => {
      await this.processor.punctuate!(now, this.sharedContext);
    });
    // Timers fire often and mostly find nothing due: only a punctuation that did something asks for a commit.
    if (this.ready.length + this.stores.reduce((n, s) => n + s.journalMark(), 0) !== before) this.options.onActivity();
  }

  /** True when nothing is queued or running and the processor holds no deferred work. */
  isIdle(): boolean {
    return this.queue.length === this.queueHead && this.inFlight === 0 && !this.busy && this.ready.length === 0 &&
      !(this.processor.hasPendingWork?.() ?? false);
  }

  /** Nothing queued, running or waiting to be committed (deferred processor work aside). */
  isQuiescent(): boolean {
    return this.queue.length === this.queueHead && this.inFlight === 0 && !this.busy;
  }

  /** Every record read has been finished and its position committed. */
  isFullyCommitted(): boolean {
    for (const t of this.trackers.values()) if (t.committedBase() < t.next) return false;
    return this.ready.length === 0;
  }

  hasPendingWork(): boolean {
    return this.processor.hasPendingWork?.() ?? false;
  }

  inFlightCount(): number {
    return this.inFlight + (this.queue.length - this.queueHead);
  }

  /** Collects what the next commit must make durable; undefined when there is nothing. */
  takeCommit(): TaskCommit | undefined {
    if (this.busy) return undefined; // a sequential record is mid-way: its writes are not complete
    const positions: TaskCommit['positions'] = [];
    for (const [topic, tracker] of this.trackers) {
      const position = tracker.position();
      if (position) positions.push({ topic, position });
    }
    const stores: TaskCommit['stores'] = [];
    for (const store of this.stores) {
      const writes = store.takeWrites();
      if (writes.length) stores.push({ store, writes });
    }
    const counters = this.metrics.takeDirty();
    if (positions.length === 0 && stores.length === 0 && this.ready.length === 0 && counters.size === 0) return undefined;
    const outputs = this.ready;
    this.ready = [];
    return { outputs, stores, positions, counters };
  }

  /** The runtime made the commit durable. */
  committed(commit: TaskCommit): void {
    for (const { topic, position } of commit.positions) this.trackers.get(topic)!.markCommitted(position);
    for (const { store } of commit.stores) store.writesCommitted();
  }

  /** Stops at once: records in progress are abandoned and nothing more will be committed. */
  async abandon(): Promise<void> {
    this.closed = true;
    this.processor.abandon?.();
    for (const s of this.stores) s.discardPending();
    const deadline = Date.now() + 5_000;
    while ((this.inFlight > 0 || this.busy) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await this.processor.close?.();
  }

  /**
   * Leaves the partition to another owner, keeping what is finished: no new record starts, records in
   * flight are told to stop (a fetch closes its connection) and left unfinished, so the next commit
   * holds every finished record's outputs and positions stop below the first unfinished one. Without
   * this a move would make the new owner redo — and refetch — everything since the last commit.
   */
  async handOver(): Promise<void> {
    this.closed = true;
    this.handingOver = true;
    this.processor.abandon?.();
    // Bounded: a processor whose abandoned records never settle (a sink waiting on its aborted
    // writer) must not hold the move up; those records stay unfinished either way.
    const deadline = Date.now() + 5_000;
    while (this.busy && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await this.processor.close?.();
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.inFlight > 0 || this.busy) await new Promise((r) => setTimeout(r, 10));
    await this.processor.close?.();
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      if (this.node.concurrency) this.dispatchConcurrent();
      else await this.drainSequential();
    } finally {
      this.draining = false;
    }
  }

  private async drainSequential(): Promise<void> {
    while (this.queueHead < this.queue.length && !this.closed) {
      const deadline = performance.now() + SLICE_MS;
      await this.exclusive(async () => {
        while (this.queueHead < this.queue.length && performance.now() < deadline) {
          const record = this.queue[this.queueHead++];
          await this.handle(record, this.sharedContext);
        }
      });
      this.compactQueue();
      this.options.onActivity();
      if (this.queueHead < this.queue.length) await yieldToLoop();
    }
  }

  private dispatchConcurrent(): void {
    const { maxInFlight, perKeyOrder } = this.node.concurrency!;
    while (this.queueHead < this.queue.length && this.inFlight < maxInFlight && !this.closed) {
      const record = this.queue[this.queueHead++];
      if (perKeyOrder) {
        const waiting = this.keysInFlight.get(record.key);
        if (waiting) {
          waiting.push(record);
          continue;
        }
        this.keysInFlight.set(record.key, []);
      }
      this.runConcurrent(record);
    }
    this.compactQueue();
  }

  private runConcurrent(record: RawRecord): void {
    this.inFlight++;
    const outputs: OutputRecord[] = [];
    const ctx = this.contextFor(() => outputs);
    void this.handle(record, ctx, outputs).finally(() => {
      this.inFlight--;
      if (!this.handingOver) for (const o of outputs) this.ready.push(o);
      if (this.node.concurrency!.perKeyOrder) {
        const waiting = this.keysInFlight.get(record.key)!;
        const next = waiting.shift();
        if (next) this.runConcurrent(next);
        else this.keysInFlight.delete(record.key);
      }
      this.dispatchConcurrent();
      this.options.onActivity();
    });
  }

  /** Decodes and processes one record; failures go to the dead-letter topic with their reason. */
  private async handle(record: RawRecord, ctx: ProcessorContext, outputs?: OutputRecord[]): Promise<void> {
    const tracker = this.trackers.get(record.topic)!;
    const sink = outputs ?? this.ready;
    const mark = sink.length;
    const journal = this.stores.map((s) => s.journalMark());
    let value: unknown;
    try {
      value = await this.decode(record);
    } catch (err) {
      this.deadLetter(record, `undecodable: ${(err as Error).message}`, sink);
      tracker.finish(record.offset);
      return;
    }
    try {
      const input: InputRecord<unknown> = { ...record, topic: this.logical.get(record.topic) ?? record.topic, value };
      const result = this.processor.process(input, ctx);
      if (result) await result;
    } catch (err) {
      // Undo what the failed record did, so that the commit holds either all of a record or none.
      sink.length = mark;
      this.stores.forEach((s, i) => s.rollbackTo(journal[i]));
      // A record interrupted by a hand-over did not fail: its next owner processes it again.
      if (outputs && this.handingOver) return;
      this.deadLetter(record, `processor failed: ${(err as Error).stack ?? err}`, sink);
    }
    // Concurrent records still running when the task was handed over stay unfinished.
    if (outputs && this.handingOver) return;
    tracker.finish(record.offset);
  }

  private async decode(record: RawRecord): Promise<unknown> {
    try {
      return this.options.codecs.decode(record.topic, record.value);
    } catch (err) {
      if (!(err instanceof UnknownSchemaIdError)) throw err;
      await this.options.codecs.loadSchemaId(err.schemaId);
      return this.options.codecs.decode(record.topic, record.value);
    }
  }

  private deadLetter(record: RawRecord, reason: string, sink: OutputRecord[]): void {
    this.metrics.count('dead-letters');
    this.options.log.warn(`${this.id}: ${record.topic}/${record.partition}@${record.offset} sent to ${DEAD_LETTER_TOPIC}: ${reason.split('\n')[0]}`);
    const letter: DeadLetter = {
      topic: record.topic, partition: record.partition, offset: record.offset, key: record.key,
      processor: this.node.name, reason: reason.slice(0, 4000), value: record.value, failed_at: this.options.clock(),
    };
    const topic = this.physical(DEAD_LETTER_TOPIC);
    sink.push({ topic, key: record.key, value: this.options.codecs.encode(topic, letter), timestamp: letter.failed_at });
  }

  private contextFor(outputs: () => OutputRecord[]): ProcessorContext {
    const task = this;
    return {
      processorName: this.node.name,
      partition: this.partition,
      config: this.options.config,
      metrics: this.metrics,
      log: this.options.log,
      now: this.options.clock,
      forward: this.forwarder(outputs),
      store<K, V>(name: string): KeyValueStore<K, V> {
        const store = task.storeByName.get(name);
        if (!store) throw new Error(`processor ${task.node.name} has no store named ${name}`);
        return store as KeyValueStore<K, V>;
      },
    };
  }

  private forwarder(outputs: () => OutputRecord[]): ProcessorContext['forward'] {
    const outputsAllowed = new Set(this.node.outputs);
    return (logicalTopic, key, value) => {
      const topic = this.physical(logicalTopic);
      if (!outputsAllowed.has(topic)) throw new Error(`processor ${this.node.name} forwarded to ${logicalTopic}, which is not among its declared outputs`);
      outputs().push({ topic, key, value: this.options.codecs.encode(topic, value), timestamp: this.options.clock() });
    };
  }

  /** Processors name topics logically; a replay runs them over renamed (private) topics. */
  private physical(logical: string): string {
    return this.node.topicNames?.[logical] ?? logical;
  }

  private async exclusive(fn: () => Promise<void>): Promise<void> {
    while (this.busy) await new Promise((r) => setImmediate(r));
    this.busy = true;
    try {
      await fn();
    } finally {
      this.busy = false;
    }
  }

  private compactQueue(): void {
    if (this.queueHead > 4096 && this.queueHead * 2 > this.queue.length) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    } else if (this.queueHead === this.queue.length) {
      this.queue.length = 0;
      this.queueHead = 0;
    }
  }
}
