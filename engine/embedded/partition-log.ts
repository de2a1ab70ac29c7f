// One partition of a topic in the embedded runtime: append-only segment files of CRC-framed records.
//
// Appends are written before the commit batch that records the new end in LevelDB; readers only see
// up to that committed end. On open, anything past the committed end (the tail of a commit that a
// kill -9 interrupted) is cut off, so a record is visible exactly when the store writes and input
// positions committed with it are.
//
// Frame: [u32 payload length][u32 crc32(payload)] payload = [u48 offset][f64 timestamp][u16 key length][key][value]
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { RawRecord } from '../task/stream-task.js';

export interface LogEnd {
  /** Next offset to be written. */
  end: number;
  /** Segment file holding `end` and the byte position to write it at. */
  segment: number;
  position: number;
}

interface Segment {
  base: number;
  path: string;
  fd: number;
  size: number;
  /** Sparse index: [offset, byte position] every INDEX_EVERY bytes. */
  index: number[];
  /** Newest record timestamp, for time-based retention. */
  newest: number;
}

const FRAME_HEADER = 8;
const PAYLOAD_FIXED = 6 + 8 + 2;
const INDEX_EVERY = 64 * 1024;
const SEGMENT_BYTES = 128 * 1024 * 1024;
const TAIL_BYTES = 4 * 1024 * 1024;
const MAX_FRAME = 64 * 1024 * 1024;

export interface AppendRecord {
  key: string;
  value: Buffer;
  timestamp: number;
}

export class PartitionLog {
  private segments: Segment[] = [];
  private committedEnd = 0;
  private writeEnd = 0;
  /** Recently committed records, so consumers that keep up never touch the disk. */
  private tail: RawRecord[] = [];
  private tailBytes = 0;

  constructor(
    private readonly dir: string,
    readonly topic: string,
    readonly partition: number,
  ) {}

  open(committed: LogEnd | undefined): void {
    mkdirSync(this.dir, { recursive: true });
    const bases = readdirSync(this.dir)
      .filter((f) => f.endsWith('.log'))
      .map((f) => Number(f.slice(0, -4)))
      .sort((a, b) => a - b);
    for (const base of bases) {
      const keep = committed !== undefined && base <= committed.segment;
      const path = this.segmentPath(base);
      if (!keep) {
        unlinkSync(path); // written after the last commit: never visible, never acknowledged
        continue;
      }
      const fd = openSync(path, 'r+');
      if (base === committed!.segment) ftruncateSync(fd, committed!.position);
      const segment: Segment = { base, path, fd, size: fstatSync(fd).size, index: [], newest: 0 };
      this.scan(segment, base === committed!.segment);
      this.segments.push(segment);
    }
    this.committedEnd = this.writeEnd = committed?.end ?? 0;
    if (this.segments.length === 0) this.segments.push(this.createSegment(this.writeEnd));
  }

  /** Writes records after the current end; they stay invisible until `publish`. */
  append(records: AppendRecord[]): { end: LogEnd; written: RawRecord[] } {
    let segment = this.segments[this.segments.length - 1];
    if (segment.size >= SEGMENT_BYTES) {
      segment = this.createSegment(this.writeEnd);
      this.segments.push(segment);
    }
    // One buffer for the whole append: each value is copied once, and one write reaches the file.
    const keys = records.map((r) => Buffer.from(r.key, 'utf8'));
    let bytes = 0;
    for (let i = 0; i < records.length; i++) bytes += FRAME_HEADER + PAYLOAD_FIXED + keys[i].length + records[i].value.length;
    const buffer = Buffer.allocUnsafe(bytes);
    const written: RawRecord[] = [];
    let at = 0;
    for (let i = 0; i < records.length; i++) {
      const r = records[i];
      const key = keys[i];
      const offset = this.writeEnd++;
      const payloadLength = PAYLOAD_FIXED + key.length + r.value.length;
      buffer.writeUInt32BE(payloadLength, at);
      buffer.writeUIntBE(offset, at + 8, 6);
      buffer.writeDoubleBE(r.timestamp, at + 14);
      buffer.writeUInt16BE(key.length, at + 22);
      key.copy(buffer, at + 24);
      r.value.copy(buffer, at + 24 + key.length);
      buffer.writeUInt32BE(crc32(buffer.subarray(at + FRAME_HEADER, at + FRAME_HEADER + payloadLength)), at + 4);
      if (segment.index.length === 0 || segment.size + at - segment.index[segment.index.length - 1] >= INDEX_EVERY) {
        segment.index.push(offset, segment.size + at);
      }
      at += FRAME_HEADER + payloadLength;
      if (r.timestamp > segment.newest) segment.newest = r.timestamp;
      written.push({ topic: this.topic, partition: this.partition, offset, timestamp: r.timestamp, key: r.key, value: r.value });
    }
    let done = 0;
    while (done < buffer.length) done += writeSync(segment.fd, buffer, done, buffer.length - done, segment.size + done);
    segment.size += bytes;
    return { end: { end: this.writeEnd, segment: segment.base, position: segment.size }, written };
  }

