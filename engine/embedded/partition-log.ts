// One partition of a topic in the embedded runtime: append-only segment files of CRC-framed records
// (frame.ts).
//
// Appends are written before the commit batch that records the new end in LevelDB; readers only see
// up to that committed end. Opening is two steps so that nothing is changed before the runtime has
// decided to go on: `inspect` reads every segment (frames intact, offsets contiguous from each
// segment's base to the next one's, up to the committed end) and finds what lies past the committed
// end; `open` then cuts that tail off (the rest of a commit a kill -9 interrupted), so a record is
// visible exactly when the store writes and input positions committed with it are. Offsets that
// damage made unreadable are reported as lost ranges; reads pass over them.
import { Fifo } from '../fifo.js';
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { RawRecord } from '../task/stream-task.js';
import { encodeFrames, framesLength, type FrameRecord } from './frame.js';
import { compactValues, readSegment, type Segment } from './segment-read.js';
import { INDEX_EVERY, scanCommitted, scanTail, type TailScan } from './segment-scan.js';

export interface LogEnd {
  /** Next offset to be written. */
  end: number;
  /** Segment file holding `end` and the byte position to write it at. */
  segment: number;
  position: number;
}

/** Offsets [from, to) of one partition that can no longer be read, and why. */
export interface LostRange {
  topic: string;
  partition: number;
  from: number;
  to: number;
  cause: string;
}

export interface LogInspection {
  lost: LostRange[];
  /** Intact records past the committed end and the commit rounds that wrote them. */
  uncommitted: TailScan;
}

interface Plan {
  committed: LogEnd | undefined;
  keep: Segment[];
  /** Where to cut the committed segment: bytes past it hold no committed record. */
  cutTo?: number;
  remove: { fd: number; path: string }[];
  /** The committed segment is missing or damaged: appends go to a new segment. */
  freshSegment: boolean;
  inspection: LogInspection;
}

const SEGMENT_BYTES = 128 * 1024 * 1024;
const TAIL_BYTES = 4 * 1024 * 1024;

export type AppendRecord = FrameRecord;

export class PartitionLog {
  private segments: Segment[] = [];
  private committedEnd = 0;
  private writeEnd = 0;
  private lost: LostRange[] = [];
  private plan: Plan | undefined;
  /**
   * Committed records no reader has read yet (see `readBy`), at most TAIL_BYTES of them, so readers
   * that keep up never touch the disk. Records every reader has passed are dropped at once: a tail
   * held for no one made the heap, and the garbage collector's work, grow with the log.
   */
  private readonly tail = new Fifo<RawRecord>();
  private tailBytes = 0;
  /** False when no reader in this process reads the log: appends keep no tail. */
  private keepTail = true;
  private readonly segmentBytes: number;

  constructor(
    private readonly dir: string,
    readonly topic: string,
    readonly partition: number,
    options: { segmentBytes?: number } = {},
  ) {
    this.segmentBytes = options.segmentBytes ?? SEGMENT_BYTES;
  }

  /** Checks the segments against the committed end without changing anything on disk. */
  inspect(committed: LogEnd | undefined): LogInspection {
    this.closeFiles();
    const bases = existsSync(this.dir)
      ? readdirSync(this.dir).filter((f) => /^\d{20}\.log$/.test(f)).map((f) => Number(f.slice(0, -4))).sort((a, b) => a - b)
      : [];
    const lost: LostRange[] = [];
    const uncommitted: TailScan = { records: 0, newestRound: 0, oldestRound: Infinity };
    const addTail = (t: TailScan) => {
      uncommitted.records += t.records;
      uncommitted.newestRound = Math.max(uncommitted.newestRound, t.newestRound);
      uncommitted.oldestRound = Math.min(uncommitted.oldestRound, t.oldestRound);
    };
    const plan: Plan = { committed, keep: [], remove: [], freshSegment: false, inspection: { lost, uncommitted } };
    this.plan = plan;
    const loseTo = (from: number, to: number, cause: string) => {
      if (to > from) lost.push({ topic: this.topic, partition: this.partition, from, to, cause });
    };
    const kept = committed ? bases.filter((b) => b <= committed.segment) : [];
    for (const base of bases) {
      const path = this.segmentPath(base);
      const fd = openSync(path, 'r+');
      const size = fstatSync(fd).size;
      if (!committed || base > committed.segment) {
        // Written after the last commit: never visible, never acknowledged.
        plan.remove.push({ fd, path });
        addTail(scanTail(fd, size, 0));
        continue;
      }
      const last = base === committed.segment;
      const i = kept.indexOf(base);
      const next = i + 1 < kept.length ? kept[i + 1] : last ? committed.end : committed.segment;
      const scan = scanCommitted(fd, size, base, last ? committed.position : size, next);
      for (const g of scan.gaps) loseTo(g.from, g.to, `${this.name(base)}: ${g.cause}`);
      const why = last && size < committed.position
        ? `is ${size} bytes long where the state records ${committed.position} (cut short)`
        : scan.broken ? `has ${scan.broken}` : `ends at offset ${scan.next - 1} where the next segment starts at ${next}`;
      loseTo(scan.next, next, `${this.name(base)} ${why}`);
      if (last) {
        if (size > committed.position) {
          plan.cutTo = committed.position;
          addTail(scanTail(fd, size, committed.position));
        }
        // Damage that cost offsets is left as found, and writing goes on in a new segment; a torn
        // frame that held no committed offset is only cut off.
        plan.freshSegment = scan.next < committed.end || scan.gaps.length > 0;
        if (!plan.freshSegment && scan.broken) plan.cutTo = scan.readableEnd;
      }
      plan.keep.push({ base, path, fd, size: scan.readableEnd, index: scan.index, newest: scan.newest });
    }
    if (committed && !kept.includes(committed.segment)) {
      loseTo(committed.segment, committed.end, `${this.name(committed.segment)} is missing`);
      plan.freshSegment = true;
    }
    return plan.inspection;
  }

