// Measures what HttpFetcher costs on top of plain undici, against a loopback server in a child process
// (so server work does not share the event loop). Not part of the test suite.
//   node dist/fetching/fetcher-bench.js [--requests 20000] [--concurrency 64] [--codec] [--tls]
// --tls adds HTTPS requests (a test CA made with openssl, kept-alive connections, and new ones).
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { compressBody } from './body-codec.js';
import { HttpFetcher } from './http-fetcher.js';
import { testCertificates } from '../test-web/tls-certs.js';

const TLS_NAME = 'bench.tls.test';

const HOST = '127.0.0.2';

function page(bytes: number): Buffer {
  let html = '<!doctype html><html><head><title>bench</title></head><body>';
  for (let i = 0; html.length < bytes - 30; i++) {
    html += `<p>paragraph ${(i * 7919) % 10007} with a <a href="/p/${(i * 104729) % 99991}.html">link</a> and text</p>\n`;
  }
  return Buffer.from(html + '</body></html>');
}

function serve(tls?: { key: string; cert: string }): void {
  const plain = page(18 * 1024);
  const gz = gzipSync(plain);
  const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const gzip = req.url?.startsWith('/gz');
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': gzip ? gz.length : plain.length,
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
    res.end(gzip ? gz : plain);
  };
  const server = tls ? createTlsServer({ ...tls, keepAliveTimeout: 60_000 }, handler) : createServer({ keepAliveTimeout: 60_000 }, handler);
  server.listen(0, HOST, () => process.send?.((server.address() as AddressInfo).port));
}

async function run(label: string, total: number, concurrency: number, one: (i: number) => Promise<number>) {
  let next = 0;
  let bytes = 0;
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) {
      const n = await one(next++);
      bytes += n;
    }
  }));
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  // Client-process CPU per request is the fetcher's real cost; wall time also depends on the server.
  const cpuUs = (cpu.user + cpu.system) / total;
  console.log(`${label.padEnd(48)} ${(total / (ms / 1000)).toFixed(0).padStart(6)} req/s  ` +
    `${((ms * 1000) / total).toFixed(1).padStart(6)} µs wall/req  ${cpuUs.toFixed(1).padStart(6)} µs CPU/req  ` +
    `${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(1)} MiB/s decoded`);
  return cpuUs;
}

function sha1Cost(body: Buffer): number {
  const n = 20_000;
  const t = process.cpuUsage();
  for (let i = 0; i < n; i++) createHash('sha1').update(body).digest('hex');
  const c = process.cpuUsage(t);
  return (c.user + c.system) / n;
}

