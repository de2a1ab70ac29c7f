import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as zlib from 'node:zlib';
import { closedPort } from './testing/test-servers.js';
import { fetcherTestKit, MiB } from './testing/test-kit.js';

const { fetcher, http, raw } = fetcherTestKit();

test('should fetch a page sending the crawler headers and report status, headers, type and timing', async () => {
  const s = await http('127.0.0.2', (req, res) => {
    res.writeHead(200, { 'Content-Type': 'Text/HTML; Charset="ISO-8859-1"', 'X-Echo': JSON.stringify(req.headers) });
    res.end('<html>hello</html>');
  });
  const before = Date.now();
  const o = await fetcher().fetch(s.url('/page?q=1#frag'), { headers: { 'If-None-Match': '"v1"' } });
  assert.equal(o.error, '');
  assert.equal(o.status, 200);
  assert.equal(o.body.toString(), '<html>hello</html>');
  assert.equal(o.bytes, 18);
  assert.equal(o.wireBytes, 18);
  assert.equal(o.truncated, false);
  assert.equal(o.contentType, 'text/html');
  assert.equal(o.charset, 'iso-8859-1');
  assert.equal(o.remoteAddress, '127.0.0.2');
  assert.equal(o.location, '');
  assert.ok(o.startedAt >= before && o.ttfbMs <= o.elapsedMs);
  const sent = JSON.parse(o.headers['x-echo']);
  assert.equal(sent['user-agent'], 'crawlstream-test/1.0 (+https://crawler.example/bot)');
  assert.match(sent.accept, /^text\/html,/);
  assert.equal(sent['accept-encoding'], 'gzip, deflate, br');
  assert.equal(sent['if-none-match'], '"v1"');
});

test('should reuse one keep-alive connection for consecutive requests to an origin', async () => {
  const s = await http('127.0.0.2', (_req, res) => res.end('ok'));
  const f = fetcher();
  for (let i = 0; i < 5; i++) assert.equal((await f.fetch(s.url(`/${i}`))).status, 200);
  assert.equal(s.connections, 1);
});

test('should decode gzip, zlib deflate, raw deflate and brotli responses', async () => {
  const page = Buffer.from('<html>' + 'compressed words '.repeat(3000) + '</html>');
  const bodies: Record<string, [string, Buffer]> = {
    '/gzip': ['gzip', zlib.gzipSync(page)],
    '/deflate': ['deflate', zlib.deflateSync(page)],
    '/raw-deflate': ['deflate', zlib.deflateRawSync(page)],
    '/br': ['br', zlib.brotliCompressSync(page)],
  };
  const s = await http('127.0.0.2', (req, res) => {
    const [coding, body] = bodies[req.url!];
    res.writeHead(200, { 'content-encoding': coding, 'content-type': 'text/html' });
    res.end(body);
  });
  for (const [path, [, wire]] of Object.entries(bodies)) {
    const o = await fetcher().fetch(s.url(path));
    assert.equal(o.error, '', path);
    assert.deepEqual(o.body, page, path);
    assert.equal(o.wireBytes, wire.length, path);
    assert.equal(o.bytes, page.length, path);
  }
});

test('should report redirects with an absolute Location instead of following them', async () => {
  const s = await http('127.0.0.2', (req, res) => {
    if (req.url === '/a/moved') res.writeHead(301, { location: '../new/pläce?x=1' });
    else if (req.url === '/broken') res.writeHead(302);
    else res.writeHead(200);
    res.end();
  });
  const f = fetcher();
  const o = await f.fetch(s.url('/a/moved'));
  assert.equal(o.status, 301);
  assert.equal(o.error, '');
  assert.equal(o.location, s.url('/new/pl%C3%A4ce?x=1'));
  const broken = await f.fetch(s.url('/broken'));
  assert.equal(broken.status, 302);
  assert.equal(broken.errorKind, 'protocol');
  assert.equal(broken.location, '');
  assert.equal(s.connections, 1);
});