  /**
   * Opens the log at the committed end: what `inspect` found past it is cut off, damaged ranges are
   * remembered (and never read). Inspects first unless `inspect` was called with the same end.
   */
  open(committed: LogEnd | undefined): LogInspection {
    const plan = this.plan && this.plan.committed === committed ? this.plan : (this.inspect(committed), this.plan!);
    this.plan = undefined;
    mkdirSync(this.dir, { recursive: true });
    for (const r of plan.remove) {
      closeSync(r.fd);
      unlinkSync(r.path);
    }
    if (plan.cutTo !== undefined) ftruncateSync(plan.keep[plan.keep.length - 1].fd, plan.cutTo);
    this.segments = plan.keep;
    this.lost = plan.inspection.lost;
    this.committedEnd = this.writeEnd = committed?.end ?? 0;
    // A damaged segment is left as it was found; writing goes on in a new one.
    if (this.segments.length === 0 || plan.freshSegment) this.segments.push(this.createSegment(this.writeEnd));
    return plan.inspection;
  }

  /** Writes records after the current end, stamped with the commit round; invisible until `publish`. */
  append(records: AppendRecord[], round = 0): { end: LogEnd; written: RawRecord[] } {
    let segment = this.segments[this.segments.length - 1];
    if (segment.size >= this.segmentBytes) {
      segment = this.createSegment(this.writeEnd);
      this.segments.push(segment);
    }
    // One buffer for the whole append: each value is copied once, and one write reaches the file.
    const keyBytes = records.map((r) => Buffer.byteLength(r.key, 'utf8'));
    const buffer = Buffer.allocUnsafe(framesLength(records, keyBytes));
    const starts = encodeFrames(buffer, records, keyBytes, this.writeEnd, round);
    const written: RawRecord[] = [];
    for (let i = 0; i < records.length; i++) {
      const r = records[i];
      const offset = this.writeEnd++;
      const at = segment.size + starts[i];
      if (segment.index.length === 0 || at - segment.index[segment.index.length - 1] >= INDEX_EVERY) segment.index.push(offset, at);
      if (r.timestamp > segment.newest) segment.newest = r.timestamp;
      if (this.keepTail) written.push({ topic: this.topic, partition: this.partition, offset, timestamp: r.timestamp, key: r.key, value: r.value });
    }
    let done = 0;
    while (done < buffer.length) done += writeSync(segment.fd, buffer, done, buffer.length - done, segment.size + done);
    segment.size += buffer.length;
    return { end: { end: this.writeEnd, segment: segment.base, position: segment.size }, written };
  }

  /** The commit that recorded `end` is durable: make the records visible to consumers. */
  publish(end: LogEnd, written: RawRecord[]): void {
    this.committedEnd = end.end;
    for (const r of written) {
      this.tail.push(r);
      this.tailBytes += r.value.length + 64;
    }
    while (this.tailBytes > TAIL_BYTES && this.tail.size > 1) this.tailBytes -= this.tail.take().value.length + 64;
  }

  /** Whether some reader in this process reads the log (a tail serves no one otherwise). */
  setReaders(present: boolean): void {
    this.keepTail = present;
    if (!present) this.readBy(this.committedEnd);
  }

  /** Every reader has read below `offset`: the tail need not keep those records. */
  readBy(offset: number): void {
    while (this.tail.size > 0 && this.tail.peek()!.offset < offset) this.tailBytes -= this.tail.take().value.length + 64;
  }

