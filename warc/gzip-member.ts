// Reads one gzip member (RFC 1952) out of a buffer and says exactly where it ends, which zlib's gunzip
// cannot: it runs on into the next member. The header is parsed here; the deflate data, its end and
// integrity are left to zlib (inflateRaw reports the bytes it consumed) and zlib.crc32.
import { crc32, inflateRawSync } from 'node:zlib';

const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;
const RESERVED = 0xe0;

export interface GzipMember {
  start: number;
  /** Offset just past the member's trailer. */
  end: number;
  data: Buffer;
}

/** Offset just past the gzip header at `start`, or -1 when there is no valid header there. */
function headerEnd(buf: Buffer, start: number): number {
  if (buf.length - start < 10 || buf[start] !== 0x1f || buf[start + 1] !== 0x8b || buf[start + 2] !== 8) return -1;
  const flags = buf[start + 3];
  if (flags & RESERVED) return -1;
  let p = start + 10;
  if (flags & FEXTRA) {
    if (p + 2 > buf.length) return -1;
    p += 2 + buf.readUInt16LE(p);
  }
  for (const bit of [FNAME, FCOMMENT]) {
    if (flags & bit) {
      const zero = buf.indexOf(0, p);
      if (zero < 0) return -1;
      p = zero + 1;
    }
  }
  if (flags & FHCRC) p += 2;
  return p <= buf.length ? p : -1;
}

/**
 * The whole, intact gzip member starting at buf[start], or null when there is none: a bad header,
 * data cut short, a wrong CRC or length, or more than maxOutput bytes once inflated.
 */
export function gzipMemberAt(buf: Buffer, start: number, maxOutput: number): GzipMember | null {
  const body = headerEnd(buf, start);
  if (body < 0) return null;
  let data: Buffer;
  let consumed: number;
  try {
    const r = inflateRawSync(buf.subarray(body), { info: true, maxOutputLength: maxOutput } as never) as unknown as {
      buffer: Buffer;
      engine: { bytesWritten: number };
    };
    data = r.buffer;
    consumed = r.engine.bytesWritten;
  } catch {
    return null; // truncated, corrupt, or over maxOutput
  }
  const trailer = body + consumed;
  if (trailer + 8 > buf.length) return null;
  if (buf.readUInt32LE(trailer) !== crc32(data) || buf.readUInt32LE(trailer + 4) !== data.length % 2 ** 32) return null;
  return { start, end: trailer + 8, data };
}

/** Offsets of possible member starts (the 3 magic bytes) in buf[from, to), last first. */
export function* memberCandidates(buf: Buffer, from: number, to: number): Generator<number> {
  let p = to;
  while (p > from) {
    const i = buf.lastIndexOf(0x1f, p - 1);
    if (i < from) return;
    if (buf[i + 1] === 0x8b && buf[i + 2] === 8) yield i;
    p = i;
  }
}
