// How fetched bodies travel inside `fetched` Avro records. New bodies are LZ4 blocks (lz4-napi: a
// prebuilt binary from the npm registry, no build step), preceded by their size as 4 bytes
// little-endian (the layout of lz4_flex's compress_prepend_size and python-lz4's store_size). On an
// 18 KB bench page LZ4 costs ~0.1 ms of CPU to compress and ~0.02 ms to restore, where gzip level 1
// cost ~0.45 ms and ~0.1 ms (fetching/fetcher-bench.ts --codec); it keeps less (1.5x against 2.2x on
// bench pages, 3-4x against 5-6x on real HTML), which the 7-day `fetched` log can afford. Gzip bodies
// written before stay readable, and are written still where lz4-napi has no binary for the platform.
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { gunzip, gunzipSync, gzip, gzipSync } from 'node:zlib';

export type BodyEncoding = 'identity' | 'gzip' | 'lz4';

/** Bodies at or below this size are stored as they are: a frame would eat the gain. */
export const COMPRESS_MIN_BYTES = 1024;
export const BODY_GZIP_LEVEL = 1;
/** The block size LZ4 writes before the block. */
const LZ4_SIZE_BYTES = 4;

interface Lz4 {
  compressSync(data: Buffer): Buffer;
  compress(data: Uint8Array): Promise<Buffer>;
  uncompressSync(data: Uint8Array): Buffer;
  uncompress(data: Uint8Array): Promise<Buffer>;
}

let lz4Module: Lz4 | null | undefined;
let lz4Error = '';

/** lz4-napi, or null (with lz4Error saying why) on a platform it ships no binary for. */
function lz4(): Lz4 | null {
  if (lz4Module !== undefined) return lz4Module;
  try {
    lz4Module = createRequire(import.meta.url)('lz4-napi') as Lz4;
  } catch (err) {
    lz4Module = null;
    lz4Error = (err as Error).message.split('\n', 1)[0];
    // Bodies are still stored (gzip, as before): a slower crawl, not a loss. Said once per process.
    process.emitWarning(`lz4-napi cannot be loaded (${lz4Error}): fetched bodies are stored gzip-compressed, which costs more CPU`, { code: 'CRAWLSTREAM_NO_LZ4' });
  }
  return lz4Module;
}

type Stored = { encoding: BodyEncoding; bytes: Buffer };

/** The smaller of the packed and the plain body: already-compressed media grows under any codec. */
function smaller(body: Buffer, packed: Buffer, encoding: BodyEncoding): Stored {
  return packed.length < body.length ? { encoding, bytes: packed } : { encoding: 'identity', bytes: body };
}

export function compressBody(body: Buffer): Stored {
  if (body.length <= COMPRESS_MIN_BYTES) return { encoding: 'identity', bytes: body };
  const codec = lz4();
  if (codec) return smaller(body, codec.compressSync(body), 'lz4');
  return smaller(body, gzipSync(body, { level: BODY_GZIP_LEVEL }), 'gzip');
}

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/**
 * compressBody on libuv's thread pool: the fetch stage compresses every page, and its event loop
 * runs every task of the crawl. LZ4 there costs the event loop ~7 µs per page (async gzip ~45-140 µs:
 * a zlib stream and deflate state are set up per call).
 */
export async function compressBodyAsync(body: Buffer): Promise<Stored> {
  if (body.length <= COMPRESS_MIN_BYTES) return { encoding: 'identity', bytes: body };
  const codec = lz4();
  if (codec) return smaller(body, await codec.compress(body), 'lz4');
  return smaller(body, await gzipAsync(body, { level: BODY_GZIP_LEVEL }), 'gzip');
}

/**
 * Restores a body stored by compressBody. Never allocates more than maxBytes for the output.
 * @throws Error for an unknown encoding, corrupt data, or a body larger than maxBytes.
 */
export function decompressBody(encoding: string, bytes: Buffer, maxBytes: number): Buffer {
  const limit = checkStored(encoding, bytes, maxBytes);
  if (encoding === 'identity') return bytes;
  if (encoding === 'lz4') return checkLz4(unlz4Sync(bytes), bytes);
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
  if (encoding === 'lz4') return checkLz4(await unlz4(bytes), bytes);
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
  } else if (encoding === 'lz4') {
    // The block states its size first: a bomb is refused before anything is allocated.
    if (bytes.length < LZ4_SIZE_BYTES) throw new Error(`stored lz4 body is corrupt (${bytes.length} bytes: no size)`);
    const size = bytes.readUInt32LE(0);
    if (size > limit) throw new Error(`stored lz4 body inflates past the ${limit}-byte limit (${size} bytes stated, ${bytes.length} stored)`);
  } else if (encoding !== 'gzip') {
    throw new Error(`unknown body encoding "${encoding}" (expected identity, gzip or lz4)`);
  }
  return limit;
}

function lz4OrThrow(): Lz4 {
  const codec = lz4();
  if (!codec) throw new Error(`stored lz4 body cannot be read here: lz4-napi cannot be loaded (${lz4Error})`);
  return codec;
}

function unlz4Sync(bytes: Buffer): Buffer {
  const codec = lz4OrThrow();
  try {
    return codec.uncompressSync(bytes);
  } catch (err) {
    throw new Error(`stored lz4 body is corrupt (${bytes.length} bytes): ${(err as Error).message}`);
  }
}

async function unlz4(bytes: Buffer): Promise<Buffer> {
  const codec = lz4OrThrow();
  try {
    return await codec.uncompress(bytes);
  } catch (err) {
    throw new Error(`stored lz4 body is corrupt (${bytes.length} bytes): ${(err as Error).message}`);
  }
}

/** A block that decodes to another size than it states was damaged (or is not ours). */
function checkLz4(out: Buffer, bytes: Buffer): Buffer {
  const stated = bytes.readUInt32LE(0);
  if (out.length !== stated) throw new Error(`stored lz4 body is corrupt (${bytes.length} bytes): ${out.length} bytes decoded, ${stated} stated`);
  return out;
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
