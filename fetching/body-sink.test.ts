// Streaming mode (bodySink), the per-request body cap (maxBodyBytes) and the body's SHA-1.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as zlib from 'node:zlib';
import { fetcherTestKit, MiB } from './testing/test-kit.js';

const { fetcher, http, raw } = fetcherTestKit();
const sha1 = (b: Buffer) => createHash('sha1').update(b).digest('hex');

function sitemap(bytes: number): Buffer {
  const entries: string[] = [];
  for (let i = 0, n = 0; n < bytes; i++) {
    const e = `<url><loc>http://site.test/p/${(i * 7919) % 1_000_003}</loc></url>\n`;
    entries.push(e);
    n += e.length;
  }
  return Buffer.from(entries.join('')).subarray(0, bytes);
}

describe('bodySink', () => {
  it('should hand over decoded chunks in order without keeping them, counting bytes and hashing them', async () => {
    const doc = sitemap(3 * MiB);
    const gz = zlib.gzipSync(doc);
    const s = await http('127.0.0.2', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' });
      res.end(gz);
    });
    const chunks: Buffer[] = [];
    let resolved = false;
    let lateCalls = 0;
    const o = await fetcher().fetch(s.url('/sitemap.xml'), { bodySink: (c) => (resolved ? lateCalls++ : chunks.push(Buffer.from(c))) });
    resolved = true;
    assert.equal(o.error, '');
    assert.equal(o.body.length, 0);
    assert.equal(o.bytes, doc.length);
    assert.equal(o.wireBytes, gz.length);
    assert.ok(chunks.length > 1, `${chunks.length} chunks`);
    assert.deepEqual(Buffer.concat(chunks), doc);
    assert.equal(o.sha1, sha1(doc));
    await new Promise((r) => setImmediate(r));
    assert.equal(lateCalls, 0);
  });

  it('should let one request raise the body cap above the fetcher-wide one', async () => {
    const doc = sitemap(3 * MiB);
    const s = await http('127.0.0.2', (_req, res) => res.end(doc));
    const f = fetcher({ maxBodyBytes: MiB });
    let got = 0;
    const o = await f.fetch(s.url('/'), { maxBodyBytes: 50 * MiB, bodySink: (c) => (got += c.length) });
    assert.equal(o.error, '');
    assert.equal(got, doc.length);
    assert.equal(o.sha1, sha1(doc));
    const capped = await f.fetch(s.url('/'));
    assert.equal(capped.errorKind, 'body-too-large');
    assert.equal(capped.truncated, true);
  });

  it('should stop a decompression bomb at the request cap and hash only what was handed over', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(16 * MiB, 'a'), { level: 9 });
    const s = await http('127.0.0.2', (_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const chunks: Buffer[] = [];
    const o = await fetcher().fetch(s.url('/'), { maxBodyBytes: 2 * MiB, bodySink: (c) => chunks.push(Buffer.from(c)) });
    assert.equal(o.errorKind, 'decompression-bomb');
    assert.equal(o.truncated, true);
    assert.equal(o.bytes, 2 * MiB);
    const handed = Buffer.concat(chunks);
    assert.equal(handed.length, 2 * MiB);
    assert.equal(o.sha1, sha1(handed));
  });

  it('should end the request with error kind sink when the sink throws', async () => {
    const s = await raw('127.0.0.2', (socket) => socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n' + 'x'.repeat(1000));
    }));
    let calls = 0;
    const o = await fetcher().fetch(s.url('/'), { bodySink: () => {
      calls++;
      throw new Error('sitemap parser gave up');
    } });
    assert.equal(o.status, 200);
    assert.equal(o.errorKind, 'sink');
    assert.match(o.error, /^sink: the body sink threw after \d+ decoded bytes: sitemap parser gave up$/);
    assert.equal(calls, 1);
  });

  it('should end the request, truncated, when the sink returns false, and download no more', async () => {
    // Far more than socket buffers hold, so that what the server wrote shows whether the client read on.
    const doc = sitemap(32 * MiB);
    let written = 0;
    let closed!: Promise<void>;
    const s = await http('127.0.0.2', (_req, res) => {
      closed = new Promise((r) => res.on('close', () => r()));
      res.writeHead(200, { 'content-length': String(doc.length) });
      const more = () => {
        while (written < doc.length && !res.destroyed) {
          const piece = doc.subarray(written, written + 64 * 1024);
          written += piece.length;
          if (!res.write(piece)) return void res.once('drain', more);
        }
        if (!res.destroyed) res.end();
      };
      more();
    });
    let got = 0;
    let late = 0;
    const o = await fetcher().fetch(s.url('/'), { maxBodyBytes: 50 * MiB, bodySink: (c) => {
      if (got >= MiB) late++;
      got += c.length;
      return got < MiB;
    } });
    await closed;
    assert.equal(o.status, 200);
    assert.equal(o.errorKind, 'body-too-large');
    assert.match(o.error, /the reader took no more after \d+ decoded bytes/);
    assert.equal(o.truncated, true);
    assert.equal(late, 0, 'no chunk after the sink said no more');
    assert.equal(o.bytes, got);
    assert.ok(written < doc.length / 2, `the server wrote ${written} of ${doc.length} bytes`);
  });

  it('should refuse a cap that is not a positive integer without sending anything', async () => {
    const s = await http('127.0.0.2', (_req, res) => res.end('ok'));
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity]) {
      const o = await fetcher().fetch(s.url('/'), { maxBodyBytes: bad });
      assert.equal(o.errorKind, 'protocol', String(bad));
      assert.match(o.error, /maxBodyBytes must be a positive integer/);
    }
    assert.equal(s.connections, 0);
  });
});

describe('sha1', () => {
  it('should hash a streamed body, and leave a kept body or no response unhashed', async () => {
    const page = Buffer.from('<html>' + 'words '.repeat(5000) + '</html>');
    const s = await http('127.0.0.2', (req, res) => {
      res.writeHead(200, req.url === '/br' ? { 'content-encoding': 'br' } : {});
      res.end(req.url === '/br' ? zlib.brotliCompressSync(page) : req.url === '/empty' ? '' : page);
    });
    const f = fetcher();
    const bodySink = () => {};
    assert.equal((await f.fetch(s.url('/br'), { bodySink })).sha1, sha1(page));
    assert.equal((await f.fetch(s.url('/empty'), { bodySink })).sha1, sha1(Buffer.alloc(0)));
    assert.equal((await f.fetch(s.url('/'))).sha1, '');
    assert.equal((await f.fetch('http://127.0.0.2:9/', { bodySink })).sha1, '');
  });
});