function codecBench(): void {
  const body = page(18 * 1024);
  for (const level of [1, 6]) {
    const n = 3000;
    for (let i = 0; i < 300; i++) gzipSync(body, { level });
    const t = performance.now();
    let size = 0;
    for (let i = 0; i < n; i++) size = gzipSync(body, { level }).length;
    console.log(`gzip level ${level} on ${body.length}-byte page: ${(((performance.now() - t) * 1000) / n).toFixed(1)} µs, ` +
      `${size} bytes (${((100 * size) / body.length).toFixed(1)}%)`);
  }
  const t = performance.now();
  for (let i = 0; i < 3000; i++) compressBody(body);
  console.log(`compressBody (chosen level): ${(((performance.now() - t) * 1000) / 3000).toFixed(1)} µs per page`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--serve')) {
    const pem = args.indexOf('--pem');
    return serve(pem === -1 ? undefined : JSON.parse(readFileSync(args[pem + 1], 'utf8')) as { key: string; cert: string });
  }
  const opt = (name: string, d: number) => {
    const i = args.indexOf(name);
    return i === -1 ? d : Number(args[i + 1]);
  };
  const total = opt('--requests', 20_000);
  const concurrency = opt('--concurrency', 64);
  if (args.includes('--codec')) return codecBench();

  const child = fork(process.argv[1], ['--serve'], { stdio: 'inherit' });
  const port = await new Promise<number>((resolve) => child.once('message', (p) => resolve(Number(p))));
  const base = `http://${HOST}:${port}`;
  const fetcher = new HttpFetcher({
    userAgent: 'crawlstream-bench/1.0', connectTimeoutMs: 5000, headersTimeoutMs: 5000, totalTimeoutMs: 10_000,
    maxBodyBytes: 10 * 1024 * 1024, allowNetworks: ['127.0.0.0/8'], maxConnections: 256,
  });
  const agent = new Agent({ connections: 256, pipelining: 1 });
  const viaFetcher = (path: string) => async () => {
    const o = await fetcher.fetch(base + path);
    if (o.status !== 200 || o.error) throw new Error(o.error || `status ${o.status}`);
    return o.bytes;
  };
  // Streaming mode hashes every body (SHA-1); the buffered mode above does not.
  const viaSink = (path: string) => async () => {
    const o = await fetcher.fetch(base + path, { bodySink: () => {} });
    if (o.status !== 200 || o.error || !o.sha1) throw new Error(o.error || `status ${o.status}`);
    return o.bytes;
  };
  const viaUndici = (path: string) => async () => {
    const r = await request(base + path, { dispatcher: agent, headers: { 'user-agent': 'crawlstream-bench/1.0' } });
    return Buffer.from(await r.body.arrayBuffer()).length;
  };
  try {
    for (const [label, fn] of [['warm-up', viaFetcher('/')], ['warm-up', viaUndici('/')]] as const) {
      await run(label, 2000, concurrency, fn);
    }
    const seqN = Math.min(total, 5000);
    const seqFetcher = await run('sequential, HttpFetcher, 18 KB identity', seqN, 1, viaFetcher('/'));
    const seqUndici = await run('sequential, undici.request, 18 KB identity', seqN, 1, viaUndici('/'));
    const parUndici = await run(`c=${concurrency}, undici.request, 18 KB identity`, total, concurrency, viaUndici('/'));
    const parFetcher = await run(`c=${concurrency}, HttpFetcher, 18 KB identity`, total, concurrency, viaFetcher('/'));
    const parSink = await run(`c=${concurrency}, HttpFetcher, 18 KB identity, bodySink + SHA-1`, total, concurrency, viaSink('/'));
    await run(`c=${concurrency}, HttpFetcher, 18 KB page, gzip on the wire`, total, concurrency, viaFetcher('/gz'));
    if (args.includes('--tls')) await tlsBench(total, concurrency, parFetcher);
    console.log(`SHA-1 of an 18 KB page alone: ${sha1Cost(page(18 * 1024)).toFixed(1)} µs CPU; streaming with SHA-1 over buffered: ` +
      `${(parSink - parFetcher).toFixed(1)} µs/request at c=${concurrency}`);
    console.log(`HttpFetcher CPU overhead over undici.request: ${(seqFetcher - seqUndici).toFixed(1)} µs/request ` +
      `sequential, ${(parFetcher - parUndici).toFixed(1)} µs/request at c=${concurrency}`);
  } finally {
    await fetcher.close();
    await agent.close();
    child.kill();
  }
}

/** HTTPS through the same fetcher: what TLS adds per request on kept-alive connections, and per new connection. */
async function tlsBench(total: number, concurrency: number, plainCpuUs: number): Promise<void> {
  const certs = testCertificates({ names: [TLS_NAME, `*.${TLS_NAME}`], expiredName: 'expired.tls.test', selfSignedName: 'self.tls.test' });
  const pemFile = join(tmpdir(), `fetcher-bench-${process.pid}.json`);
  writeFileSync(pemFile, JSON.stringify(certs.good));
  const child = fork(process.argv[1], ['--serve', '--pem', pemFile], { stdio: 'inherit' });
  const port = await new Promise<number>((resolve) => child.once('message', (p) => resolve(Number(p))));
  const fetcher = new HttpFetcher({
    userAgent: 'crawlstream-bench/1.0', connectTimeoutMs: 5000, headersTimeoutMs: 5000, totalTimeoutMs: 10_000,
    maxBodyBytes: 10 * 1024 * 1024, allowNetworks: ['127.0.0.0/8'], maxConnections: 256,
    resolve: () => Promise.resolve([HOST]), tls: { verify: 'on', ca: certs.caPem },
  });
  const one = (host: (i: number) => string) => async (i: number) => {
    const o = await fetcher.fetch(`https://${host(i)}:${port}/`);
    if (o.status !== 200 || o.error) throw new Error(o.error || `status ${o.status}`);
    return o.bytes;
  };
  try {
    await run('warm-up', 2000, concurrency, one(() => TLS_NAME));
    const tls = await run(`c=${concurrency}, HttpFetcher, 18 KB identity over TLS`, total, concurrency, one(() => TLS_NAME));
    // Each request to a host name of its own: a new connection, a full handshake (no session to resume).
    const fresh = await run('sequential, HttpFetcher, TLS, a new connection each', Math.min(total, 1000), 1, one((i) => `h${i}.${TLS_NAME}`));
    console.log(`TLS over plain HTTP: ${(tls - plainCpuUs).toFixed(1)} µs CPU/request on kept-alive connections at c=${concurrency}; ` +
      `${fresh.toFixed(0)} µs CPU for a request on a new connection (handshake, certificate check)`);
  } finally {
    await fetcher.close();
    child.kill();
  }
}

void main();
