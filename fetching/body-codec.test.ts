import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { compressBody, compressBodyAsync, decompressBody, decompressBodyAsync } from './body-codec.js';

const html = Buffer.from('<html><body>' + '<p>hello crawler, this is a paragraph</p>\n'.repeat(500) + '</body></html>');

/** An LZ4 block stating `size` bytes, as compressBody writes them. */
function lz4Stating(size: number, block: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32LE(size, 0);
  return Buffer.concat([head, block]);
}

test('should LZ4-compress HTML bodies and restore them byte for byte, sync and async', async () => {
  const packed = compressBody(html);
  assert.equal(packed.encoding, 'lz4');
  assert.ok(packed.bytes.length < html.length / 5, `${packed.bytes.length} bytes`);
  assert.deepEqual(decompressBody(packed.encoding, packed.bytes, html.length), html);
  const async = await compressBodyAsync(html);
  assert.equal(async.encoding, 'lz4');
  assert.deepEqual(await decompressBodyAsync(async.encoding, async.bytes, html.length), html);
  assert.deepEqual(decompressBody(async.encoding, async.bytes, html.length), html);
});

test('should compress a body that is a view into a larger buffer, as fetched bodies often are', async () => {
  const slab = Buffer.concat([Buffer.alloc(5000, 'x'), html, Buffer.alloc(5000, 'y')]);
  const view = slab.subarray(5000, 5000 + html.length);
  for (const packed of [compressBody(view), await compressBodyAsync(view)]) {
    assert.deepEqual(decompressBody(packed.encoding, packed.bytes, html.length), html);
  }
});

test('should still read gzip bodies stored before LZ4', async () => {
  const gz = gzipSync(html, { level: 1 });
  assert.deepEqual(decompressBody('gzip', gz, html.length), html);
  assert.deepEqual(await decompressBodyAsync('gzip', gz, html.length), html);
});

test('should store small and incompressible bodies as they are', async () => {
  const small = Buffer.from('<p>tiny</p>');
  assert.deepEqual(compressBody(small), { encoding: 'identity', bytes: small });
  const noise = randomBytes(64 * 1024);
  const packed = compressBody(noise);
  assert.equal(packed.encoding, 'identity');
  assert.equal((await compressBodyAsync(noise)).encoding, 'identity');
  assert.deepEqual(decompressBody(packed.encoding, packed.bytes, noise.length), noise);
  assert.deepEqual(decompressBody('identity', Buffer.alloc(0), 0), Buffer.alloc(0));
});

test('should refuse to inflate a stored body past maxBytes', async () => {
  const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
  assert.ok(bomb.length < 100 * 1024);
  const before = process.memoryUsage().arrayBuffers;
  assert.throws(() => decompressBody('gzip', bomb, 1024 * 1024), /inflates past the 1048576-byte limit/);
  assert.ok(process.memoryUsage().arrayBuffers - before < 40 * 1024 * 1024);
  assert.throws(() => decompressBody('identity', html, 100), /more than the 100-byte limit/);
  assert.equal(decompressBody('gzip', gzipSync(html), html.length).length, html.length);
  // LZ4 states its size up front: refused before anything is allocated, whatever the block holds.
  const lz4Bomb = compressBody(Buffer.alloc(4 * 1024 * 1024));
  assert.equal(lz4Bomb.encoding, 'lz4');
  assert.throws(() => decompressBody('lz4', lz4Bomb.bytes, 1024 * 1024), /lz4 body inflates past the 1048576-byte limit \(4194304 bytes stated/);
  await assert.rejects(decompressBodyAsync('lz4', lz4Bomb.bytes, 1024 * 1024), /inflates past/);
  assert.throws(() => decompressBody('lz4', lz4Stating(0xffff_ffff, Buffer.alloc(8)), 10 << 20), /inflates past/);
});

test('should throw clear errors for corrupt data and unknown encodings', async () => {
  assert.throws(() => decompressBody('gzip', Buffer.from('not gzip at all'), 1000), /stored gzip body is corrupt/);
  assert.throws(() => decompressBody('br', html, 1e6), /unknown body encoding "br"/);
  assert.throws(() => decompressBody('lz4', Buffer.from([1, 0]), 1000), /stored lz4 body is corrupt \(2 bytes: no size\)/);
  // A block whose matches point before its start, and one that decodes short of its stated size.
  assert.throws(() => decompressBody('lz4', lz4Stating(100, Buffer.from([0x0f, 0xff, 0xff, 0xff])), 1000), /stored lz4 body is corrupt/);
  const packed = compressBody(html);
  const short = lz4Stating(html.length + 10, packed.bytes.subarray(4));
  assert.throws(() => decompressBody('lz4', short, 1e6), /stored lz4 body is corrupt/);
  await assert.rejects(decompressBodyAsync('lz4', short, 1e6), /stored lz4 body is corrupt/);
});
