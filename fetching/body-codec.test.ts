import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { compressBody, decompressBody } from './body-codec.js';

const html = Buffer.from('<html><body>' + '<p>hello crawler, this is a paragraph</p>\n'.repeat(500) + '</body></html>');

test('should gzip HTML bodies and restore them byte for byte', () => {
  const packed = compressBody(html);
  assert.equal(packed.encoding, 'gzip');
  assert.ok(packed.bytes.length < html.length / 5, `${packed.bytes.length} bytes`);
  assert.deepEqual(decompressBody(packed.encoding, packed.bytes, html.length), html);
});

test('should store small and incompressible bodies as they are', () => {
  const small = Buffer.from('<p>tiny</p>');
  assert.deepEqual(compressBody(small), { encoding: 'identity', bytes: small });
  const noise = randomBytes(64 * 1024);
  const packed = compressBody(noise);
  assert.equal(packed.encoding, 'identity');
  assert.deepEqual(decompressBody(packed.encoding, packed.bytes, noise.length), noise);
  assert.deepEqual(decompressBody('identity', Buffer.alloc(0), 0), Buffer.alloc(0));
});

test('should refuse to inflate a stored body past maxBytes', () => {
  const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024));
  assert.ok(bomb.length < 100 * 1024);
  const before = process.memoryUsage().arrayBuffers;
  assert.throws(() => decompressBody('gzip', bomb, 1024 * 1024), /inflates past the 1048576-byte limit/);
  assert.ok(process.memoryUsage().arrayBuffers - before < 40 * 1024 * 1024);
  assert.throws(() => decompressBody('identity', html, 100), /more than the 100-byte limit/);
  assert.equal(decompressBody('gzip', gzipSync(html), html.length).length, html.length);
});

test('should throw clear errors for corrupt data and unknown encodings', () => {
  assert.throws(() => decompressBody('gzip', Buffer.from('not gzip at all'), 1000), /stored gzip body is corrupt/);
  assert.throws(() => decompressBody('br', html, 1e6), /unknown body encoding "br"/);
});
