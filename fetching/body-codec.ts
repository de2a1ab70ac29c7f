// How fetched bodies travel inside `fetched` Avro records. Gzip level 1: on an 18 KB HTML page it costs
// ~0.1-0.15 ms versus ~0.25-0.35 ms at level 6 for a body only ~3% smaller (measured with
// fetching/fetcher-bench.ts --codec), and the fetch stage compresses every page it stores.
import { gunzipSync, gzip, gzipSync } from 'node:zlib';
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

/**
 * Below this size a body is compressed on the event loop. zlib's async path sets up a stream and a
 * fresh deflate state per call: on an 18 KB page it took 136 µs of event-loop time and 360 µs of
 * CPU in all, against 75 µs and 90 µs for gzipSync (measured on the bench machine). Only bodies
 * large enough to hold the loop for milliseconds are worth sending to libuv's thread pool.
 */
export const COMPRESS_ON_LOOP_MAX_BYTES = 256 * 1024;

/** compressBody, on libuv's thread pool for large bodies: the fetch stage must not hold the event loop. */
export async function compressBodyAsync(body: Buffer): Promise<{ encoding: BodyEncoding; bytes: Buffer }> {
  if (body.length <= COMPRESS_ON_LOOP_MAX_BYTES) return compressBody(body);
  const packed = await gzipAsync(body, { level: BODY_GZIP_LEVEL });
  return packed.length < body.length ? { encoding: 'gzip', bytes: packed } : { encoding: 'identity', bytes: body };
}

/**
 * Restores a body stored by compressBody. Never allocates more than maxBytes for the output.
 * @throws Error for an unknown encoding, corrupt gzip data, or a body larger than maxBytes.
 */
export function decompressBody(encoding: string, bytes: Buffer, maxBytes: number): Buffer {
  const limit = Math.max(0, Math.floor(maxBytes));
  if (encoding === 'identity') {
    if (bytes.length > limit) throw new Error(`stored body has ${bytes.length} bytes, more than the ${limit}-byte limit`);
    return bytes;
  }
  if (encoding !== 'gzip') throw new Error(`unknown body encoding "${encoding}" (expected identity or gzip)`);
  try {
    // maxOutputLength makes zlib stop and throw instead of inflating a bomb into memory.
    const out = gunzipSync(bytes, { maxOutputLength: Math.max(1, limit) });
    if (out.length > limit) throw new RangeError('over limit');
    return out;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e instanceof RangeError || e.code === 'ERR_BUFFER_TOO_LARGE') {
      throw new Error(`stored gzip body inflates past the ${limit}-byte limit (${bytes.length} bytes stored)`);
    }
    throw new Error(`stored gzip body is corrupt (${bytes.length} bytes): ${e.message}`);
  }
}
