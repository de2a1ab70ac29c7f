// Deterministic captures for the warc/ tests: each source offset always yields the same capture, so
// a test can tell from a file alone whether offset N was written, and written right.
import { createCipheriv, createHash } from 'node:crypto';
import type { WarcCapture } from '../capture.js';

export const BASE_TIME = Date.UTC(2024, 0, 2, 3, 4, 5, 678);

/** Offsets that stand for records without a capture (e.g. DNS failures): never written. */
export function hasCapture(offset: number): boolean {
  return offset % 5 !== 4;
}

/** Bytes that do not compress (AES-CTR keystream of the seed), so some captures are large on disk too. */
export function noise(seed: number, length: number): Buffer {
  const key = createHash('sha256').update(`noise:${seed}`).digest().subarray(0, 16);
  const cipher = createCipheriv('aes-128-ctr', key, Buffer.alloc(16));
  return Buffer.concat([cipher.update(Buffer.alloc(length)), cipher.final()]);
}

export function bodyFor(offset: number): Buffer {
  const text = Buffer.from(`<html><body>page ${offset}</body></html>\n`);
  return offset % 7 === 0 ? Buffer.concat([text, noise(offset, 64 * 1024)]) : text;
}

export function captureFor(offset: number): WarcCapture {
  const url = `http://site-${offset % 3}.test/page/${offset}?q=${offset}`;
  const fetchedAt = BASE_TIME + offset * 1000;
  const request = {
    method: 'GET',
    path: `/page/${offset}?q=${offset}`,
    httpVersion: '1.1',
    headers: [['user-agent', 'crawlstream-test/1.0'], ['accept', 'text/html'], ['accept-encoding', 'gzip, deflate, br']] as [string, string][],
  };
  if (offset % 6 === 5) {
    request.headers.push(['if-none-match', `"v${offset}"`]);
    return {
      targetUri: url, fetchedAt, remoteAddress: '127.0.0.1', request,
      response: { httpVersion: '1.1', status: 304, reason: 'Not Modified', headers: [['ETag', `"v${offset}"`], ['Date', new Date(fetchedAt).toUTCString()]] },
      body: Buffer.alloc(0),
      revisit: { refersToTargetUri: url, refersToDate: fetchedAt - 86_400_000, payloadDigest: 'sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    };
  }
  const body = bodyFor(offset);
  return {
    targetUri: url, fetchedAt, remoteAddress: '127.0.0.1', request,
    response: {
      httpVersion: '1.1', status: 200, reason: 'OK',
      headers: [['Content-Type', 'text/html; charset=utf-8'], ['Content-Encoding', 'gzip'], ['Content-Length', '99'], ['Set-Cookie', 'a=1'], ['Set-Cookie', 'b=2']],
    },
    body,
    ...(offset % 8 === 3 ? { truncated: 'length' as const } : {}),
  };
}
