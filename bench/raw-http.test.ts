// The bench server's minimal HTTP/1.1 responder: what crawlers send must get the right bytes, and what
// they do not send must not hang or grow it.
// Run: node --test dist/bench/raw-http.test.js (scripts/run-tests.mjs skips dist/bench/).
import assert from 'node:assert/strict';
import { connect, createServer, type Server } from 'node:net';
import { after, before, test } from 'node:test';
import { MAX_HEAD_BYTES, prebuild, serveConnection } from './raw-http.js';

const page = prebuild(200, 'OK', 'text/html', Buffer.from('<p>hello</p>'));
const missing = prebuild(404, 'Not Found', 'text/html', Buffer.from('none'));
const log: { target: string; status: number }[] = [];
let server: Server;
let port = 0;

before(async () => {
  server = createServer((s) => serveConnection(s, ({ target }) => ({
    answer: target === '/' ? page : missing,
    sent: (status) => log.push({ target, status }),
  })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});
after(() => new Promise<void>((r) => server.close(() => r())));

/** Sends `chunks` on one connection and resolves with everything read until the server closes it or `until` matches. */
function exchange(chunks: string[], until?: (text: string) => boolean): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (until?.(text)) {
        socket.destroy();
        resolve({ text, closed: false });
      }
    });
    socket.on('end', () => resolve({ text, closed: true }));
    socket.on('error', reject);
    socket.on('connect', async () => {
      for (const c of chunks) {
        socket.write(c);
        await new Promise((r) => setTimeout(r, 5));
      }
    });
  });
}

const count = (text: string, s: string) => text.split(s).length - 1;

test('should answer several requests on one kept-alive connection, also when a request arrives in pieces', async () => {
  const { text, closed } = await exchange(['GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /x HTTP/1.1\r\nHo', 'st: a\r\n\r\n', 'GET / HTTP/1.1\r\nHost: a\r\n\r\n'],
    (t) => count(t, 'HTTP/1.1 ') === 3 && t.endsWith('<p>hello</p>'));
  assert.equal(closed, false);
  assert.equal(count(text, 'HTTP/1.1 200 OK'), 2);
  assert.equal(count(text, 'HTTP/1.1 404 Not Found'), 1);
  assert.match(text, /content-length: 12\r\n/);
});

test('should close the connection after answering a request that asks for it', async () => {
  const { text, closed } = await exchange(['GET / HTTP/1.1\r\nConnection: close\r\n\r\n']);
  assert.equal(closed, true);
  assert.ok(text.endsWith('\r\n\r\n<p>hello</p>'));
});

test('should send only the head to HEAD and refuse other methods', async () => {
  const head = await exchange(['HEAD / HTTP/1.1\r\nConnection: close\r\n\r\n']);
  assert.ok(head.text.startsWith('HTTP/1.1 200 OK') && head.text.endsWith('\r\n\r\n'));
  const post = await exchange(['POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc']);
  assert.ok(post.text.startsWith('HTTP/1.1 405'));
  assert.equal(post.closed, true);
});

test('should refuse a request head longer than its bound instead of buffering it', async () => {
  const { text, closed } = await exchange([`GET / HTTP/1.1\r\nX: ${'a'.repeat(MAX_HEAD_BYTES + 10)}`]);
  assert.ok(text.startsWith('HTTP/1.1 400'));
  assert.equal(closed, true);
});

test('should log each answered request with the status it got', () => {
  assert.ok(log.some((l) => l.target === '/x' && l.status === 404));
  assert.ok(log.some((l) => l.target === '/' && l.status === 405));
});