  /** The commit that recorded `end` is durable: make the records visible to consumers. */
  publish(end: LogEnd, written: RawRecord[]): void {
    this.committedEnd = end.end;
    for (const r of written) {
      this.tail.push(r);
      this.tailBytes += r.value.length + 64;
    }
    let drop = 0;
    while (this.tailBytes > TAIL_BYTES && drop < this.tail.length - 1) this.tailBytes -= this.tail[drop++].value.length + 64;
    if (drop) this.tail.splice(0, drop);
  }

  get end(): number {
    return this.committedEnd;
  }

  get start(): number {
    return this.segments[0].base;
  }

  /** Committed records from `from`, at most `max` of them and roughly `maxBytes`. */
  read(from: number, max: number, maxBytes = 8 * 1024 * 1024): RawRecord[] {
    if (from >= this.committedEnd || max <= 0) return [];
    from = Math.max(from, this.start);
    const tailStart = this.tail.length ? this.tail[0].offset : Infinity;
    if (from >= tailStart) {
      const i = from - tailStart;
      return this.tail.slice(i, Math.min(this.tail.length, i + max));
    }
    return this.readFromDisk(from, Math.min(max, this.committedEnd - from), maxBytes);
  }

  /** Offset of the first record with a timestamp at or after `time` (for replay --since). */
  offsetForTime(time: number): number {
    for (const segment of this.segments) {
      if (segment.newest < time) continue;
      for (const r of this.readSegment(segment, segment.base, Infinity, Infinity)) if (r.timestamp >= time) return r.offset;
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
    return deleted;
  }

  close(): void {
    for (const s of this.segments) closeSync(s.fd);
    this.segments = [];
  }

  private readFromDisk(from: number, max: number, maxBytes: number): RawRecord[] {
    let i = this.segments.length - 1;
    while (i > 0 && this.segments[i].base > from) i--;
    const out: RawRecord[] = [];
    let bytes = 0;
    for (; i < this.segments.length && out.length < max && bytes < maxBytes; i++) {
      for (const r of this.readSegment(this.segments[i], from, max - out.length, maxBytes - bytes)) {
        if (r.offset >= this.committedEnd) return out;
        out.push(r);
        bytes += r.value.length;
      }
    }
    return out;
  }

  private *readSegment(segment: Segment, from: number, max: number, maxBytes: number): Generator<RawRecord> {
    let position = 0;
    for (let j = 0; j < segment.index.length; j += 2) {
      if (segment.index[j] > from) break;
      position = segment.index[j + 1];
    }
    const header = Buffer.allocUnsafe(FRAME_HEADER);
    let count = 0;
    let bytes = 0;
    while (position < segment.size && count < max && bytes < maxBytes) {
      readSync(segment.fd, header, 0, FRAME_HEADER, position);
      const length = header.readUInt32BE(0);
      const payload = Buffer.allocUnsafe(length);
      readSync(segment.fd, payload, 0, length, position + FRAME_HEADER);
      position += FRAME_HEADER + length;
      const offset = payload.readUIntBE(0, 6);
      if (offset < from) continue;
      const keyLength = payload.readUInt16BE(14);
      count++;
      bytes += length;
      yield {
        topic: this.topic, partition: this.partition, offset,
        timestamp: payload.readDoubleBE(6),
        key: payload.toString('utf8', 16, 16 + keyLength),
        value: payload.subarray(16 + keyLength),
      };
    }
  }

  /**
   * Rebuilds the sparse index. Only the last segment can hold a torn write, so only its frames are
   * checked against their CRC; a torn or corrupt tail is cut off.
   */
  private scan(segment: Segment, verify: boolean): void {
    const head = Buffer.allocUnsafe(FRAME_HEADER + PAYLOAD_FIXED);
    let position = 0;
    let lastIndexed = -Infinity;
    while (position + head.length <= segment.size) {
      readSync(segment.fd, head, 0, head.length, position);
      const length = head.readUInt32BE(0);
      if (length < PAYLOAD_FIXED || length > MAX_FRAME || position + FRAME_HEADER + length > segment.size) break;
      if (verify) {
        const payload = Buffer.allocUnsafe(length);
        readSync(segment.fd, payload, 0, length, position + FRAME_HEADER);
        if (crc32(payload) !== head.readUInt32BE(4)) break;
      }
      const offset = head.readUIntBE(FRAME_HEADER, 6);
      if (position - lastIndexed >= INDEX_EVERY) {
        segment.index.push(offset, position);
        lastIndexed = position;
      }
      segment.newest = Math.max(segment.newest, head.readDoubleBE(FRAME_HEADER + 6));
      position += FRAME_HEADER + length;
    }
    if (position < segment.size) {
      ftruncateSync(segment.fd, position);
      segment.size = position;
    }
  }

  private createSegment(base: number): Segment {
    const path = this.segmentPath(base);
    const fd = openSync(path, existsSync(path) ? 'r+' : 'w+');
    ftruncateSync(fd, 0);
    return { base, path, fd, size: 0, index: [], newest: 0 };
  }

  private segmentPath(base: number): string {
    return join(this.dir, `${String(base).padStart(20, '0')}.log`);
  }
}
