// Builds the WARC/1.1 records of one capture with warcio.js, each serialized as its own gzip member so
// a reader can seek to any record and a crash can only damage the member being written.
import { createHash, randomUUID } from 'node:crypto';
import { URL } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';
import {
  CaptureError, checkCapture, cleanHeaders, httpVersion, isoDate, rewriteResponseHeaders, type HeaderLine, type WarcCapture,
} from './capture.js';

export const WARC_VERSION = 'WARC/1.1';
/** Where a record came from: `topic/partition@offset`; read back after a crash to resume exactly once. */
export const SOURCE_HEADER = 'WARC-Crawlstream-Source';
export const SERVER_NOT_MODIFIED = 'http://netpreserve.org/warc/1.1/revisit/server-not-modified';
const DIGEST = { algo: 'sha-1', prefix: 'sha1:', base32: true } as const;

/** Bound on the header lines of one record (WARC and HTTP heads together). */
export const MAX_HEAD_BYTES = 64 * 1024;

/**
 * Size bounds of one gzip member for a body bound: recovery searches back this far, so the writer
 * must never write a bigger member. Deflate grows incompressible data by at most ~0.1% plus a few bytes.
 */
export function memberBounds(maxBodyBytes: number): { inflated: number; compressed: number } {
  const inflated = maxBodyBytes + MAX_HEAD_BYTES;
  return { inflated, compressed: inflated + Math.ceil(inflated / 500) + 1024 };
}

export interface SourcePosition {
  topic: string;
  partition: number;
  offset: number;
}

export function formatSource(s: SourcePosition): string {
  return `${s.topic}/${s.partition}@${s.offset}`;
}

export function parseSource(text: string | null | undefined): SourcePosition | undefined {
  const m = /^([A-Za-z0-9._-]+)\/(\d+)@(\d+)$/.exec(String(text ?? ''));
  return m ? { topic: m[1], partition: Number(m[2]), offset: Number(m[3]) } : undefined;
}

function recordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/**
 * warcio.js hashes with hash-wasm, instantiating WebAssembly for every digest (about half the cost
 * of a record); node:crypto's sha1 gives the same digest at a fraction of it.
 */
class NodeHashSerializer extends WARCSerializer {
  override async newHasher(): Promise<any> {
    const hash = createHash('sha1');
    return {
      update(data: Uint8Array) {
        hash.update(data);
        return this;
      },
      digest(type: string) {
        const d = hash.digest();
        return type === 'binary' ? new Uint8Array(d) : d.toString('hex');
      },
    };
  }
}

const gzipAsync = promisify(gzip);

/** One record as one gzip member; compressed by zlib on the thread pool, off the event loop. */
async function serialize(record: WARCRecord): Promise<Buffer> {
  const bytes = await new NodeHashSerializer(record, { gzip: false, digest: { ...DIGEST } }).readFully();
  return gzipAsync(bytes);
}

export interface WarcinfoFields {
  software: string;
  operator: string;
  [field: string]: string;
}

export async function warcinfoRecord(filename: string, date: number, fields: WarcinfoFields): Promise<{ id: string; bytes: Buffer }> {
  const id = recordId();
  const info: Record<string, string> = {
    format: 'WARC File Format 1.1',
    conformsTo: 'http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/',
  };
  for (const [k, v] of Object.entries(fields)) {
    if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(k)) throw new TypeError(`warcinfo field name '${k}' is not a token`);
    info[k] = String(v).replace(/[\r\n]+/g, ' ');
  }
  const record = WARCRecord.createWARCInfo(
    { filename, warcVersion: WARC_VERSION, date: isoDate(date, 'warcinfo date'), warcHeaders: [['WARC-Record-ID', id]] },
    info,
  );
  return { id, bytes: await serialize(record) };
}

export interface CaptureRecords {
  /** The request member followed by the response or revisit member. */
  bytes: Buffer;
  type: 'response' | 'revisit';
  /** WARC-Payload-Digest written for the response; for a revisit, the earlier capture's when known. */
  payloadDigest: string | undefined;
  /** Header lines that had to be cleaned (control characters, invalid names). */
  headersCleaned: number;
}

function headBytes(lines: HeaderLine[]): number {
  return lines.reduce((n, [name, value]) => n + Buffer.byteLength(name) + Buffer.byteLength(value) + 4, 0);
}

