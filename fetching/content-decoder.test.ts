import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as zlib from 'node:zlib';
import { ContentDecoder, parseContentEncoding, type DecodeFailure } from './content-decoder.js';

const text = Buffer.from('<html>' + Array.from({ length: 20_000 }, (_, i) => `row ${(i * 7919) % 10007}; `).join('') + '</html>');

async function decode(header: string, wire: Buffer, maxBytes = 1 << 20, chunk = 997, complete = true) {
  const parsed = parseContentEncoding(header);
  assert.ok('codings' in parsed, JSON.stringify(parsed));
  const failures: DecodeFailure[] = [];
  const d = new ContentDecoder(parsed.codings, maxBytes, (f) => failures.push(f));
  for (let i = 0; i < wire.length && !d.failure; i += chunk) d.write(wire.subarray(i, i + chunk));
  await d.finish(complete);
  return { body: d.body(), failure: d.failure, failures };
}

test('should decode gzip, zlib deflate, raw deflate and brotli bodies', async () => {
  const cases: Array<[string, Buffer]> = [
    ['gzip', zlib.gzipSync(text)],
    ['x-gzip', zlib.gzipSync(text)],
    ['deflate', zlib.deflateSync(text)],
    ['deflate', zlib.deflateRawSync(text)],
    ['br', zlib.brotliCompressSync(text)],
    ['identity', text],
    ['', text],
  ];
  for (const [header, wire] of cases) {
    const r = await decode(header, wire);
    assert.equal(r.failure, null, header);
    assert.deepEqual(r.body, text, header);
  }
});

test('should undo stacked codings in reverse order of application', async () => {
  const wire = zlib.brotliCompressSync(zlib.gzipSync(text));
  const r = await decode('gzip, br', wire);
  assert.equal(r.failure, null);
  assert.deepEqual(r.body, text);
});

test('should keep the decodable prefix of a body that was cut off, without reporting corruption', async () => {
  for (const [header, wire] of [['gzip', zlib.gzipSync(text)], ['br', zlib.brotliCompressSync(text)],
    ['gzip, br', zlib.brotliCompressSync(zlib.gzipSync(text))]] as const) {
    const r = await decode(header, wire.subarray(0, Math.floor(wire.length / 2)), 1 << 20, 997, false);
    assert.equal(r.failure, null, header);
    assert.ok(r.body.length > 0 && r.body.length < text.length, header);
    assert.deepEqual(r.body, text.subarray(0, r.body.length), header);
  }
});

test('should report a complete response whose compressed stream stops short as bad-encoding', async () => {
  const wire = zlib.gzipSync(text);
  const r = await decode('gzip', wire.subarray(0, Math.floor(wire.length / 2)));
  assert.equal(r.failure?.kind, 'bad-encoding');
  assert.match(r.failure!.message, /unexpected end of file/);
  assert.ok(r.body.length > 0);
  assert.deepEqual(r.body, text.subarray(0, r.body.length));
  const br = await decode('br', Buffer.from('hello'));
  assert.equal(br.failure?.kind, 'bad-encoding');
});

test('should report corrupt data as bad-encoding with the decoded prefix kept', async () => {
  const wire = Buffer.from(zlib.gzipSync(text));
  wire.fill(0x41, wire.length >> 1, (wire.length >> 1) + 100);
  const r = await decode('gzip', wire);
  assert.equal(r.failure?.kind, 'bad-encoding');
  assert.match(r.failure!.message, /^gzip data is corrupt after \d+ wire bytes and \d+ decoded bytes/);
  assert.ok(r.body.length > 1000, `${r.body.length} bytes kept`);
  assert.deepEqual(r.body.subarray(0, 1000), text.subarray(0, 1000));
  assert.equal(r.failures.length, 1);
  const plain = await decode('br', Buffer.from('<html>not brotli at all</html>'));
  assert.equal(plain.failure?.kind, 'bad-encoding');
});

test('should stop a 1 GB "gzip, gzip" bomb at the cap quickly and with little memory', async () => {
  // Concatenated gzip members inflate back to back, so 1024 copies of gzip(1 MiB of zeros) is a
  // 1 GiB gzip stream; gzipping that again gives a ~2.5 KB payload.
  const member = zlib.gzipSync(Buffer.alloc(1 << 20), { level: 9 });
  const wire = zlib.gzipSync(Buffer.concat(Array<Buffer>(1024).fill(member)), { level: 9 });
  assert.ok(wire.length < 4096, `${wire.length} wire bytes`);
  const cap = 10 * 1024 * 1024;
  const before = process.memoryUsage();
  const started = performance.now();
  const r = await decode('gzip, gzip', wire, cap);
  const ms = performance.now() - started;
  assert.equal(r.failure?.kind, 'decompression-bomb');
  assert.match(r.failure!.message, /gzip body inflated past the 10485760-byte limit from \d+ wire bytes/);
  assert.equal(r.body.length, cap);
  assert.ok(ms < 3000, `${ms} ms`);
  const grown = process.memoryUsage().arrayBuffers - before.arrayBuffers;
  assert.ok(grown < 64 * 1024 * 1024, `${grown} bytes of buffers`);
});

test('should cap the inner layer of a stacked bomb too', async () => {
  const member = zlib.gzipSync(Buffer.alloc(1 << 20));
  const inner = Buffer.concat(Array<Buffer>(64).fill(member));
  // brotli over gzip: the gzip layer's output is what must be cut off at the cap
  const r = await decode('gzip, br', zlib.brotliCompressSync(inner), 256 * 1024);
  assert.equal(r.failure?.kind, 'decompression-bomb');
  assert.equal(r.body.length, 256 * 1024);
  const brBomb = zlib.brotliCompressSync(Buffer.alloc(64 << 20), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
  const b = await decode('br', brBomb, 1 << 20);
  assert.equal(b.failure?.kind, 'decompression-bomb');
  assert.equal(b.body.length, 1 << 20);
});

test('should recognise unsupported codings and ignore junk tokens', () => {
  assert.deepEqual(parseContentEncoding('zstd'), { unsupported: 'zstd' });
  assert.deepEqual(parseContentEncoding('gzip, compress'), { unsupported: 'compress' });
  assert.deepEqual(parseContentEncoding('utf-8'), { codings: [] });
  assert.deepEqual(parseContentEncoding(' GZIP , br '), { codings: ['br', 'gzip'] });
  assert.ok('unsupported' in parseContentEncoding('gzip,gzip,gzip,gzip,gzip'));
});

test('should pass an empty compressed body through without error', async () => {
  const r = await decode('gzip', Buffer.alloc(0));
  assert.equal(r.failure, null);
  assert.equal(r.body.length, 0);
});
