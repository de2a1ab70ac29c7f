// One task = one processor instance over one partition of its input topics (co-partitioned by key).
// Runtimes feed it raw records and take commits from it; the task decodes, dispatches, keeps per-key
// order for concurrent processors, and groups what a commit must make durable together: the outputs,
// the store writes and the input positions that cover them.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { InputRecord, Logger, Processor, ProcessorContext } from '../api.js';
import type { KeyValueStore, StoreSpec } from '../stores/key-value-store.js';
import type { LevelStore, StoreWrite } from '../stores/level-store.js';
import type { ProcessorNode } from '../topology.js';
import { type TopicCodecs, UnknownSchemaIdError } from '../avro/topic-codecs.js';
import { DEAD_LETTERS, type DeadLetter } from '../dead-letters.js';
import { InputTracker, type InputPosition } from './input-position.js';
import { TaskLifecycle } from './task-lifecycle.js';
import { TaskMetrics } from './task-metrics.js';
import { Turns } from './turns.js';
import { commitReport, type CommitReport } from './commit-report.js';

export type { CommitReport } from './commit-report.js';

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

export interface TaskOptions<S> {
  node: ProcessorNode<S>;
  partition: number;
  services: S;
  stores: LevelStore<unknown, unknown>[];
  codecs: TopicCodecs;
  logId: string;
  clock: () => number;
  log: Logger;
  /** Whether this task processes the record; the others belong to another partition's task. */
  owns: (record: RawRecord) => boolean;
  /** Called whenever the task has something new to commit or can take more input. */
  onActivity: () => void;
  /** Called after each commit the runtime made durable. Must return at once and not throw. */
  onCommitted?: (report: CommitReport) => void;
}

type AnyProcessor = Processor<Record<string, unknown>, Record<string, unknown>>;
type Context = ProcessorContext<Record<string, unknown>>;

const SLICE_MS = 8; // yield to the event loop this often so sockets and timers stay responsive
/** How long a leaving task waits for records that were told to stop; past it they stay unfinished. */
const STOP_GRACE_MS = 5_000;

export class StreamTask<S = unknown> {
  readonly id: string;
  readonly node: ProcessorNode<S>;
  readonly partition: number;
  readonly metrics = new TaskMetrics();
  readonly lifecycle: TaskLifecycle;
  private readonly processor: AnyProcessor;
  private readonly trackers = new Map<string, InputTracker>();
  private readonly storeByName = new Map<string, LevelStore<unknown, unknown>>();
  private readonly queue: RawRecord[] = [];
  private queueHead = 0;
  private ready: OutputRecord[] = [];
  private inFlight = 0;
  /** Sequential records and punctuations take turns; a commit is never taken mid-turn. */
  private readonly turns = new Turns();
  private draining = false;
  private readonly keysInFlight = new Map<string, RawRecord[]>();
  private readonly sharedContext: Context;
  /** Physical topic → the name the processor declared. */
  private readonly declared = new Map<string, string>();
  private settledWaiters: (() => void)[] = [];
  /** Counter totals as last committed, to report how much a commit added. */
  private readonly committedTotals = new Map<string, number>();
  /** How the task left, once it has: an abandoned task commits nothing more. */
  private exit: 'closed' | 'handed-over' | 'abandoned' | undefined;

  constructor(private readonly options: TaskOptions<S>) {
    this.node = options.node;
    this.partition = options.partition;
    this.id = `${options.node.name}-${options.partition}`;
    this.lifecycle = new TaskLifecycle(this.id);
    this.processor = options.node.definition.create(options.services) as AnyProcessor;
    for (const s of options.stores) this.storeByName.set(s.name, s);
    for (const [name, physical] of options.node.physical) this.declared.set(physical, name);
    this.sharedContext = this.contextFor(() => this.ready);
  }

  /** The runtime is reading the task's state (positions, counters, changelogs). */
  restoring(): void {
    this.lifecycle.to('restoring');
  }

  /** Starts processing from the restored positions; the processor's init runs first. */
  async start(positions: ReadonlyMap<string, InputPosition>, counters?: ReadonlyMap<string, number>): Promise<void> {
    for (const topic of this.node.inputs) this.trackers.set(topic, new InputTracker(positions.get(topic) ?? { base: 0, done: [] }));
    if (counters) {
      this.metrics.restore(counters);
      for (const [name, v] of counters) this.committedTotals.set(name, v);
    }
    await this.processor.init?.(this.sharedContext);
    this.lifecycle.to('running');
  }

  /** A store of the task, for inspection (tests, tools); processors use their context's `store`. */
  storeOf<K, V>(spec: StoreSpec<K, V>): KeyValueStore<K, V> {
    const store: KeyValueStore<any, any> | undefined = this.storeByName.get(spec.name);
    if (!store) throw new Error(`task ${this.id} has no store named ${spec.name}`);
    return store;
  }

