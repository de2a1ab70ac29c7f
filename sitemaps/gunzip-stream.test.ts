import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { GunzipStream } from './gunzip-stream.js';

test('should hand out bounded pieces of a highly compressed stream however big the input chunk', () => {
  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
  let largest = 0;
  let total = 0;
  const g = new GunzipStream((chunk) => {
    largest = Math.max(largest, chunk.length);
    total += chunk.length;
    return true;
  });
  assert.equal(g.write(bomb), undefined);
  assert.equal(g.end(), undefined);
  assert.equal(total, 64 * 1024 * 1024);
  // A 1 KiB slice of deflate data inflates to at most about 1 MiB (deflate's ratio tops out near 1032).
  assert.ok(largest <= 1100 * 1024, `largest piece ${largest} bytes`);
});

test('should stop inflating as soon as the consumer says so', () => {
  const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
  let calls = 0;
  const g = new GunzipStream(() => ++calls < 2);
  g.write(bomb);
  assert.equal(calls, 2);
  assert.equal(g.isStopped, true);
  assert.equal(g.end(), undefined);
});

test('should report corrupt data and a stream cut short', () => {
  const gz = gzipSync(Buffer.from('x'.repeat(10_000) + Math.PI.toString().repeat(500)));
  const head = new GunzipStream(() => true);
  const bad = Buffer.from(gz);
  bad[2] = 7; // compression method 7 is not deflate
  assert.match(head.write(bad) ?? '', /^gzip: /);
  const cut = new GunzipStream(() => true);
  assert.equal(cut.write(gz.subarray(0, gz.length >> 1)), undefined);
  assert.match(cut.end() ?? '', /^gzip: unexpected EOF/);
});