/** @throws CaptureError when the capture cannot be written as given (invalid, or over the size bounds) */
export async function captureRecords(
  capture: WarcCapture,
  source: SourcePosition,
  warcinfoId: string,
  maxBodyBytes: number,
): Promise<CaptureRecords> {
  checkCapture(capture);
  if (capture.body.length > maxBodyBytes) {
    throw new CaptureError(`body of ${capture.body.length} bytes is over the writer's maxBodyBytes (${maxBodyBytes}) for ${capture.targetUri.slice(0, 200)}`);
  }
  const date = isoDate(capture.fetchedAt, 'fetchedAt');
  const url = capture.targetUri;
  const common: [string, string][] = [];
  if (capture.remoteAddress) common.push(['WARC-IP-Address', capture.remoteAddress]);
  common.push(['WARC-Warcinfo-ID', warcinfoId], [SOURCE_HEADER, formatSource(source)]);

  const req = cleanHeaders(capture.request.headers, 'request.headers');
  const reqHeaders = withHost(req.headers, url);
  const requestId = recordId();
  const request = WARCRecord.create({
    type: 'request', url, date, warcVersion: WARC_VERSION,
    // Listed first so WARC-Type, -Record-ID, -Date and -Target-URI lead the block in this order.
    warcHeaders: [['WARC-Type', 'request'], ['WARC-Record-ID', requestId], ['WARC-Date', date], ['WARC-Target-URI', url], ...common],
    statusline: `${capture.request.method} ${capture.request.path} ${httpVersion(capture.request.httpVersion, 'request.httpVersion')}`,
    httpHeaders: reqHeaders,
  }, []);

  const resp = cleanHeaders(capture.response.headers, 'response.headers');
  // Half the bound per HTTP head leaves room for the WARC head (URIs are bounded by checkCapture).
  for (const [lines, what] of [[reqHeaders, 'request'], [resp.headers, 'response']] as const) {
    if (headBytes(lines) > MAX_HEAD_BYTES / 2 - 1024) {
      throw new CaptureError(`${what} headers of ${capture.targetUri.slice(0, 200)} take over ${MAX_HEAD_BYTES / 2 - 1024} bytes`);
    }
  }
  const reason = String(capture.response.reason ?? '').replace(/[\r\n\0]/g, ' ').trim();
  const statusline = `${httpVersion(capture.response.httpVersion, 'response.httpVersion')} ${capture.response.status}${reason ? ` ${reason}` : ''}`;
  const head: [string, string][] = [['WARC-Type', ''], ['WARC-Record-ID', recordId()], ['WARC-Date', date], ['WARC-Target-URI', url]];
  let response: WARCRecord;
  let type: 'response' | 'revisit';
  if (capture.revisit) {
    type = 'revisit';
    const rv = capture.revisit;
    head.push(['WARC-Profile', SERVER_NOT_MODIFIED]);
    head.push(['WARC-Refers-To-Target-URI', rv.refersToTargetUri], ['WARC-Refers-To-Date', isoDate(rv.refersToDate, 'revisit.refersToDate')]);
    if (rv.payloadDigest) head.push(['WARC-Payload-Digest', rv.payloadDigest]);
    head.push(['WARC-Concurrent-To', requestId], ...common);
    // A 304 has no body, so its headers still describe the earlier capture truthfully: kept as received.
    response = WARCRecord.create({
      type, url, date, warcVersion: WARC_VERSION, warcHeaders: head, statusline, httpHeaders: resp.headers,
      refersToUrl: rv.refersToTargetUri, refersToDate: isoDate(rv.refersToDate, 'revisit.refersToDate'),
    }, []);
    // warcio.js sets the identical-payload-digest profile for every revisit; ours is server-not-modified.
    response.warcHeaders.headers.set('WARC-Profile', SERVER_NOT_MODIFIED);
  } else {
    type = 'response';
    head.push(['WARC-Concurrent-To', requestId]);
    if (capture.truncated) head.push(['WARC-Truncated', capture.truncated]);
    head.push(...common);
    response = WARCRecord.create({
      type, url, date, warcVersion: WARC_VERSION, warcHeaders: head, statusline,
      httpHeaders: rewriteResponseHeaders(resp.headers, capture.body.length),
    }, capture.body.length ? [capture.body] : []);
  }
  const bytes = Buffer.concat([await serialize(request), await serialize(response)]);
  return {
    bytes,
    type,
    payloadDigest: response.warcPayloadDigest ?? undefined,
    headersCleaned: req.changed + resp.changed,
  };
}

/** HTTP/1.1 requests carry Host; the fetcher's list may lack it because undici adds it on the wire. */
function withHost(headers: HeaderLine[], targetUri: string): HeaderLine[] {
  if (headers.some(([n]) => n.toLowerCase() === 'host')) return headers;
  try {
    return [['Host', new URL(targetUri).host], ...headers];
  } catch {
    return headers;
  }
}
