// Records read back from a segment file, for readers behind a log's in-memory tail: frames are read
// a chunk at a time (one system call per chunk, not two per record) and values are views into the
// chunk, unless the read used little of it (see compactValues).
import { readSync } from 'node:fs';
import type { RawRecord } from '../task/task-records.js';
import { FRAME_HEADER, frameOffset, frameRecord, payloadLength } from './frame.js';

/** Bytes read from a segment at a time by a reader that fell behind the tail. */
const READ_CHUNK = 256 * 1024;
/** Read past a read's byte budget: frame headers, keys, and frames before `from` since the last index entry. */
const READ_SLACK = 64 * 1024;

/** A segment file of a partition log, as the log holds it open. */
export interface Segment {
  base: number;
  path: string;
  fd: number;
  /** Readable bytes (for the last segment, also where the next append goes). */
  size: number;
  /** Sparse index: [offset, byte position] every INDEX_EVERY bytes and after every gap. */
  index: number[];
  /** Newest record timestamp, for time-based retention. */
  newest: number;
}

export interface ReadLimits {
  from: number;
  max: number;
  /** Bytes of payload the read may take (it takes at least one record). */
  maxBytes: number;
  /** Counts the bytes of chunks read, for compactValues. */
  chunks?: { bytes: number };
}

/**
 * Hands `visit` the segment's records from `o.from`, within the read's limits, until it returns false.
 * A loop with a callback, not a generator: a reader behind the tail takes every record this way, and a
 * generator's resumption and result object cost more than decoding the frame.
 */
export function readSegment(topic: string, partition: number, segment: Segment, o: ReadLimits, visit: (r: RawRecord) => boolean): void {
  const { from, max, maxBytes } = o;
  let position = 0;
  for (let j = 0; j < segment.index.length; j += 2) {
    if (segment.index[j] > from) break;
    position = segment.index[j + 1];
  }
  let chunk: Buffer = Buffer.alloc(0);
  let chunkAt = 0; // file position of chunk[0]
  let count = 0;
  let bytes = 0;
  while (position + FRAME_HEADER <= segment.size && count < max && bytes < maxBytes) {
    if (position + FRAME_HEADER > chunkAt + chunk.length) [chunk, chunkAt] = [readChunk(segment, position, FRAME_HEADER, maxBytes - bytes, o.chunks), position];
    if (position + FRAME_HEADER > chunkAt + chunk.length) return; // the file is shorter than written: checked at open, cannot happen unless changed since
    const length = payloadLength(chunk, position - chunkAt);
    if (length < 0 || position + FRAME_HEADER + length > segment.size) return;
    const frameEnd = position + FRAME_HEADER + length;
    if (frameEnd > chunkAt + chunk.length) [chunk, chunkAt] = [readChunk(segment, position, FRAME_HEADER + length, maxBytes - bytes, o.chunks), position];
    if (frameEnd > chunkAt + chunk.length) return;
    const at = position - chunkAt;
    position = frameEnd;
    if (frameOffset(chunk, at) < from) continue;
    count++;
    bytes += length;
    if (!visit(frameRecord(chunk, at, length, topic, partition))) return;
  }
}

/**
 * At least `need` bytes of the segment from `position`; more, when the file has them, up to what the
 * read's byte budget may still take (and READ_CHUNK): a task with little room left read 256 KB
 * chunks for a few records each, and its queued records pinned every one of them.
 */
function readChunk(segment: Segment, position: number, need: number, budget: number, chunks?: { bytes: number }): Buffer {
  const size = Math.min(Math.max(need, Math.min(READ_CHUNK, budget + READ_SLACK)), segment.size - position);
  const chunk = Buffer.allocUnsafe(size);
  if (chunks) chunks.bytes += size;
  let done = 0;
  while (done < size) {
    const n = readSync(segment.fd, chunk, done, size - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done === size ? chunk : chunk.subarray(0, done);
}

/**
 * The records' values copied into one buffer of their size: values read from disk are views into
 * chunks, and a read that used little of its chunks would keep them whole for as long as a record
 * waits in a task's queue.
 */
export function compactValues(records: RawRecord[], bytes: number): RawRecord[] {
  const into = Buffer.allocUnsafeSlow(bytes);
  let at = 0;
  for (const r of records) {
    r.value.copy(into, at);
    r.value = into.subarray(at, at + r.value.length);
    at += r.value.length;
  }
  return records;
}
