#!/usr/bin/env node
// The bench web at almost no cost per page: every response (head and body) is built before the server
// listens and written from memory by a minimal HTTP/1.1 responder (raw-http.ts), and the request log is a
// flat array of numbers. So the crawlers compared, and the fetch ceiling, are limited by themselves and
// not by the server (test-web/serve.js renders each page per request on node:http: ~0.2 ms of server CPU
// per page, on the cores the crawler needs).
//   node dist/bench/bench-server.js [--hosts 200] [--pages 50] [--kind bench|template-heavy]
//        [--first-address 127.30.0.1] [--log FILE] [--tls-dir DIR]
// Prints one JSON line {"port","seeds","origins","renderSeconds","totalBytes"[,"caFile"]} once listening.
// With --tls-dir it serves HTTPS: a CA and a certificate for its addresses are made in DIR (bench-ca.ts),
// and caFile names the CA certificate a crawler must trust. Exits on
// SIGTERM, SIGINT or when stdin closes (a harness that dies takes it along). With --log FILE the request
// log is written as JSON lines on exit, in the format bench/web.ts analyzes.
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { parseArgs } from 'node:util';
import { consecutiveAddresses, now } from '../test-web/synthetic-web.js';
import { ALLOW_ALL_ROBOTS } from '../test-web/site.js';
import { makeBenchCertificates } from './bench-ca.js';
import { renderPages, type WebKind } from './bench-pages.js';
import { prebuild, serveConnection, type Prebuilt } from './raw-http.js';

const ROBOTS = -1;
const NOT_FOUND = -2;
const FIELDS = 5; // host index, page (or ROBOTS / NOT_FOUND), startedAt, endedAt, status
const BIND_ATTEMPTS = 20;
const PAGE_PATH = /^\/p\/[1-9]\d{0,8}$/;

const { values } = parseArgs({
  options: {
    hosts: { type: 'string', default: '200' },
    pages: { type: 'string', default: '50' },
    kind: { type: 'string', default: 'bench' },
    'first-address': { type: 'string', default: '127.30.0.1' },
    log: { type: 'string' },
    'tls-dir': { type: 'string' },
  },
});
const hosts = Number(values.hosts);
const pagesPerHost = Number(values.pages);
if (!Number.isInteger(hosts) || hosts < 1 || !Number.isInteger(pagesPerHost) || pagesPerHost < 1) throw new Error('--hosts and --pages must be positive integers');
const kind = values.kind as WebKind;
if (kind !== 'bench' && kind !== 'template-heavy') throw new Error('--kind must be bench or template-heavy');
const addresses = consecutiveAddresses(values['first-address']!, hosts);
const tls = values['tls-dir'] ? makeBenchCertificates(values['tls-dir'], addresses) : undefined;

const log: number[] = [];
/** Paths of requests answered 404, by their log position (rare: sitemaps and the like). */
const otherPaths = new Map<number, string>();
const HTML = 'text/html; charset=utf-8';
const robots = prebuild(200, 'OK', 'text/plain; charset=utf-8', Buffer.from(ALLOW_ALL_ROBOTS));
const notFound = prebuild(404, 'Not Found', HTML, Buffer.from('<!doctype html><title>Not found</title><h1>Not found</h1>\n'));
let pages: Prebuilt[][] = [];

/** The page number of a path: 0 for '/', n for '/p/n', ROBOTS, or NOT_FOUND. */
function pageOf(url: string): number {
  if (url === '/') return 0;
  if (url === '/robots.txt') return ROBOTS;
  if (PAGE_PATH.test(url)) {
    const n = Number(url.slice(3));
    if (n < pagesPerHost) return n;
  }
  return NOT_FOUND;
}

function makeServer(host: number): Server {
  const serve = (socket: Parameters<typeof serveConnection>[0]) => serveConnection(socket, ({ target }) => {
    const page = pageOf(target);
    const at = log.length;
    log.push(host, page, now(), 0, 0);
    if (page === NOT_FOUND) otherPaths.set(at, target.slice(0, 200));
    return {
      answer: page >= 0 ? pages[host][page] : page === ROBOTS ? robots : notFound,
      sent: (status) => {
        log[at + 3] = now();
        log[at + 4] = status;
      },
    };
  });
  // A TLS socket is a net.Socket: the responder serves both alike.
  // ALPN says HTTP/1.1 as such servers do: a client that probes for HTTP/2 learns it in the handshake.
  return tls ? createTlsServer({ key: tls.key, cert: tls.cert, ALPNProtocols: ['http/1.1'] }, serve) : createServer(serve);
}

function listen(server: Server, port: number, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Every address on one port: the first on a free port, the rest on the port it got (retried when taken). */
async function bindAll(): Promise<{ servers: Server[]; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const servers = addresses.map((_, i) => makeServer(i));
    try {
      await listen(servers[0], 0, addresses[0]);
      const port = (servers[0].address() as { port: number }).port;
      await Promise.all(servers.slice(1).map((s, i) => listen(s, port, addresses[i + 1])));
      return { servers, port };
    } catch (err) {
      for (const s of servers) if (s.listening) s.close();
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= BIND_ATTEMPTS) throw err;
    }
  }
}

function writeLog(file: string): void {
  const lines: string[] = [];
  for (let i = 0; i < log.length; i += FIELDS) {
    const page = log[i + 1];
    const path = page === ROBOTS ? '/robots.txt' : page === NOT_FOUND ? otherPaths.get(i) ?? '' : page === 0 ? '/' : `/p/${page}`;
    lines.push(JSON.stringify({ host: `${addresses[log[i]]}:${port}`, path, startedAt: log[i + 2], endedAt: log[i + 3] || null, status: log[i + 4] }));
  }
  writeFileSync(file, lines.length ? `${lines.join('\n')}\n` : '');
}

const { servers, port } = await bindAll();
const origins = addresses.map((a) => `${tls ? 'https' : 'http'}://${a}:${port}`);
const t0 = performance.now();
const rendered = renderPages(kind, origins, pagesPerHost, (body) => prebuild(200, 'OK', HTML, body));
pages = rendered.pages;
process.stdout.write(`${JSON.stringify({
  port, origins, seeds: origins.map((o) => `${o}/`), kind,
  renderSeconds: Math.round(performance.now() - t0) / 1000, totalBytes: rendered.totalBytes, ...(tls ? { caFile: tls.caFile } : {}),
})}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  for (const s of servers) s.close();
  if (values.log) writeLog(values.log);
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
