// Records lost to log damage, and what each reader does about them. A reader never waits for an
// offset that will not appear: when its position is restored, the last offset of every lost range
// ahead of it is added to its finished offsets, so it passes over the range (the runtime hands it a
// placeholder for that offset, which it skips without processing) and its position moves past.
// Every range is reported with the readers that had not processed its records yet: those records
// are lost to the application, not only to a later replay.
import type { Logger } from '../api.js';
import type { InputPosition } from '../task/input-position.js';
import type { RawRecord } from '../task/stream-task.js';
import type { LostRange, PartitionLog } from './partition-log.js';

export interface DamagedRange extends LostRange {
  /** Consumer group → records of the range it had not processed (and now never will). */
  unprocessed: Map<string, number>;
}

export interface DamageSummary {
  /** Records in lost ranges. */
  lost: number;
  /** Of those, records some reader had not processed yet (counted once per record). */
  unprocessed: number;
  ranges: DamagedRange[];
}

export class LogDamage {
  readonly ranges: DamagedRange[] = [];

  /** Registers the ranges a log found when it was opened. */
  add(log: PartitionLog): void {
    for (const r of log.lostRanges) this.ranges.push({ ...r, unprocessed: new Map() });
  }

  /**
   * The position a reader resumes from, moved past lost offsets: below the log's first segment it
   * starts at that segment; each lost range ahead gets its last offset marked finished.
   */
  passOver(group: string, log: PartitionLog, position: InputPosition): { position: InputPosition; skipped: number } {
    let { base } = position;
    const done = new Set(position.done);
    let skipped = 0;
    if (base < log.start) {
      const range = this.rangeFor(log, base, log.start, 'is below the first segment on disk (deleted or lost)');
      skipped += this.note(range, group, base, log.start, done);
      base = log.start;
      for (const o of done) if (o < base) done.delete(o);
    }
    for (const r of log.lostRanges) {
      if (r.to <= base) continue;
      skipped += this.note(this.rangeFor(log, r.from, r.to, r.cause), group, Math.max(base, r.from), r.to, done);
      done.add(r.to - 1);
    }
    return { position: { base, done: [...done].sort((a, b) => a - b) }, skipped };
  }

  summary(): DamageSummary {
    let lost = 0;
    let unprocessed = 0;
    for (const r of this.ranges) {
      lost += r.to - r.from;
      unprocessed += Math.max(0, ...r.unprocessed.values());
    }
    return { lost, unprocessed, ranges: this.ranges };
  }

  /** One warning per range: where, how many, why, and who had not processed them. */
  report(logger: Logger): void {
    for (const r of this.ranges) logger.warn(describeRange(r));
  }

  private rangeFor(log: PartitionLog, from: number, to: number, cause: string): DamagedRange {
    let range = this.ranges.find((r) => r.topic === log.topic && r.partition === log.partition && r.from === from && r.to === to);
    if (!range) this.ranges.push((range = { topic: log.topic, partition: log.partition, from, to, cause, unprocessed: new Map() }));
    return range;
  }

  private note(range: DamagedRange, group: string, from: number, to: number, done: ReadonlySet<number>): number {
    let n = to - from;
    for (const o of done) if (o >= from && o < to) n--;
    if (n > 0) range.unprocessed.set(group, (range.unprocessed.get(group) ?? 0) + n);
    return Math.max(0, n);
  }
}

export function describeRange(r: DamagedRange): string {
  const count = r.to - r.from;
  const where = `${r.topic}/${r.partition} offsets ${r.from}..${r.to - 1} (${count} record${count === 1 ? '' : 's'})`;
  const readers = [...r.unprocessed].map(([group, n]) => `${group} (${n})`);
  const effect = readers.length
    ? `not yet processed by ${readers.join(', ')}: skipped, their work is lost`
    : 'every reader had processed them already; only a replay misses them';
  return `log damage: ${where} cannot be read: ${r.cause}; ${effect}`;
}

/** What the runtime hands a reader for the last offset of a lost range: it is marked finished, so the reader skips it. */
export function placeholder(log: PartitionLog, offset: number): RawRecord {
  return { topic: log.topic, partition: log.partition, offset, timestamp: 0, key: '', value: Buffer.alloc(0) };
}