  get end(): number {
    return this.committedEnd;
  }

  get start(): number {
    return this.segments[0].base;
  }

  /** Ranges of offsets found unreadable when the log was opened, in offset order. */
  get lostRanges(): readonly LostRange[] {
    return this.lost;
  }

  /** The lost range holding `offset`, if any: readers pass over it instead of waiting for it. */
  lostAt(offset: number): LostRange | undefined {
    return this.lost.find((r) => r.from <= offset && offset < r.to);
  }

  /**
   * Committed records from `from`, at most `max` of them and roughly `maxBytes`. Lost offsets are
   * never returned: a read goes on after them, so no caller waits for offsets that will not appear.
   */
  read(from: number, max: number, maxBytes = 8 * 1024 * 1024): RawRecord[] {
    const out: RawRecord[] = [];
    for (from = Math.max(from, this.start); out.length < max && from < this.committedEnd; ) {
      const lost = this.lostAt(from);
      if (lost) {
        from = lost.to;
        continue;
      }
      const until = Math.min(this.committedEnd, this.lost.find((r) => r.from > from)?.from ?? Infinity);
      const want = Math.min(max - out.length, until - from);
      const chunk = this.readRange(from, want, maxBytes);
      for (const r of chunk) out.push(r);
      if (chunk.length < want) break; // the byte budget is spent
      from = until;
    }
    return out;
  }

  private readRange(from: number, max: number, maxBytes: number): RawRecord[] {
    const tailStart = this.tail.peek()?.offset ?? Infinity;
    if (from >= tailStart) {
      const i = from - tailStart;
      const out = this.tail.slice(i, i + max);
      // As a read from disk: at least one record, then as many as fit in maxBytes.
      let bytes = out[0]?.value.length ?? 0;
      for (let n = 1; n < out.length; n++) {
        bytes += out[n].value.length;
        if (bytes > maxBytes) return out.slice(0, n);
      }
      return out;
    }
    return this.readFromDisk(from, max, maxBytes);
  }

  /** Offset of the first record with a timestamp at or after `time` (for replay --since). */
  offsetForTime(time: number): number {
    for (const segment of this.segments) {
      if (segment.newest < time) continue;
      let found: number | undefined;
      readSegment(this.topic, this.partition, segment, { from: segment.base, max: Infinity, maxBytes: Infinity }, (r) => {
        if (r.timestamp >= time && !this.lostAt(r.offset)) found = r.offset;
        return found === undefined;
      });
      if (found !== undefined) return found;
    }
    return this.committedEnd;
  }

  /** Deletes whole segments below `offset` (and, if given, whose newest record is older than `olderThan`). */
  deleteBefore(offset: number, olderThan = Infinity): number {
    let deleted = 0;
    while (this.segments.length > 1) {
      const [first, second] = this.segments;
      if (second.base > offset || first.newest >= olderThan) break;
      closeSync(first.fd);
      unlinkSync(first.path);
      this.segments.shift();
      deleted++;
    }
    if (deleted) this.lost = this.lost.filter((r) => r.to > this.start);
    return deleted;
  }

  close(): void {
    this.closeFiles();
    this.segments = [];
  }

  private closeFiles(): void {
    for (const s of this.segments) closeSync(s.fd);
    if (this.plan) {
      for (const s of this.plan.keep) closeSync(s.fd);
      for (const r of this.plan.remove) closeSync(r.fd);
      this.plan = undefined;
    }
  }

  private readFromDisk(from: number, max: number, maxBytes: number): RawRecord[] {
    let i = this.segments.length - 1;
    while (i > 0 && this.segments[i].base > from) i--;
    const out: RawRecord[] = [];
    let bytes = 0;
    const chunks = { bytes: 0 };
    let past = false; // reached records not committed yet
    const take = (r: RawRecord): boolean => {
      if (r.offset >= this.committedEnd) return !(past = true);
      out.push(r);
      bytes += r.value.length;
      return true;
    };
    for (; i < this.segments.length && !past && out.length < max && bytes < maxBytes; i++) {
      readSegment(this.topic, this.partition, this.segments[i], { from, max: max - out.length, maxBytes: maxBytes - bytes, chunks }, take);
    }
    return bytes * 2 < chunks.bytes ? compactValues(out, bytes) : out;
  }

  private createSegment(base: number): Segment {
    const path = this.segmentPath(base);
    const fd = openSync(path, existsSync(path) ? 'r+' : 'w+');
    ftruncateSync(fd, 0);
    return { base, path, fd, size: 0, index: [], newest: 0 };
  }

  private name(base: number): string {
    return `${String(base).padStart(20, '0')}.log`;
  }

  private segmentPath(base: number): string {
    return join(this.dir, this.name(base));
  }
}
