// A body that did not arrive whole must say so (a non-empty error, partial body and status kept) and
// must not pass for one we cut at our own size cap (truncated). Each server acts on bytes it received
// (the request, or the client's first chunk of body through a sink), never after a sleep.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import * as zlib from 'node:zlib';
import { fetcherTestKit } from './testing/test-kit.js';

const { fetcher, raw } = fetcherTestKit();
const OK_HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n';

/** A server that answers each request with `head` + `body` and then does `then` to the socket. */
function answering(head: string, body: string | Buffer, then: (socket: Socket) => void) {
  return raw('127.0.0.2', (socket) => socket.once('data', () => {
    socket.write(Buffer.concat([Buffer.from(OK_HEAD + head + '\r\n'), Buffer.from(body)]));
    then(socket);
  }));
}

describe('incomplete bodies', () => {
  it('should report a body shorter than its Content-Length as body-incomplete, keeping what came', async () => {
    const s = await answering('Content-Length: 1000\r\n', 'x'.repeat(400), (socket) => socket.end());
    const o = await fetcher().fetch(s.url('/'));
    assert.equal(o.status, 200);
    assert.equal(o.errorKind, 'body-incomplete');
    assert.match(o.error, /^body-incomplete: the connection closed before the body ended: got 400 body bytes of the 1000 its Content-Length declared from 127\.0\.0\.2:\d+/);
    assert.equal(o.truncated, false);
    assert.equal(o.body.toString(), 'x'.repeat(400));
  });

  it('should report a chunked body without its last chunk as body-incomplete', async () => {
    for (const head of ['Transfer-Encoding: chunked\r\n', 'Connection: close\r\nTransfer-Encoding: chunked\r\n']) {
      const s = await answering(head, '5\r\nhello\r\n', (socket) => socket.end());
      const o = await fetcher().fetch(s.url('/'));
      assert.equal(o.status, 200, head);
      assert.equal(o.errorKind, 'body-incomplete', head);
      assert.match(o.error, /^body-incomplete: the connection closed before (the body ended|the last chunk of a chunked body): got 5 body bytes/, head);
      assert.equal(o.truncated, false);
      assert.equal(o.body.toString(), 'hello');
    }
  });

  it('should keep the decoded prefix of a gzip body cut short, as body-incomplete rather than bad-encoding', async () => {
    const page = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `<p>${(i * 7919) % 10007}</p>`).join(''));
    const gz = zlib.gzipSync(page);
    const s = await answering(`Content-Encoding: gzip\r\nContent-Length: ${gz.length}\r\n`, gz.subarray(0, gz.length >> 1), (socket) => socket.end());
    const o = await fetcher().fetch(s.url('/'));
    assert.equal(o.errorKind, 'body-incomplete');
    assert.equal(o.truncated, false);
    assert.ok(o.bytes > 1000 && o.bytes < page.length, `${o.bytes} bytes`);
    assert.deepEqual(o.body, page.subarray(0, o.bytes));
  });

  for (const [framing, head, body] of [
    ['Content-Length', 'Content-Length: 1000\r\n', 'x'.repeat(400)],
    ['chunked', 'Transfer-Encoding: chunked\r\n', '190\r\n' + 'x'.repeat(400)],
    ['the connection close', 'Connection: close\r\n', 'x'.repeat(400)],
  ]) {
    it(`should report a connection reset mid-body framed by ${framing} as body-incomplete`, async () => {
      let server: Socket | undefined;
      const s = await raw('127.0.0.2', (socket) => socket.once('data', () => {
        server = socket;
        socket.write(OK_HEAD + head + '\r\n' + body);
      }));
      const got: Buffer[] = [];
      // The reset follows the client's first body bytes, so it lands on a connection mid-body.
      const o = await fetcher().fetch(s.url('/'), { bodySink: (c) => {
        got.push(c);
        server?.resetAndDestroy();
      } });
      assert.equal(o.status, 200);
      assert.equal(o.errorKind, 'body-incomplete');
      assert.match(o.error, /^body-incomplete: .*reset/);
      assert.equal(o.truncated, false);
      assert.equal(o.bytes, 400);
      assert.equal(Buffer.concat(got).toString(), 'x'.repeat(400));
    });
  }

  it('should accept a body delimited by a clean close as whole', async () => {
    const s = await answering('Connection: close\r\n', 'x'.repeat(400), (socket) => socket.end());
    const o = await fetcher().fetch(s.url('/'));
    assert.equal(o.error, '');
    assert.equal(o.body.length, 400);
  });

  it('should report a body stalled at the total timeout with a timeout error, status and partial body', async () => {
    const s = await answering('Content-Length: 1000\r\n', 'x'.repeat(400), () => {});
    const got: Buffer[] = [];
    const o = await fetcher({ totalTimeoutMs: 400 }).fetch(s.url('/'), { bodySink: (c) => got.push(c) });
    assert.equal(o.status, 200);
    assert.equal(o.errorKind, 'timeout');
    assert.match(o.error, /^timeout: request exceeded the 400 ms total timeout while reading the body/);
    assert.equal(o.truncated, false);
    assert.equal(o.bytes, 400);
    assert.equal(Buffer.concat(got).length, 400);
  });
});
