// One task = one processor instance over one partition of its input topics (co-partitioned by key).
// Runtimes feed it raw records and take commits from it; the task decodes, dispatches (how records run:
// record-dispatch.ts), and groups what a commit must make durable together: the outputs, the store
// writes and the input positions that cover them.
import type { Processor, ProcessorContext } from '../api.js';
import type { KeyValueStore, StoreSpec } from '../stores/key-value-store.js';
import type { LevelStore } from '../stores/level-store.js';
import type { ProcessorNode } from '../topology.js';
import { InputTracker, type InputPosition } from './input-position.js';
import { TaskLifecycle } from './task-lifecycle.js';
import { TaskMetrics } from './task-metrics.js';
import { RecordDispatch } from './record-dispatch.js';
import { RecordHandler, projectionsOf } from './record-handler.js';
import { taskContext } from './task-context.js';
import type { HandOverReport, OutputRecord, RawRecord, TaskCommit, TaskOptions } from './task-records.js';
import { commitReport, type CommitReport } from './commit-report.js';
import { outstandingWork } from './task-outstanding.js';

export type { HandOverReport, OutputRecord, RawRecord, TaskCommit, TaskOptions } from './task-records.js';
export type { CommitReport } from './commit-report.js';

type AnyProcessor = Processor<Record<string, unknown>, Record<string, unknown>>;
type Context = ProcessorContext<Record<string, unknown>>;

/** How long a leaving task waits for records that were told to stop; past it they stay unfinished. */
export const STOP_GRACE_MS = 5_000;
/**
 * How long a hand-over lets records in flight finish, by default, before it tells them to stop: work
 * that ends in this window is committed, not cut off and redone by the next owner. A runtime gives
 * its own bound (the Kafka worker: the fetch timeout, so that no request on the wire is cut off).
 */
export const HANDOVER_FINISH_MS = 2_500;
/** Read-ahead a task holds, in bytes of record values, beyond the records it runs. */
export const MAX_QUEUED_BYTES = 1024 * 1024;

export class StreamTask<S = unknown> {
  readonly id: string;
  readonly node: ProcessorNode<S>;
  readonly partition: number;
  readonly metrics = new TaskMetrics();
  readonly lifecycle: TaskLifecycle;
  private readonly processor: AnyProcessor;
  private readonly trackers = new Map<string, InputTracker>();
  private readonly storeByName = new Map<string, LevelStore<unknown, unknown>>();
  private readonly storeList: LevelStore<unknown, unknown>[];
  private ready: OutputRecord[] = [];
  private readonly dispatch: RecordDispatch;
  private readonly sharedContext: Context;
  private readonly handler: RecordHandler;
  /** Physical topic → the name the processor declared. */
  private readonly declared = new Map<string, string>();
  /** Counter totals as last committed, to report how much a commit added. */
  private readonly committedTotals = new Map<string, number>();
  /**
   * The processor was told to stop its records in flight (abandon): a concurrent record that ends
   * after this may have been cut short (a fetch returns without output), so it is not finished.
   */
  private stopSignalled = false;

  constructor(private readonly options: TaskOptions<S>) {
    this.node = options.node;
    this.partition = options.partition;
    this.id = `${options.node.name}-${options.partition}`;
    this.lifecycle = new TaskLifecycle(this.id);
    this.processor = options.node.definition.create(options.services) as AnyProcessor;
    for (const s of options.stores) this.storeByName.set(s.name, s);
    this.storeList = [...options.stores];
    for (const [name, physical] of options.node.physical) this.declared.set(physical, name);
    this.sharedContext = this.contextFor(() => this.ready);
    this.handler = new RecordHandler({
      id: this.id, node: this.node, processor: this.processor, codecs: options.codecs, stores: this.storeList, metrics: this.metrics,
      logger: options.logger, clock: options.clock, declared: this.declared, projections: projectionsOf(options.node),
      ended: (record, failure, sink) => this.recordEnded(record, failure, sink),
    });
    this.dispatch = new RecordDispatch({
      concurrency: this.node.definition.concurrency,
      accepting: () => this.lifecycle.accepting,
      run: this.node.definition.concurrency ? (record) => this.runConcurrent(record) : (record) => this.handler.handle(record, this.sharedContext, this.ready),
      onActivity: () => this.options.onActivity(),
    });
  }

