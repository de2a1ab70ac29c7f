// What one fetch must tell the WARC writer, and the checks and rewrites applied before it is written.
// The body is stored decoded, so the HTTP head is rewritten to describe what is stored: the headers
// that described the wire form (Content-Encoding, Transfer-Encoding, Content-Length) are kept under an
// X-Crawler- prefix and a true Content-Length is added, as StormCrawler's WARC writer does.
import { createHash } from 'node:crypto';
import base32Encode from 'base32-encode';

/** WARC 1.1 section 5.13 values. */
export type TruncationReason = 'length' | 'time' | 'disconnect' | 'unspecified';
export const TRUNCATION_REASONS: readonly TruncationReason[] = ['length', 'time', 'disconnect', 'unspecified'];

/** One header line, in the order it was sent or received; repeated names are separate entries. */
export type HeaderLine = [name: string, value: string];

export interface WarcCapture {
  /** The URI that was requested (WARC-Target-URI). */
  targetUri: string;
  /** When the request was sent: epoch ms or a Date (WARC-Date of both records). */
  fetchedAt: number | Date;
  /** The server's address (WARC-IP-Address); '' or absent when unknown. */
  remoteAddress?: string;
  request: {
    method: string;
    /** The request-target as sent: path and query, e.g. '/a?b=1'. */
    path: string;
    /** '1.1' or 'HTTP/1.1'. */
    httpVersion: string;
    /** Headers as sent, including Host (added from targetUri when missing). */
    headers: HeaderLine[];
  };
  response: {
    httpVersion: string;
    status: number;
    /** Reason phrase as received ('' is allowed). */
    reason: string;
    /** Response headers as kept, in received order. */
    headers: HeaderLine[];
  };
  /** The decoded body as stored (empty for a 304). */
  body: Uint8Array;
  /** Set when the body is cut short. */
  truncated?: TruncationReason;
  /** For a 304 to a conditional request: written as a revisit (profile server-not-modified). */
  revisit?: {
    refersToTargetUri: string;
    /** WARC-Date of the earlier capture: epoch ms, a Date or an ISO string. */
    refersToDate: number | Date | string;
    /** Payload digest of the earlier capture ('sha1:BASE32'), when known. */
    payloadDigest?: string;
  };
}

/** Headers whose values describe the wire form of the body, which is not what the record stores. */
const WIRE_HEADERS = new Set(['content-encoding', 'transfer-encoding', 'content-length']);
export const REWRITE_PREFIX = 'X-Crawler-';
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export class CaptureError extends Error {
  override name = 'CaptureError';
}

/** sha1 in base32, as Heritrix and warcio write WARC-Payload-Digest. */
export function payloadDigest(body: Uint8Array): string {
  return `sha1:${base32Encode(createHash('sha1').update(body).digest(), 'RFC4648')}`;
}

/** WARC-Truncated for a fetch cut short, from the fetcher's error kind (see fetching/response-collector.ts). */
export function truncationReason(errorKind: string): TruncationReason {
  switch (errorKind) {
    case 'body-too-large':
    case 'decompression-bomb':
      return 'length';
    case 'timeout':
      return 'time';
    case 'aborted':
    case 'connect':
    case 'protocol':
      return 'disconnect';
    default:
      return 'unspecified';
  }
}

export function isoDate(when: number | Date | string, what: string): string {
  const d = when instanceof Date ? when : new Date(when);
  if (Number.isNaN(d.getTime())) throw new CaptureError(`${what} is not a valid date: ${String(when).slice(0, 60)}`);
  return d.toISOString();
}

export function httpVersion(v: string, what: string): string {
  const m = /^(?:HTTP\/)?(\d(?:\.\d)?)$/i.exec(String(v ?? '').trim());
  if (!m) throw new CaptureError(`${what} must be like '1.1' or 'HTTP/1.1', got '${String(v).slice(0, 40)}'`);
  return `HTTP/${m[1]}`;
}

function oneLine(text: string, what: string, max = 8192): string {
  const s = String(text ?? '');
  if (s === '' || /[\s\0]/.test(s) || s.length > max) {
    throw new CaptureError(`${what} must be a non-empty token without spaces or line breaks (at most ${max} chars), got '${s.slice(0, 80)}'`);
  }
  return s;
}

