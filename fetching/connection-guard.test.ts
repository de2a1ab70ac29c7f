import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { guardSocket, interimBlockEnd } from './connection-guard.js';
import { fetcherTestKit } from './testing/test-kit.js';

const { fetcher, raw } = fetcherTestKit();
const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';

describe('interimBlockEnd', () => {
  const end = (s: string) => interimBlockEnd(Buffer.from(s, 'latin1'));

  it('should find the end of a 100 Continue block with or without a reason phrase', () => {
    assert.equal(end('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200'), 25);
    assert.equal(end('HTTP/1.0 100\r\n\r\n'), 16);
    assert.equal(end('HTTP/1.1 100 Continue\nX: 1\n\nrest'), 28);
  });

  it('should wait while the bytes so far could still be a 100 Continue block', () => {
    for (const s of ['H', 'HTTP/1.', 'HTTP/1.1 10', 'HTTP/1.1 100', 'HTTP/1.1 100 Continue\r\n']) assert.equal(end(s), 'wait', s);
  });

  it('should call anything else a final response', () => {
    for (const s of ['HTTP/1.1 200 OK', 'HTTP/1.1 1000', 'HTTP/1.2 100 ', 'HTTP/2 100', 'http/1.1 100 ', 'SSH-2.0', 'HTTP/1.1 103 Early']) {
      assert.equal(end(s), 'final', s);
    }
  });

  it('should give up on an interim block that never ends, leaving it to the parser', () => {
    assert.equal(end('HTTP/1.1 100 Continue\r\nX: ' + 'a'.repeat(17_000)), 'final');
  });
});

describe('guardSocket', () => {
  function guarded() {
    const socket = new Duplex({ read() {}, write(_c, _e, cb) { cb(); } });
    guardSocket(socket as unknown as Socket);
    const seen: Buffer[] = [];
    socket.on('data', (c: Buffer) => seen.push(c));
    return { socket, text: () => Buffer.concat(seen).toString('latin1') };
  }

  it('should drop 100 Continue blocks split across reads where a response begins', async () => {
    const { socket, text } = guarded();
    socket.write('GET / HTTP/1.1\r\n\r\n');
    for (const piece of ['HTTP/1.1 1', '00 Continue\r\n', '\r\nHTTP/1.0 100\r\n\r', '\n', OK]) socket.push(Buffer.from(piece));
    await new Promise((r) => setImmediate(r));
    assert.equal(text(), OK);
  });

  it('should pass a 100 that is not where a response begins on to the parser', async () => {
    const { socket, text } = guarded();
    socket.write('GET / HTTP/1.1\r\n\r\n');
    socket.push(Buffer.from(OK));
    socket.push(Buffer.from('HTTP/1.1 100 Continue\r\n\r\n')); // unasked-for bytes after a response
    await new Promise((r) => setImmediate(r));
    assert.equal(text(), OK + 'HTTP/1.1 100 Continue\r\n\r\n');
  });

  it('should hand over what it held when the peer closes', async () => {
    const { socket, text } = guarded();
    socket.write('GET / HTTP/1.1\r\n\r\n');
    socket.push(Buffer.from('HTTP/1.1 100 Cont'));
    socket.push(null);
    await new Promise((r) => socket.once('end', r));
    assert.equal(text(), 'HTTP/1.1 100 Cont');
  });
});

describe('fetching after interim responses', () => {
  it('should accept an unsolicited 100 Continue before a 200 (RFC 9110 §15.2), on a reused connection too', async () => {
    const s = await raw('127.0.0.2', (socket) => socket.on('data', () => socket.write(`HTTP/1.1 100 Continue\r\n\r\n${OK}`)));
    const f = fetcher();
    for (let i = 0; i < 3; i++) {
      const o = await f.fetch(s.url(`/${i}`));
      assert.equal(o.error, '', `request ${i}`);
      assert.equal(o.status, 200);
      assert.equal(o.body.toString(), 'ok');
    }
    assert.equal(s.connections, 1);
  });

  it('should skip several interim responses of any 1xx code', async () => {
    const s = await raw('127.0.0.2', (socket) => socket.once('data', () => {
      socket.end(`HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n${OK}`);
    }));
    const o = await fetcher().fetch(s.url('/'));
    assert.equal(o.error, '');
    assert.equal(o.body.toString(), 'ok');
  });

  it('should refuse an unsolicited 101 Switching Protocols as a protocol error', async () => {
    const s = await raw('127.0.0.2', (socket) => socket.once('data', () => socket.end(`HTTP/1.1 101 Switching Protocols\r\n\r\n${OK}`)));
    const o = await fetcher().fetch(s.url('/'));
    assert.equal(o.status, 0);
    assert.equal(o.errorKind, 'protocol');
  });

  it('should time out a server that sends 100 Continue forever', async () => {
    const s = await raw('127.0.0.2', (socket) => socket.once('data', () => {
      const t = setInterval(() => socket.write('HTTP/1.1 100 Continue\r\n\r\n'), 5);
      socket.on('close', () => clearInterval(t));
    }));
    const o = await fetcher({ headersTimeoutMs: 300 }).fetch(s.url('/'));
    assert.equal(o.status, 0);
    assert.equal(o.errorKind, 'timeout');
  });

  it('should refuse an interim block too long to skip', async () => {
    const s = await raw('127.0.0.2', (socket) => socket.once('data', () => {
      socket.end(`HTTP/1.1 100 Continue\r\nX-Junk: ${'a'.repeat(70_000)}\r\n\r\n${OK}`);
    }));
    const o = await fetcher().fetch(s.url('/'));
    assert.equal(o.status, 0);
    assert.equal(o.errorKind, 'protocol');
  });
});