  /** Next offset to read for each input topic. */
  nextOffset(topic: string): number {
    return this.tracker(topic).next;
  }

  committedBase(topic: string): number {
    return this.tracker(topic).committedBase();
  }

  /** Backpressure: how many more records the runtime may hand over now. */
  capacity(): number {
    if (!this.lifecycle.accepting) return 0;
    const concurrency = this.node.definition.concurrency;
    const limit = concurrency ? concurrency.maxInFlight + 256 : 2048;
    return Math.max(0, limit - (this.queue.length - this.queueHead) - this.inFlight);
  }

  offer(records: RawRecord[]): void {
    for (const r of records) {
      const tracker = this.tracker(r.topic);
      if (tracker.alreadyDone(r.offset)) {
        tracker.pass(r.offset);
      } else if (!this.options.owns(r)) {
        // After partitions were added, records of moved keys were copied to their new owner.
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
    const punctuate = this.processor.punctuate;
    if (!punctuate || !this.lifecycle.accepting) return;
    await this.turns.take(async () => {
      const before = this.ready.length + this.journalMarks();
      await punctuate.call(this.processor, now, this.sharedContext);
      // Timers fire often and mostly find nothing due: only one that did something asks for a commit.
      if (this.ready.length + this.journalMarks() !== before) this.options.onActivity();
    });
    this.notifySettled();
  }

  /** Nothing queued or running, nothing uncommitted, and no deferred work in the processor. */
  isIdle(): boolean {
    return this.isQuiescent() && this.ready.length === 0 && !this.hasPendingWork();
  }

  /** Nothing queued or running (deferred processor work aside). */
  isQuiescent(): boolean {
    return this.queue.length === this.queueHead && this.inFlight === 0 && !this.turns.held;
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
    if (this.turns.held) return undefined; // a sequential record is mid-way: its writes are not complete
    if (this.lifecycle.state === 'abandoning' || this.exit === 'abandoned') return undefined;
    const positions: TaskCommit['positions'] = [];
    for (const [topic, tracker] of this.trackers) {
      const position = tracker.position();
      if (position) positions.push({ topic, position });
    }
    const stores: TaskCommit['stores'] = [];
    for (const store of this.storeByName.values()) {
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
    for (const { topic, position } of commit.positions) this.tracker(topic).markCommitted(position);
    for (const { store } of commit.stores) store.writesCommitted();
    const observer = this.options.onCommitted;
    if (!observer) return;
    const report = commitReport(this.node.name, this.partition, commit, this.committedTotals);
    try {
      if (report) observer(report);
    } catch (err) {
      this.options.log.warn(`${this.id}: a commit observer threw: ${(err as Error).message}`);
    }
  }


  /** Clean stop: no new record starts, records in progress finish (and can then be committed). */
  async close(): Promise<void> {
    if (this.lifecycle.state === 'created' || this.lifecycle.state === 'restoring') {
      this.exit = 'closed';
      return this.lifecycle.to('closed');
    }
    this.lifecycle.to('closing');
    await this.settled(Infinity);
    await this.processor.close?.();
    this.exit = 'closed';
    this.lifecycle.to('closed');
  }

  /**
   * Leaves the partition to another owner, keeping what is finished: no new record starts, records in
   * flight are told to stop (a fetch closes its connection) and stay unfinished, so the next commit
   * holds every finished record's outputs and positions stop below the first unfinished one. Without
   * this, a move would make the new owner redo (and refetch) everything since the last commit.
   */
  async handOver(): Promise<void> {
    this.lifecycle.to('handing-over');
    this.processor.abandon?.();
    // Bounded: records whose abort never settles (a sink waiting on its aborted writer) must not
    // hold the move up; they stay unfinished either way.
    await this.settled(STOP_GRACE_MS);
    await this.processor.close?.();
    this.exit = 'handed-over';
    this.lifecycle.to('closed');
  }

  /** Stops at once: work in progress is dropped and nothing more will be committed. */
  async abandon(): Promise<void> {
    if (this.lifecycle.state === 'closed') return;
    this.lifecycle.to('abandoning');
    this.exit = 'abandoned';
    this.processor.abandon?.();
    for (const s of this.storeByName.values()) s.discardPending();
    this.ready = [];
    await this.settled(STOP_GRACE_MS);
    await this.processor.close?.();
    this.lifecycle.to('closed');
  }

  /** Resolves once nothing runs (or after `boundMs`). */
  private settled(boundMs: number): Promise<void> {
    if (this.inFlight === 0 && !this.turns.held) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = Number.isFinite(boundMs) ? setTimeout(resolve, boundMs) : undefined;
      this.settledWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private notifySettled(): void {
    if (this.inFlight > 0 || this.turns.held || this.settledWaiters.length === 0) return;
    const waiters = this.settledWaiters;
    this.settledWaiters = [];
    for (const w of waiters) w();
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      if (this.node.definition.concurrency) this.dispatchConcurrent();
      else await this.drainSequential();
    } finally {
      this.draining = false;
    }
  }

  private async drainSequential(): Promise<void> {
    while (this.queueHead < this.queue.length && this.lifecycle.accepting) {
      const deadline = performance.now() + SLICE_MS;
      await this.turns.take(async () => {
        while (this.queueHead < this.queue.length && performance.now() < deadline && this.lifecycle.accepting) {
          await this.handle(this.queue[this.queueHead++], this.sharedContext);
        }
      });
      this.notifySettled();
      this.compactQueue();
      this.options.onActivity();
      if (this.queueHead < this.queue.length) await yieldToLoop();
    }
  }

  private dispatchConcurrent(): void {
    const { maxInFlight, perKeyOrder } = this.node.definition.concurrency!;
    while (this.queueHead < this.queue.length && this.inFlight < maxInFlight && this.lifecycle.accepting) {
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
      if (!this.lifecycle.leaving || this.lifecycle.state === 'closing') for (const o of outputs) this.ready.push(o);
      if (this.node.definition.concurrency!.perKeyOrder) {
        const waiting = this.keysInFlight.get(record.key)!;
        const next = waiting.shift();
        if (next && this.lifecycle.accepting) this.runConcurrent(next);
        else if (!next) this.keysInFlight.delete(record.key);
      }
      this.dispatchConcurrent();
      this.notifySettled();
      this.options.onActivity();
    });
  }

  /** Decodes and processes one record; failures go to the dead-letter topic with their reason. */
  private async handle(record: RawRecord, ctx: Context, outputs?: OutputRecord[]): Promise<void> {
    const tracker = this.tracker(record.topic);
    const sink = outputs ?? this.ready;
    const mark = sink.length;
    const journal = [...this.storeByName.values()].map((s) => s.journalMark());
    let value: unknown;
    try {
      value = await this.decode(record);
    } catch (err) {
      this.deadLetter(record, `undecodable: ${(err as Error).message}`, sink);
      tracker.finish(record.offset);
      return;
    }
    try {
      const input: InputRecord = { ...record, topic: this.declared.get(record.topic) ?? record.topic, value };
      const result = this.processor.process(input as never, ctx);
      if (result) await result;
    } catch (err) {
      // Undo what the failed record did, so that a commit holds either all of a record or none.
      sink.length = mark;
      [...this.storeByName.values()].forEach((s, i) => s.rollbackTo(journal[i]));
      // A record interrupted by a hand-over did not fail: its next owner processes it again.
      if (outputs && this.lifecycle.state === 'handing-over') return;
      this.deadLetter(record, `processor failed: ${(err as Error).stack ?? err}`, sink);
    }
    // Concurrent records still running when the task was handed over stay unfinished.
    if (outputs && this.lifecycle.state === 'handing-over') return;
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
    this.options.log.warn(`${this.id}: ${record.topic}/${record.partition}@${record.offset} sent to ${DEAD_LETTERS}: ${reason.split('\n')[0]}`);
    const letter: DeadLetter = {
      topic: record.topic, partition: record.partition, offset: record.offset, key: record.key,
      processor: this.node.name, reason: reason.slice(0, 4000), value: record.value, failed_at: this.options.clock(),
    };
    const topic = this.node.physical.get(DEAD_LETTERS)!;
    sink.push({ topic, key: record.key, value: this.options.codecs.encode(topic, letter), timestamp: letter.failed_at });
  }

  private contextFor(outputs: () => OutputRecord[]): Context {
    const task = this;
    const { codecs, clock } = this.options;
    const node = this.node;
    return {
      processorName: node.name,
      partition: this.partition,
      logId: this.options.logId,
      metrics: this.metrics,
      log: this.options.log,
      now: clock,
      forward(declared, key, value) {
        if (node.discarded.has(declared)) return task.metrics.count(`discarded.${declared}`);
        const topic = node.physical.get(declared);
        if (!topic || !node.outputs.includes(topic)) {
          throw new Error(`processor ${node.name} forwarded to ${declared}, which is not among its declared outputs`);
        }
        outputs().push({ topic, key, value: codecs.encode(topic, value), timestamp: clock() });
      },
      store: (spec) => task.storeOf(spec),
    };
  }

  private tracker(topic: string): InputTracker {
    const tracker = this.trackers.get(topic);
    if (!tracker) throw new Error(`task ${this.id} does not read ${topic} (or has not started)`);
    return tracker;
  }

  private journalMarks(): number {
    let n = 0;
    for (const s of this.storeByName.values()) n += s.journalMark();
    return n;
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