  /** The runtime is reading the task's state (positions, counters, changelogs). */
  restoring(): void {
    this.lifecycle.to('restoring');
  }

  /** Starts processing from the restored positions; the processor's init runs first. */
  async start(positions: ReadonlyMap<string, InputPosition>, counters?: ReadonlyMap<string, number>): Promise<void> {
    for (const topic of this.node.inputs) this.trackers.set(topic, new InputTracker(topic, positions.get(topic) ?? { base: 0, done: [] }));
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

  /** Its input positions are known (it has started, and may since have stopped). */
  get started(): boolean {
    return this.trackers.size > 0;
  }

  /** Next offset to read for each input topic. */
  nextOffset(topic: string): number {
    return this.tracker(topic).next;
  }

  committedBase(topic: string): number {
    return this.tracker(topic).committedBase();
  }

  /** Records of `topic` below `end` that no commit has covered yet: the next start processes them. */
  uncommittedBelow(topic: string, end: number): number {
    return this.tracker(topic).uncommittedBelow(end);
  }

  /**
   * Backpressure: how many more records the runtime may hand over now. Bounded by bytes as well as
   * records: a task behind its producer holds its read-ahead in memory, and 2,048 records of ~12 KB
   * are ~25 MB a task (at 100,000 pages, queued records with page bodies were ~240 MB of Buffers).
   * A small record queued behind big ones waits for them: a processor whose inputs mix the two pays
   * in throughput (the schedule did, until its reports came apart from bodies).
   */
  capacity(): number {
    if (!this.lifecycle.accepting || this.byteRoom() === 0) return 0;
    const concurrency = this.node.definition.concurrency;
    const limit = concurrency ? concurrency.maxInFlight + 256 : 2048;
    return Math.max(0, limit - this.dispatch.queue.size - this.dispatch.inFlight);
  }

  /** Bytes of record values the runtime may still hand over now (read at least one record when it is > 0). */
  byteRoom(): number {
    return Math.max(0, MAX_QUEUED_BYTES - this.dispatch.queuedBytes);
  }

  offer(records: RawRecord[]): void {
    const owns = this.options.owns;
    let tracker: InputTracker | undefined;
    for (const r of records) {
      if (tracker?.topic !== r.topic) tracker = this.tracker(r.topic);
      if (tracker.alreadyDone(r.offset)) {
        tracker.pass(r.offset);
      } else if (owns && !owns(r)) {
        // After partitions were added, records of moved keys were copied to their new owner.
        tracker.pass(r.offset);
        this.metrics.count('skipped.not-owned');
      } else {
        tracker.read(r.offset);
        this.dispatch.push(r);
      }
    }
    this.dispatch.start();
    this.options.onActivity();
  }

  async punctuate(now: number): Promise<void> {
    const punctuate = this.processor.punctuate;
    if (!punctuate || !this.lifecycle.accepting) return;
    await this.dispatch.exclusive(async () => {
      const before = this.ready.length + this.journalMarks();
      await punctuate.call(this.processor, now, this.sharedContext);
      // Timers fire often and mostly find nothing due: only one that did something asks for a commit.
      if (this.ready.length + this.journalMarks() !== before) this.options.onActivity();
    });
  }

  /** Nothing queued or running, nothing uncommitted, and no deferred work in the processor. */
  isIdle(): boolean {
    return this.isQuiescent() && this.ready.length === 0 && !this.hasPendingWork();
  }

  /** Nothing queued or running (deferred processor work aside). */
  isQuiescent(): boolean {
    return this.dispatch.quiescent;
  }

  /** Every record read has been finished and its position committed. */
  isFullyCommitted(): boolean {
    for (const t of this.trackers.values()) if (t.committedBase() < t.next) return false;
    return this.ready.length === 0;
  }

  /** What it still holds, for a busy task's status (empty when nothing): see task-outstanding.ts. */
  outstanding(): string[] {
    const d = this.dispatch;
    return outstandingWork({ state: this.lifecycle.state, queued: d.queue.size, firstQueued: d.queue.peek(), running: d.inFlight, midway: d.midway, trackers: this.trackers, outputs: this.ready.length });
  }

  hasPendingWork(): boolean {
    return this.processor.hasPendingWork?.() ?? false;
  }

  inFlightCount(): number {
    return this.dispatch.inFlight + this.dispatch.queue.size;
  }

  /** Collects what the next commit must make durable; undefined when there is nothing. */
  takeCommit(): TaskCommit | undefined {
    if (this.dispatch.midway) return undefined; // a sequential record is mid-way: its writes are not complete
    if (this.lifecycle.discarded) return undefined;
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
      this.options.logger.warn(`${this.id}: a commit observer threw: ${(err as Error).message}`);
    }
  }