test('should parse Retry-After on any status', async () => {
  const s = await http('127.0.0.2', (req, res) => {
    res.writeHead(req.url === '/503' ? 503 : 429, { 'retry-after': req.url === '/503' ? '120' : 'garbage' });
    res.end();
  });
  assert.equal((await fetcher().fetch(s.url('/503'))).retryAfterMs, 120_000);
  const o = await fetcher().fetch(s.url('/429'));
  assert.equal(o.status, 429);
  assert.equal(o.retryAfterMs, 0);
});

test('should refuse loopback and private destinations unless allowed, without connecting', async () => {
  const s = await http('127.0.0.2', (_req, res) => res.end('secret'));
  const f = fetcher({ allowNetworks: [] });
  const o = await f.fetch(s.url('/'));
  assert.equal(o.status, 0);
  assert.equal(o.errorKind, 'network-refused');
  assert.equal(o.error, 'network-refused: 127.0.0.2 is in loopback range 127.0.0.0/8 (open it with --allow-network 127.0.0.0/8)');
  for (const url of [`http://[::1]:${s.port}/`, `http://[::ffff:127.0.0.2]:${s.port}/`, 'http://10.1.2.3/',
    'http://2130706434/', `http://0x7f.2:${s.port}/`, 'http://169.254.169.254/latest/meta-data/']) {
    const r = await f.fetch(url);
    assert.equal(r.errorKind, 'network-refused', url);
    assert.match(r.error, /--allow-network/);
  }
  assert.equal(s.connections, 0);
  assert.equal((await fetcher({ allowNetworks: ['127.0.0.2/32'] }).fetch(s.url('/'))).status, 200);
});

test('should check every address a hostname resolves to and connect only to allowed ones', async () => {
  const s = await http('127.0.0.3', (_req, res) => res.end('ok'));
  const f = fetcher({ resolve: async (h) => (h === 'mixed.test' ? ['10.1.2.3', '127.0.0.3'] : ['192.168.0.9']) });
  const o = await f.fetch(`http://mixed.test:${s.port}/`);
  assert.equal(o.error, '');
  assert.equal(o.remoteAddress, '127.0.0.3');
  const refused = await f.fetch(`http://private.test:${s.port}/`);
  assert.equal(refused.errorKind, 'network-refused');
  assert.match(refused.error, /^network-refused: 192\.168\.0\.9 is in private range 192\.168\.0\.0\/16/);
});

test('should not connect to an address that a hostname rebinds to after the check', async () => {
  const s = await http('127.0.0.2', (_req, res) => res.end('ok'));
  let calls = 0;
  // First answer passes the policy, every later answer points at a refused address.
  const resolve = async () => (++calls === 1 ? ['127.0.0.2'] : ['10.1.2.3']);
  const o = await fetcher({ resolve, dnsCacheMs: 0, allowNetworks: ['127.0.0.2/32'] }).fetch(`http://rebind.test:${s.port}/`);
  assert.ok(calls >= 2, `resolved ${calls} times`);
  assert.equal(o.status, 0);
  assert.equal(o.errorKind, 'network-refused');
  assert.match(o.error, /10\.1\.2\.3 is in private range/);
  // With the cache the connection uses exactly the checked answer.
  calls = 0;
  const cached = await fetcher({ resolve, allowNetworks: ['127.0.0.2/32'] }).fetch(`http://rebind.test:${s.port}/`);
  assert.equal(cached.status, 200);
  assert.equal(calls, 1);
});

