// After a crash the newest WARC file may end in a partly written capture. This finds the last intact
// record by walking back from the end (so opening costs the size of the last records, not the file),
// cuts everything after it, and reports where the last whole capture came from.
//
// A capture is two members, request then response/revisit, written by one append. A tail that ends
// in a request lost its response, so the request is cut too: a file only ever ends in a warcinfo,
// response or revisit record.
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { WARCParser } from 'warcio';
import { gzipMemberAt, memberCandidates } from './gzip-member.js';
import { memberBounds, parseSource, SOURCE_HEADER, type SourcePosition } from './records.js';

export interface TailRecord {
  type: string;
  start: number;
  end: number;
  source: SourcePosition | undefined;
}

export interface RecoveredFile {
  /** Bytes before recovery. */
  sizeBefore: number;
  /** Bytes kept: the file now ends after `last` (0 when nothing intact was found). */
  size: number;
  /** The last intact warcinfo, response or revisit record, or null. */
  last: TailRecord | null;
}

export class WarcDamagedError extends Error {
  override name = 'WarcDamagedError';
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

/** The record inside a member, if the member holds exactly one whole WARC record. */
async function recordIn(data: Buffer): Promise<{ type: string; source: SourcePosition | undefined } | null> {
  if (!data.subarray(0, 7).equals(Buffer.from('WARC/1.'))) return null;
  const headEnd = data.indexOf(CRLFCRLF);
  if (headEnd < 0) return null;
  let record;
  try {
    record = await new WARCParser([data.subarray(0, headEnd + 4)], { parseHttp: false }).parse();
  } catch {
    return null;
  }
  if (!record) return null;
  const length = Number(record.warcHeader('Content-Length'));
  // The block and the two CRLFs closing the record fill the member exactly: nothing was cut.
  if (!Number.isInteger(length) || headEnd + 4 + length + 4 !== data.length || !data.subarray(-4).equals(CRLFCRLF)) return null;
  return { type: String(record.warcType ?? ''), source: parseSource(record.warcHeader(SOURCE_HEADER)) };
}

/**
 * The last intact record ending at or before `limit`, searching back at most `window` bytes.
 * @throws WarcDamagedError when the window holds no intact record and does not reach the file start
 */
async function lastRecordBefore(fh: FileHandle, path: string, limit: number, window: number, maxInflated: number): Promise<TailRecord | null> {
  const from = Math.max(0, limit - window);
  const buf = Buffer.alloc(limit - from);
  let got = 0;
  while (got < buf.length) {
    const { bytesRead } = await fh.read(buf, got, buf.length - got, from + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  for (const p of memberCandidates(buf, 0, got)) {
    const member = gzipMemberAt(buf.subarray(0, got), p, maxInflated);
    if (!member) continue;
    const record = await recordIn(member.data);
    if (!record) continue;
    return { type: record.type, start: from + p, end: from + member.end, source: record.source };
  }
  if (from > 0) {
    throw new WarcDamagedError(
      `${path}: no intact WARC record in the ${window} bytes before offset ${limit}; ` +
      'this is more than a partly written tail, so nothing was cut. Move the file aside to go on.',
    );
  }
  return null;
}

/**
 * Cuts a partly written tail off a WARC file written by WarcWriter (and fsyncs the cut).
 * @param maxBodyBytes the writer's body bound, which bounds its members and so the backward search
 */
export async function recoverWarcFile(path: string, maxBodyBytes: number): Promise<RecoveredFile> {
  const fh = await open(path, 'r+');
  try {
    const sizeBefore = (await fh.stat()).size;
    // A cut-off member and the whole one before it each fit in bounds.compressed.
    const bounds = memberBounds(maxBodyBytes);
    const window = 2 * bounds.compressed + 64 * 1024;
    let limit = sizeBefore;
    let last: TailRecord | null = null;
    while (limit > 0) {
      const r = await lastRecordBefore(fh, path, limit, window, bounds.inflated);
      if (!r) break;
      if (r.type !== 'request') {
        last = r;
        break;
      }
      limit = r.start;
    }
    const size = last ? last.end : 0;
    if (size < sizeBefore) await fh.truncate(size);
    // Always: a writer reopened after a failed write (no crash) finds its last captures in the page
    // cache, where they may never have been fsynced; they count as written only once durable.
    await fh.sync();
    return { sizeBefore, size, last };
  } finally {
    await fh.close();
  }
}