  /** Clean stop: no new record starts, records in progress finish (and can then be committed). */
  async close(): Promise<void> {
    if (this.lifecycle.state === 'created' || this.lifecycle.state === 'restoring') return this.lifecycle.to('closed');
    this.lifecycle.to('closing');
    await this.dispatch.settled(Infinity);
    if (this.lifecycle.state !== 'closing') return; // abandoned while it waited (a stop's grace ran out)
    await this.processor.close?.();
    if (this.lifecycle.state === 'closing') this.lifecycle.to('closed');
  }

  /**
   * Leaves the partition to another owner, keeping what is finished: no new record starts, the
   * processor is told to start nothing new (a fetch gives back, unsent, what waits for its host's
   * turn), records in flight get `finishMs` to end (a request on the wire is answered), then the rest
   * are told to stop and stay unfinished, so the next commit holds every finished record's outputs
   * and positions stop below the first unfinished one. Without this, a move would make the new owner
   * redo (and refetch) everything since the last commit.
   */
  async handOver(finishMs = HANDOVER_FINISH_MS): Promise<HandOverReport> {
    this.lifecycle.to('handing-over');
    const unstarted = this.dispatch.queue.size;
    this.processor.handingOver?.();
    await this.dispatch.settled(finishMs);
    const cut = this.dispatch.inFlight;
    if (cut > 0 || this.dispatch.midway) {
      this.stopSignalled = true;
      this.processor.abandon?.();
      // Bounded: records whose abort never settles (a sink waiting on its aborted writer) must not
      // hold the move up; they stay unfinished either way.
      await this.dispatch.settled(STOP_GRACE_MS);
    }
    await this.processor.close?.();
    if (this.lifecycle.state === 'handing-over') this.lifecycle.to('handed-over');
    return { cut, unstarted };
  }

  /**
   * Stops at once: work in progress is dropped and nothing more will be committed. `boundMs`: how
   * long to wait for records told to stop (a bounded stop has none left to give).
   */
  async abandon(boundMs = STOP_GRACE_MS): Promise<void> {
    if (this.lifecycle.ended || this.lifecycle.discarded) return;
    this.lifecycle.to('abandoning');
    this.stopSignalled = true;
    this.processor.abandon?.();
    for (const s of this.storeByName.values()) s.discardPending();
    this.ready = [];
    await this.dispatch.settled(boundMs);
    await this.processor.close?.();
    this.lifecycle.to('abandoned');
  }

  /** A concurrent record gets a context of its own, so that its outputs are its own until it ends. */
  private runConcurrent(record: RawRecord): Promise<void> | void {
    const outputs: OutputRecord[] = [];
    return this.handler.handle(record, this.contextFor(() => outputs), outputs);
  }

  /**
   * The one place that decides what a record leaves behind when it ends: its position (finished or
   * not), its outputs, and a dead letter when it failed. A concurrent record still running when the
   * processor was told to stop (a hand-over past its finishing window, an abandon) did not finish:
   * its next owner processes it again (a fetch closes its connection), so neither its outputs nor its
   * offset may be committed.
   * A sequential record always runs to its end, so it is finished either way.
   */
  private recordEnded(record: RawRecord, failure: string | undefined, sink: OutputRecord[]): void {
    const concurrent = this.node.definition.concurrency !== undefined;
    if (concurrent && (this.stopSignalled || this.lifecycle.discarded)) return;
    if (failure !== undefined) this.handler.deadLetter(record, failure, sink);
    this.tracker(record.topic).finish(record.offset);
    if (concurrent) for (const o of sink) this.ready.push(o);
  }

  private contextFor(outputs: () => OutputRecord[]): Context {
    const { codecs, clock, logId, logger } = this.options;
    return taskContext({ node: this.node, partition: this.partition, metrics: this.metrics, codecs, clock, logId, logger, store: (spec) => this.storeOf(spec) }, outputs);
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
}