test('should report DNS failures, including a lookup that hangs', async () => {
  const f = fetcher({
    connectTimeoutMs: 300,
    resolve: (h) => (h === 'hang.test' ? new Promise(() => {}) : Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' }))),
  });
  const missing = await f.fetch('http://missing.test/');
  assert.equal(missing.errorKind, 'dns');
  assert.equal(missing.error, 'dns: missing.test did not resolve (ENOTFOUND)');
  const hang = await f.fetch('http://hang.test/');
  assert.equal(hang.errorKind, 'dns');
  assert.match(hang.error, /took longer than 300 ms/);
  assert.ok(hang.elapsedMs < 1500);
});

test('should report a refused connection as connect', async () => {
  const port = await closedPort('127.0.0.2');
  const o = await fetcher().fetch(`http://127.0.0.2:${port}/`);
  assert.equal(o.status, 0);
  assert.equal(o.errorKind, 'connect');
  assert.match(o.error, /ECONNREFUSED/);
});

test('should time out a server that never answers with status 0', async () => {
  const s = await raw('127.0.0.2', () => {});
  const o = await fetcher({ headersTimeoutMs: 300 }).fetch(s.url('/'));
  assert.equal(o.status, 0);
  assert.equal(o.errorKind, 'timeout');
  assert.match(o.error, /^timeout: no response headers from 127\.0\.0\.2:\d+ within 300 ms/);
  assert.ok(o.elapsedMs >= 250 && o.elapsedMs < 2000, `${o.elapsedMs} ms`);
});

test('should cut off a body trickled forever at the total timeout, keeping status and partial body', async () => {
  const s = await raw('127.0.0.2', (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 1000000\r\n\r\n<html>');
    const t = setInterval(() => socket.write('.'), 20);
    socket.on('close', () => clearInterval(t));
  });
  const o = await fetcher({ totalTimeoutMs: 600 }).fetch(s.url('/'));
  assert.equal(o.status, 200);
  assert.equal(o.errorKind, 'timeout');
  assert.match(o.error, /^timeout: request exceeded the 600 ms total timeout while reading the body/);
  assert.equal(o.truncated, false); // the error says it is incomplete; truncated is for our size caps only
  assert.ok(o.body.toString().startsWith('<html>.'));
  assert.ok(o.elapsedMs >= 550 && o.elapsedMs < 2000, `${o.elapsedMs} ms`);
});

test('should keep the decoded prefix of a compressed body that stalls until the total timeout', async () => {
  const page = Buffer.from(Array.from({ length: 30_000 }, (_, i) => `<p>${(i * 7919) % 10007}</p>`).join(''));
  const gz = zlib.gzipSync(page);
  const s = await raw('127.0.0.2', (socket) => {
    socket.write(`HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${gz.length}\r\n\r\n`);
    socket.write(gz.subarray(0, gz.length >> 1));
  });
  const o = await fetcher({ totalTimeoutMs: 400 }).fetch(s.url('/'));
  assert.equal(o.status, 200);
  assert.equal(o.errorKind, 'timeout');
  assert.equal(o.truncated, false);
  assert.equal(o.wireBytes, gz.length >> 1);
  assert.ok(o.bytes > 1000 && o.bytes < page.length, `${o.bytes} bytes`);
  assert.deepEqual(o.body, page.subarray(0, o.bytes));
});

test('should stop reading a 20 MB plain body at maxBodyBytes', async () => {
  const chunk = Buffer.alloc(MiB, 'a');
  const s = await http('127.0.0.2', async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    for (let i = 0; i < 20 && !res.destroyed; i++) {
      if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
    }
    res.end();
  });
  const o = await fetcher().fetch(s.url('/big'));
  assert.equal(o.status, 200);
  assert.equal(o.errorKind, 'body-too-large');
  assert.match(o.error, /^body-too-large: body exceeded the 10485760-byte limit \(stopped reading after \d+ wire bytes\)/);
  assert.equal(o.truncated, true);
  assert.equal(o.bytes, 10 * MiB);
  assert.equal(o.body.length, 10 * MiB);
});

test('should stop a 1 GB gzip bomb at maxBodyBytes quickly', async () => {
  const member = zlib.gzipSync(Buffer.alloc(MiB), { level: 9 });
  const bomb = zlib.gzipSync(Buffer.concat(Array<Buffer>(1024).fill(member)), { level: 9 });
  const s = await http('127.0.0.2', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip, gzip' });
    res.end(bomb);
  });
  const f = fetcher({ maxBodyBytes: 4 * MiB });
  const cpu0 = process.cpuUsage();
  const o = await f.fetch(s.url('/bomb'));
  // CPU time, not wall time, tells a stop at 4 MiB from inflating the whole GB (seconds of CPU),
  // whatever else the machine is doing.
  const cpu = process.cpuUsage(cpu0);
  assert.equal(o.errorKind, 'decompression-bomb');
  assert.match(o.error, new RegExp(`inflated past the ${4 * MiB}-byte limit from \\d+ wire bytes`));
  assert.equal(o.bytes, 4 * MiB);
  assert.ok(o.wireBytes <= bomb.length);
  assert.equal(o.truncated, true);
  assert.ok((cpu.user + cpu.system) / 1000 < 500, `${(cpu.user + cpu.system) / 1000} ms of CPU`);
});

