// Reads a segment file front to back in large chunks, checking every frame: its header, its CRC and
// that offsets follow on from the segment's base. Used when a log is opened, so that damage is found
// and reported before anything reads past it (a truncated or corrupt segment used to be read as if
// it simply ended, and readers then waited for offsets that would never appear).
import { readSync } from 'node:fs';
import { FRAME_HEADER, frameHead, frameIntact, payloadLength } from './frame.js';

export const INDEX_EVERY = 64 * 1024;
const CHUNK = 1024 * 1024;

export interface Gap {
  from: number;
  /** Exclusive. */
  to: number;
  cause: string;
}

export interface CommittedScan {
  /** Sparse index, [offset, byte position] pairs, with an entry after every gap so reads skip it. */
  index: number[];
  newest: number;
  /** Byte position after the last intact frame: what may be read. */
  readableEnd: number;
  /** Offset after the last intact frame (the base when there is none). */
  next: number;
  /** Offsets missing between intact frames (damaged frames, or a hole left by earlier damage). */
  gaps: Gap[];
  /** Why reading stopped before `limit`, if it did. */
  broken?: string;
}

export interface TailScan {
  /** Intact frames past the committed end, and the commit rounds that wrote them. */
  records: number;
  newestRound: number;
  oldestRound: number;
}

/** Sequential reader of one file with a moving window; frames larger than the window get their own buffer. */
class Window {
  buf = Buffer.allocUnsafe(CHUNK);
  private start = 0;
  private end = 0;

  constructor(private readonly fd: number, private readonly size: number) {}

  /** Makes bytes [pos, pos + n) available (the caller checked they exist) and returns where they start in `buf`. */
  at(pos: number, n: number): number {
    if (pos >= this.start && pos + n <= this.end) return pos - this.start;
    if (n > this.buf.length) this.buf = Buffer.allocUnsafe(n);
    const want = Math.min(this.buf.length, this.size - pos);
    let got = 0;
    while (got < want) {
      const read = readSync(this.fd, this.buf, got, want - got, pos + got);
      if (read === 0) break;
      got += read;
    }
    this.start = pos;
    this.end = pos + got;
    if (got < n) throw new Error(`segment file shrank while being read (wanted ${n} bytes at ${pos}, got ${got})`);
    return 0;
  }
}

type Frame = { ok: true; length: number; offset: number; round: number; timestamp: number } | { ok: false; cause: string };

function frameAt(w: Window, pos: number, limit: number): Frame {
  if (limit - pos < FRAME_HEADER) return { ok: false, cause: `a torn frame header at byte ${pos}` };
  const length = payloadLength(w.buf, w.at(pos, FRAME_HEADER));
  if (length < 0) return { ok: false, cause: `an unreadable frame header at byte ${pos}` };
  if (pos + FRAME_HEADER + length > limit) return { ok: false, cause: `a frame at byte ${pos} that runs past byte ${limit}` };
  const i = w.at(pos, FRAME_HEADER + length);
  if (!frameIntact(w.buf, i, length)) return { ok: false, cause: `a damaged frame (CRC mismatch) at byte ${pos}` };
  return { ok: true, length, ...frameHead(w.buf, i) };
}

/**
 * Checks the committed part of a segment, bytes [0, limit): every frame intact and offsets rising
 * from `base`; offsets at or past `endOffset` belong elsewhere (the next segment, or past the
 * committed end) and end the scan.
 */
export function scanCommitted(fd: number, size: number, base: number, limit: number, endOffset: number): CommittedScan {
  const w = new Window(fd, size);
  const scan: CommittedScan = { index: [], newest: 0, readableEnd: 0, next: base, gaps: [] };
  let pos = 0;
  let lastIndexed = -Infinity;
  limit = Math.min(limit, size);
  while (pos < limit) {
    let frame = frameAt(w, pos, limit);
    if (!frame.ok) {
      // A damaged payload under an intact length: if the frame after it is sound, only this one is lost.
      const header = limit - pos >= FRAME_HEADER ? payloadLength(w.buf, w.at(pos, FRAME_HEADER)) : -1;
      const after = header >= 0 && pos + FRAME_HEADER + header < limit ? frameAt(w, pos + FRAME_HEADER + header, limit) : undefined;
      if (!after?.ok || after.offset <= scan.next || after.offset >= endOffset) {
        scan.broken = frame.cause;
        break;
      }
      scan.gaps.push({ from: scan.next, to: after.offset, cause: frame.cause });
      scan.next = after.offset;
      pos += FRAME_HEADER + header;
      lastIndexed = -Infinity;
      frame = after;
    }
    if (frame.offset < scan.next) {
      scan.broken = `offset ${frame.offset} at byte ${pos} where ${scan.next} was expected`;
      break;
    }
    if (frame.offset >= endOffset) break;
    if (frame.offset > scan.next) {
      scan.gaps.push({ from: scan.next, to: frame.offset, cause: `offsets missing before byte ${pos} (a hole left by earlier damage)` });
      lastIndexed = -Infinity;
    }
    if (pos - lastIndexed >= INDEX_EVERY) {
      scan.index.push(frame.offset, pos);
      lastIndexed = pos;
    }
    if (frame.timestamp > scan.newest) scan.newest = frame.timestamp;
    scan.next = frame.offset + 1;
    pos += FRAME_HEADER + frame.length;
    scan.readableEnd = pos;
  }
  return scan;
}

/** Counts the intact frames in bytes [from, size) (written after the last commit) and their rounds. */
export function scanTail(fd: number, size: number, from: number): TailScan {
  const w = new Window(fd, size);
  const tail: TailScan = { records: 0, newestRound: 0, oldestRound: Infinity };
  for (let pos = from; pos < size; ) {
    const frame = frameAt(w, pos, size);
    if (!frame.ok) break; // a torn write: the interrupted append ends here
    tail.records++;
    tail.newestRound = Math.max(tail.newestRound, frame.round);
    tail.oldestRound = Math.min(tail.oldestRound, frame.round);
    pos += FRAME_HEADER + frame.length;
  }
  return tail;
}
