// How a task's records run once offered: one at a time in offset order for a sequential processor
// (in slices, yielding to the event loop so that sockets and timers stay responsive), or up to
// `maxInFlight` at once for a concurrent one, in key order when it asks for it. It also tells when
// nothing runs, for commits (never mid-way through a sequential record) and for stops.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { ProcessorDefinition } from '../api.js';
import { Fifo } from '../fifo.js';
import { Mutex } from './mutex.js';
import type { RawRecord } from './task-records.js';

const SLICE_MS = 8; // yield to the event loop this often so sockets and timers stay responsive

export interface DispatchOptions {
  concurrency: ProcessorDefinition<any, any, any>['concurrency'];
  /** New records may start (the task is running). */
  accepting: () => boolean;
  /** Runs one record to its end (the task decides where its outputs go). */
  run: (record: RawRecord) => Promise<void> | void;
  /** Something ran: the runtime may want to commit. */
  onActivity: () => void;
}

export class RecordDispatch {
  readonly queue = new Fifo<RawRecord>();
  /** Bytes of the queued records' values: what the task's read-ahead holds. */
  private bytes = 0;
  /** Concurrent records running now. */
  private running = 0;
  /** Sequential records and punctuations run one at a time; a commit is never taken mid-way through one. */
  private readonly mutex = new Mutex();
  private draining = false;
  private readonly keysInFlight = new Map<string, RawRecord[]>();
  private settledWaiters: (() => void)[] = [];

  constructor(private readonly o: DispatchOptions) {}

  get inFlight(): number {
    return this.running;
  }

  /** A sequential record or a punctuation is mid-way. */
  get midway(): boolean {
    return this.mutex.locked;
  }

  /** Nothing queued or running. */
  get quiescent(): boolean {
    return this.queue.size === 0 && this.running === 0 && !this.mutex.locked;
  }

  push(record: RawRecord): void {
    this.queue.push(record);
    this.bytes += record.value.length;
  }

  /** Bytes of the queued records' values. */
  get queuedBytes(): number {
    return this.bytes;
  }

  private take(): RawRecord {
    const record = this.queue.take();
    this.bytes -= record.value.length;
    return record;
  }

  /** Starts what was pushed. */
  start(): void {
    if (this.o.concurrency) return this.dispatchConcurrent(); // synchronous: no turn to miss
    if (this.draining) return;
    this.draining = true;
    void this.drainSequential();
  }

  /** Runs `fn` between sequential records (a punctuation). */
  async exclusive(fn: () => Promise<void>): Promise<void> {
    await this.mutex.runExclusive(fn);
    this.notifySettled();
  }

  /** Resolves once nothing runs (or after `boundMs`). */
  settled(boundMs: number): Promise<void> {
    if (this.running === 0 && !this.mutex.locked) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = Number.isFinite(boundMs) ? setTimeout(resolve, boundMs) : undefined;
      this.settledWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private notifySettled(): void {
    if (this.running > 0 || this.mutex.locked || this.settledWaiters.length === 0) return;
    const waiters = this.settledWaiters;
    this.settledWaiters = [];
    for (const w of waiters) w();
  }

  /** Clears `draining` in the turn of its last look at the queue: one await later, a record offered in
   * between stayed queued, for good if no other came (a Kafka task busy forever, issue 18). */
  private async drainSequential(): Promise<void> {
    try {
      while (this.queue.size > 0 && this.o.accepting()) {
        const deadline = performance.now() + SLICE_MS;
        await this.mutex.runExclusive(async () => {
          // The clock is read every few records: reading it per record cost as much as a small processor.
          for (let n = 0; this.queue.size > 0 && this.o.accepting(); n++) {
            if ((n & 15) === 15 && performance.now() >= deadline) break;
            const pending = this.o.run(this.take());
            if (pending) await pending;
          }
        });
        this.notifySettled();
        this.o.onActivity();
        if (this.queue.size > 0) await yieldToLoop();
      }
    } finally {
      this.draining = false;
    }
  }

  private dispatchConcurrent(): void {
    const { maxInFlight, perKeyOrder } = this.o.concurrency!;
    while (this.queue.size > 0 && this.running < maxInFlight && this.o.accepting()) {
      const record = this.take();
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
  }

  private runConcurrent(record: RawRecord): void {
    this.running++;
    void Promise.resolve(this.o.run(record)).finally(() => {
      this.running--;
      if (this.o.concurrency!.perKeyOrder) {
        const waiting = this.keysInFlight.get(record.key)!;
        const next = waiting.shift();
        if (next && this.o.accepting()) this.runConcurrent(next);
        else if (!next) this.keysInFlight.delete(record.key);
      }
      this.dispatchConcurrent();
      this.notifySettled();
      this.o.onActivity();
    });
  }
}