test('should report undecodable bodies as bad-encoding', async () => {
  const s = await http('127.0.0.2', (req, res) => {
    res.writeHead(200, { 'content-encoding': req.url === '/zstd' ? 'zstd' : 'gzip' });
    res.end('this is not gzip at all');
  });
  const o = await fetcher().fetch(s.url('/corrupt'));
  assert.equal(o.status, 200);
  assert.equal(o.errorKind, 'bad-encoding');
  assert.match(o.error, /^bad-encoding: gzip data is corrupt/);
  const z = await fetcher().fetch(s.url('/zstd'));
  assert.equal(z.error, 'bad-encoding: unsupported Content-Encoding "zstd"');
});

test('should report garbage as a protocol error and a cut-off response as an incomplete body', async () => {
  const garbage = await raw('127.0.0.2', (socket) => socket.end('SSH-2.0-OpenSSH_9.0\r\n\r\n'));
  const g = await fetcher().fetch(garbage.url('/'));
  assert.equal(g.status, 0);
  assert.equal(g.errorKind, 'protocol');
  const cut = await raw('127.0.0.2', (socket) => socket.once('data', () => {
    socket.end('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n' + 'x'.repeat(400));
  }));
  const c = await fetcher().fetch(cut.url('/'));
  assert.equal(c.status, 200);
  assert.equal(c.errorKind, 'body-incomplete');
  assert.equal(c.truncated, false);
  assert.equal(c.body.length, 400);
});

test('should end a request aborted by the caller with the partial body', async () => {
  const s = await raw('127.0.0.2', (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n');
  });
  const f = fetcher(); // made before the clock starts: the abort must land after the first chunk, even on a loaded machine
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 400);
  const o = await f.fetch(s.url('/'), { signal: ac.signal });
  assert.equal(o.status, 200);
  assert.equal(o.errorKind, 'aborted');
  assert.equal(o.body.toString(), 'hello');
  assert.ok(o.elapsedMs < 3000);
});

test('should bound stored headers but still act on headers sent after the junk', async () => {
  const s = await raw('127.0.0.2', (socket) => {
    const junk = Array.from({ length: 100 }, (_, i) => `X-Junk-${i}: ${i}\r\n`).join('');
    socket.end(`HTTP/1.1 200 OK\r\n${junk}X-Long: ${'v'.repeat(5000)}\r\nContent-Type: text/html; charset=utf-8\r\n` +
      'Content-Length: 2\r\n\r\nok');
  });
  const o = await fetcher().fetch(s.url('/'));
  assert.equal(o.status, 200);
  assert.equal(Object.keys(o.headers).length, 64);
  assert.equal(o.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(o.contentType, 'text/html');
  assert.ok(Object.values(o.headers).every((v) => v.length <= 2048));
  assert.equal(o.body.toString(), 'ok');
});

test('should turn invalid input into outcomes instead of throwing', async () => {
  const f = fetcher();
  assert.equal((await f.fetch('not a url')).errorKind, 'protocol');
  assert.match((await f.fetch('ftp://files.example/')).error, /unsupported scheme "ftp:"/);
  const s = await http('127.0.0.2', (_req, res) => res.end('ok'));
  const bad = await f.fetch(s.url('/'), { headers: { 'x-bad': 'a\r\nInjected: 1' } });
  assert.equal(bad.status, 0);
  assert.equal(bad.errorKind, 'protocol');
  const ac = new AbortController();
  ac.abort();
  assert.equal((await f.fetch(s.url('/'), { signal: ac.signal })).errorKind, 'aborted');
});

test('should keep the total number of sockets at maxConnections across origins', async () => {
  const hosts = ['127.0.0.4', '127.0.0.5', '127.0.0.6'];
  const list = await Promise.all(hosts.map((h) => http(h, (_req, res) => setTimeout(() => res.end('ok'), 20))));
  const openNow = () => list.reduce((n, s) => n + s.open, 0);
  const f = fetcher({ maxConnections: 2 });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, openNow())), 2);
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => f.fetch(list[i % 3].url(`/${i}`))));
  for (const s of list) assert.equal((await f.fetch(s.url('/again'))).status, 200);
  await new Promise((r) => setTimeout(r, 50));
  clearInterval(sampler);
  assert.ok(results.every((r) => r.status === 200));
  assert.ok(peak <= 2, `peak of ${peak} open sockets`);
  assert.ok(openNow() <= 2);
});

