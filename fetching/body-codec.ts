// How fetched bodies travel inside `fetched` Avro records. Gzip level 1: on an 18 KB HTML page it costs
// ~0.1-0.15 ms versus ~0.25-0.35 ms at level 6 for a body only ~3% smaller (measured with
// fetching/fetcher-bench.ts --codec), and the fetch stage compresses every page it stores.
import { gunzip, gunzipSync, gzip, gzipSync } from 'node:zlib';
import { promisify } from 'node:util';

export type BodyEncoding = 'identity' | 'gzip';

/** Bodies at or below this size are stored as they are: gzip's 18-byte frame would eat the gain. */
export const COMPRESS_MIN_BYTES = 1024;
export const BODY_GZIP_LEVEL = 1;

export function compressBody(body: Buffer): { encoding: BodyEncoding; bytes: Buffer } {
  if (body.length <= COMPRESS_MIN_BYTES) return { encoding: 'identity', bytes: body };
  const packed = gzipSync(body, { level: BODY_GZIP_LEVEL });
  // Already-compressed media (images, archives) grows under gzip; keep whichever is smaller.
  return packed.length < body.length ? { encoding: 'gzip', bytes: packed } : { encoding: 'identity', bytes: body };
}

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * compressBody on libuv's thread pool: the fetch stage compresses every page and must not hold the
 * event loop. The async path has a fixed cost (~140 µs of event-loop time per call, for setting up a
 * stream and a deflate state), but gzip of a bench page (18 KB of varied text) takes 240-330 µs, and
 * the event loop is the embedded crawl's bottleneck: compressing there measured no faster.
 */
export async function compressBodyAsync(body: Buffer): Promise<{ encoding: BodyEncoding; bytes: Buffer }> {
  if (body.length <= COMPRESS_MIN_BYTES) return { encoding: 'identity', bytes: body };
  const packed = await gzipAsync(body, { level: BODY_GZIP_LEVEL });
  return packed.length < body.length ? { encoding: 'gzip', bytes: packed } : { encoding: 'identity', bytes: body };
}

/**
 * Restores a body stored by compressBody. Never allocates more than maxBytes for the output.
 * @throws Error for an unknown encoding, corrupt gzip data, or a body larger than maxBytes.
 */
export function decompressBody(encoding: string, bytes: Buffer, maxBytes: number): Buffer {
  const limit = checkStored(encoding, bytes, maxBytes);
  if (encoding === 'identity') return bytes;
  try {
    // maxOutputLength makes zlib stop and throw instead of inflating a bomb into memory.
    return checkInflated(gunzipSync(bytes, { maxOutputLength: Math.max(1, limit) }), limit);
  } catch (err) {
    throw inflateError(err, bytes, limit);
  }
}

/** decompressBody on libuv's thread pool, for readers of many bodies (the WARC writer). */
export async function decompressBodyAsync(encoding: string, bytes: Buffer, maxBytes: number): Promise<Buffer> {
  const limit = checkStored(encoding, bytes, maxBytes);
  if (encoding === 'identity') return bytes;
  try {
    return checkInflated(await gunzipAsync(bytes, { maxOutputLength: Math.max(1, limit) }), limit);
  } catch (err) {
    throw inflateError(err, bytes, limit);
  }
}

function checkStored(encoding: string, bytes: Buffer, maxBytes: number): number {
  const limit = Math.max(0, Math.floor(maxBytes));
  if (encoding === 'identity') {
    if (bytes.length > limit) throw new Error(`stored body has ${bytes.length} bytes, more than the ${limit}-byte limit`);
  } else if (encoding !== 'gzip') {
    throw new Error(`unknown body encoding "${encoding}" (expected identity or gzip)`);
  }
  return limit;
}

function checkInflated(out: Buffer, limit: number): Buffer {
  if (out.length > limit) throw new RangeError('over limit');
  return out;
}

function inflateError(err: unknown, bytes: Buffer, limit: number): Error {
  const e = err as NodeJS.ErrnoException;
  if (e instanceof RangeError || e.code === 'ERR_BUFFER_TOO_LARGE') {
    return new Error(`stored gzip body inflates past the ${limit}-byte limit (${bytes.length} bytes stored)`);
  }
  return new Error(`stored gzip body is corrupt (${bytes.length} bytes): ${e.message}`);
}
