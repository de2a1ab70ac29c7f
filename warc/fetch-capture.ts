// A record of `fetched` as a WARC capture: the request as sent, the response as received (headers in
// their order and case), the decoded body as kept, WARC-Truncated when it is not whole, and for a 304
// to a conditional request a revisit naming the URL's earlier capture (its date and payload digest,
// carried from the scheduler's per-URL state through the fetch request).
import base32Encode from 'base32-encode';
import { decompressBodyAsync } from '../fetching/body-codec.js';
import type { FetchResult, HeaderLine as FieldLine } from '../schemas/records.js';
import { CaptureError, TRUNCATION_REASONS, type HeaderLine, type TruncationReason, type WarcCapture } from './capture.js';

/** A fetched record's body never decodes to more than this (the fetched topic's record bound). */
export const MAX_STORED_BODY = 16 * 1024 * 1024;

export type CaptureVerdict =
  | { kind: 'capture'; capture: WarcCapture }
  /** No response arrived (DNS, connect, refused, timeout before headers): nothing to archive. */
  | { kind: 'no-response' };

function lines(list: FieldLine[]): HeaderLine[] {
  return list.map((h) => [h.name, h.value]);
}

/** 'sha1:BASE32' from the hex digest the crawler keeps; undefined when there is none. */
export function payloadDigestOfHex(hex: string): string | undefined {
  if (!/^[0-9a-f]{40}$/i.test(hex)) return undefined;
  return `sha1:${base32Encode(Buffer.from(hex, 'hex'), 'RFC4648')}`;
}

function truncation(r: FetchResult): TruncationReason | undefined {
  if (r.truncation) return (TRUNCATION_REASONS as readonly string[]).includes(r.truncation) ? (r.truncation as TruncationReason) : 'unspecified';
  // Records written before `truncation` existed only say whether our own size cap cut the body.
  return r.truncated ? 'length' : undefined;
}

/**
 * What to archive for one fetch outcome.
 * @throws CaptureError when the record cannot become a capture (a URL that does not parse, a stored
 *   body that does not decode); the caller counts and reports it
 */
export async function captureOfFetch(r: FetchResult): Promise<CaptureVerdict> {
  if (r.status === 0) return { kind: 'no-response' };
  let url: URL;
  try {
    url = new URL(r.url);
  } catch {
    throw new CaptureError(`the fetched URL does not parse: ${r.url.slice(0, 200)}`);
  }
  let body: Buffer;
  try {
    body = await decompressBodyAsync(r.body_encoding, r.body, MAX_STORED_BODY);
  } catch (err) {
    throw new CaptureError(`the stored body of ${r.url.slice(0, 200)} does not decode: ${(err as Error).message}`);
  }
  // Records written before the raw header lists existed have the bounded, lowercased header map.
  const responseHeaders = r.response_headers.length ? lines(r.response_headers) : Object.entries(r.headers).flatMap(([n, v]) => v.split('\n').map((x): HeaderLine => [n, x]));
  const capture: WarcCapture = {
    targetUri: r.url,
    fetchedAt: r.started_at,
    remoteAddress: r.remote_address,
    request: { method: r.request_method || 'GET', path: url.pathname + url.search, httpVersion: '1.1', headers: lines(r.request_headers) },
    response: { httpVersion: r.http_version || '1.1', status: r.status, reason: r.status_text, headers: responseHeaders },
    body,
  };
  const cut = truncation(r);
  if (cut) capture.truncated = cut;
  // A 304 confirms the earlier capture; without its date (a URL first fetched before the date was
  // kept) there is nothing to refer to, and the 304 is written as the response it is.
  if (r.status === 304 && r.previous_captured_at > 0) {
    capture.revisit = { refersToTargetUri: r.url, refersToDate: r.previous_captured_at, payloadDigest: payloadDigestOfHex(r.previous_sha1) };
  }
  return { kind: 'capture', capture };
}