test('should free the slot of a refused or unresolvable request at once', async () => {
  const s = await http('127.0.0.2', (_req, res) => res.end('ok'));
  const f = fetcher({
    maxConnections: 1, allowNetworks: ['127.0.0.2/32'],
    resolve: () => Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' })),
  });
  for (let i = 0; i < 3; i++) {
    assert.equal((await f.fetch('http://10.9.9.9/')).errorKind, 'network-refused');
    assert.equal((await f.fetch('http://gone.test/')).errorKind, 'dns');
  }
  const t = Date.now();
  const o = await f.fetch(s.url('/'));
  assert.equal(o.status, 200);
  // elapsedMs starts once a slot is granted, so the wait for a leaked slot only shows on the wall clock
  assert.ok(Date.now() - t < 500, `${Date.now() - t} ms`);
});

test('should answer fetches after close with aborted', async () => {
  const f = fetcher();
  await f.close();
  const o = await f.fetch('http://127.0.0.2:9/');
  assert.equal(o.errorKind, 'aborted');
});

test('should keep what an archive needs: request headers as sent, reason phrase and response headers as received', async () => {
  let received = '';
  const s = await raw('127.0.0.2', (socket) => {
    socket.once('data', (d) => {
      received = d.toString('latin1');
      socket.end('HTTP/1.1 200 Quite OK\r\nX-Mixed-Case: one\r\nSet-Cookie: a=1\r\ncontent-type: text/plain\r\nSet-Cookie: b=2\r\nContent-Length: 2\r\n\r\nhi');
    });
  });
  const o = await fetcher().fetch(s.url('/p?q=1'), { headers: { 'If-None-Match': '"v1"' } });
  assert.equal(o.error, '');
  assert.equal(o.incomplete, false);
  assert.equal(o.httpVersion, '1.1');
  assert.equal(o.statusText, 'Quite OK');
  assert.deepEqual(o.responseHeaders, [['X-Mixed-Case', 'one'], ['Set-Cookie', 'a=1'], ['content-type', 'text/plain'], ['Set-Cookie', 'b=2'], ['Content-Length', '2']]);
  assert.equal(o.method, 'GET');
  assert.match(received, /^GET \/p\?q=1 HTTP\/1\.1\r\n/);
  // Every header line recorded as sent was on the wire, in that order (undici adds only its Connection).
  const wire = received.split('\r\n').slice(1).filter(Boolean).map((l) => l.slice(0, l.indexOf(':')).toLowerCase());
  assert.deepEqual(o.requestHeaders.map(([n]) => n), wire.filter((n) => n !== 'connection'));
  assert.deepEqual(o.requestHeaders[0], ['host', `127.0.0.2:${s.port}`]);
  assert.ok(o.requestHeaders.some(([n, v]) => n === 'if-none-match' && v === '"v1"'));
});

test('should say a body is incomplete when a response arrived and its body did not end whole', async () => {
  const s = await raw('127.0.0.2', (socket) => {
    socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part'));
  });
  const cut = await fetcher().fetch(s.url('/cut'));
  assert.equal(cut.status, 200);
  assert.equal(cut.errorKind, 'body-incomplete');
  assert.equal(cut.incomplete, true);
  const refused = await fetcher().fetch(`http://127.0.0.2:${await closedPort('127.0.0.2')}/`);
  assert.equal(refused.status, 0);
  assert.equal(refused.incomplete, false, 'no response, no body to be incomplete');
});
