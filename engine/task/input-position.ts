// Where a task stands in one input partition. With concurrent processing, records finish out of
// order, so the committed position is the oldest record not yet finished (`base`) plus the offsets
// above it that are already finished (`done`): a restart resumes at `base` and skips `done`. This is
// what lets a slow host hold back only its own record, not the commit of everything behind it
// (as Confluent's parallel consumer does).

export interface InputPosition {
  base: number;
  done: number[];
}

export class InputTracker {
  /** Offsets read (queued or being processed) and not yet finished, in offset order. */
  private readonly started: number[] = [];
  private startedHead = 0;
  private readonly finished = new Set<number>();
  /** Offsets finished before the last restart that must be skipped when read again. */
  private readonly skip: Set<number>;
  private committed: InputPosition;
  /** Next offset the runtime will read. */
  next: number;

  constructor(readonly topic: string, position: InputPosition) {
    this.committed = position;
    this.next = position.base;
    this.skip = new Set(position.done);
  }

  /** True when the record was finished before a restart and must not be processed again. */
  alreadyDone(offset: number): boolean {
    return this.skip.size > 0 && this.skip.has(offset);
  }

  /** The runtime handed this record to the task; it is in progress until `finish`. */
  read(offset: number): void {
    if (offset < this.next) throw new Error(`offset ${offset} read twice (next is ${this.next})`);
    this.next = offset + 1;
    this.started.push(offset);
  }

  finish(offset: number): void {
    // In order (a sequential processor, or the oldest record of a concurrent one): no set entry needed.
    if (this.startedHead < this.started.length && this.started[this.startedHead] === offset) {
      this.startedHead++;
      return;
    }
    this.finished.add(offset);
  }

  /** Marks a record skipped without processing (finished before a restart, or not owned). */
  pass(offset: number): void {
    this.read(offset);
    this.finish(offset);
    this.skip.delete(offset);
  }

  inProgress(): number {
    return this.started.length - this.startedHead - this.finished.size;
  }

  /** The oldest offset read and not finished (queued or running), if any; reads, never compacts. */
  oldestUnfinished(): number | undefined {
    for (let i = this.startedHead; i < this.started.length; i++) if (!this.finished.has(this.started[i])) return this.started[i];
    return undefined;
  }

  /** The position to commit now, or undefined when it has not moved since the last commit. */
  position(): InputPosition | undefined {
    while (this.startedHead < this.started.length && this.finished.has(this.started[this.startedHead])) {
      this.finished.delete(this.started[this.startedHead]);
      this.startedHead++;
    }
    if (this.startedHead > 1024 && this.startedHead * 2 > this.started.length) {
      this.started.splice(0, this.startedHead);
      this.startedHead = 0;
    }
    const base = this.startedHead < this.started.length ? this.started[this.startedHead] : this.next;
    const done = this.finished.size ? [...this.finished].sort((a, b) => a - b) : [];
    for (const o of this.skip) if (o >= base) done.push(o);
    if (base === this.committed.base && done.length === this.committed.done.length && done.every((o, i) => o === this.committed.done[i])) {
      return undefined;
    }
    return { base, done };
  }

  markCommitted(position: InputPosition): void {
    this.committed = position;
  }

  /** Records below this offset are durably processed: a restart never reads them again. */
  committedBase(): number {
    return this.committed.base;
  }

  /** Records below `end` not durably processed yet (read or not): a restart processes them. */
  uncommittedBelow(end: number): number {
    let done = 0;
    for (const o of this.committed.done) if (o < end) done++;
    return Math.max(0, end - this.committed.base - done);
  }
}