/**
 * A header list safe to serialize: a line break inside a value would start a forged header, so
 * control characters become spaces, and characters a header name may not hold become '_'. Two quirks
 * of warcio.js's header map are avoided too: it splits values at ',,,' and throws on a repeated name
 * beginning with 'WARC-', so runs of commas get spaces and such repeats are joined into one line.
 * Returns how many lines were changed so the caller can count them.
 */
export function cleanHeaders(lines: HeaderLine[], what: string): { headers: HeaderLine[]; changed: number } {
  if (!Array.isArray(lines)) throw new CaptureError(`${what} must be an array of [name, value] pairs`);
  let changed = 0;
  const headers: HeaderLine[] = [];
  const warcNamed = new Map<string, HeaderLine>();
  for (const line of lines) {
    if (!Array.isArray(line) || line.length !== 2) throw new CaptureError(`${what} holds an entry that is not a [name, value] pair`);
    const name = String(line[0]).trim();
    const value = String(line[1]);
    const cleanName = TOKEN.test(name) ? name : name.replace(/[^!#$%&'*+.^_`|~0-9A-Za-z-]/g, '_') || '_';
    const cleanValue = value.replace(/[\0-\x08\x0a-\x1f\x7f]/g, ' ').replace(/,{3,}/g, (m) => m.split('').join(' ')).trim();
    if (cleanName !== name || cleanValue !== value.trim()) changed++;
    const earlier = cleanName.toLowerCase().startsWith('warc-') ? warcNamed.get(cleanName) : undefined;
    if (earlier) {
      earlier[1] = `${earlier[1]}, ${cleanValue}`;
      changed++;
      continue;
    }
    const entry: HeaderLine = [cleanName, cleanValue];
    if (cleanName.toLowerCase().startsWith('warc-')) warcNamed.set(cleanName, entry);
    headers.push(entry);
  }
  return { headers, changed };
}

/** Response headers describing the stored body: wire-form headers renamed, a true Content-Length added. */
export function rewriteResponseHeaders(lines: HeaderLine[], bodyLength: number): HeaderLine[] {
  const out: HeaderLine[] = [];
  for (const [name, value] of lines) {
    out.push(WIRE_HEADERS.has(name.toLowerCase()) ? [REWRITE_PREFIX + name, value] : [name, value]);
  }
  out.push(['Content-Length', String(bodyLength)]);
  return out;
}

/** Throws a CaptureError naming the first field that makes the capture unwritable. */
export function checkCapture(c: WarcCapture): void {
  if (!c || typeof c !== 'object') throw new CaptureError('capture must be an object');
  oneLine(c.targetUri, 'targetUri');
  isoDate(c.fetchedAt, 'fetchedAt');
  if (c.remoteAddress && !/^[0-9a-fA-F:.]+$/.test(c.remoteAddress)) {
    throw new CaptureError(`remoteAddress must be an IP address, got '${String(c.remoteAddress).slice(0, 60)}'`);
  }
  if (!c.request || !c.response) throw new CaptureError('capture needs request and response');
  if (!TOKEN.test(String(c.request.method))) throw new CaptureError(`request.method is not a token: '${String(c.request.method).slice(0, 20)}'`);
  oneLine(c.request.path, 'request.path');
  httpVersion(c.request.httpVersion, 'request.httpVersion');
  httpVersion(c.response.httpVersion, 'response.httpVersion');
  if (!Number.isInteger(c.response.status) || c.response.status < 100 || c.response.status > 999) {
    throw new CaptureError(`response.status must be a 3-digit HTTP status, got ${c.response.status}`);
  }
  if (!(c.body instanceof Uint8Array)) throw new CaptureError('body must be a Uint8Array (the decoded body)');
  if (c.truncated !== undefined && !TRUNCATION_REASONS.includes(c.truncated)) {
    throw new CaptureError(`truncated must be one of ${TRUNCATION_REASONS.join(', ')}, got '${c.truncated}'`);
  }
  if (c.revisit) {
    oneLine(c.revisit.refersToTargetUri, 'revisit.refersToTargetUri');
    isoDate(c.revisit.refersToDate, 'revisit.refersToDate');
    if (c.revisit.payloadDigest !== undefined && !/^[a-z0-9-]+:[A-Za-z0-9+/=]+$/.test(c.revisit.payloadDigest)) {
      throw new CaptureError(`revisit.payloadDigest must look like 'sha1:BASE32', got '${String(c.revisit.payloadDigest).slice(0, 60)}'`);
    }
  }
}
