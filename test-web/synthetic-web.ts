// A synthetic web on loopback: one http.Server per host, each on its own 127.x.y.z address and all on the
// same port, so URLs name hosts by IP literal (http://127.10.0.7:41234/) and no DNS is involved.
// Linux routes all of 127.0.0.0/8 to lo; we never bind 0.0.0.0.
//
// Default address ranges (override with `firstAddress`): test 127.10.0.1+, bench 127.20.0.1+, demo
// 127.30.0.1+; the host order inside each range is documented in scenario-test.ts / -bench.ts / -demo.ts.
// The server-side request log (`requests`) is the ground truth for politeness and robots assertions.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Socket } from 'node:net';
import { buildBenchScenario, DEFAULT_BENCH } from './scenario-bench.js';
import { buildDemoScenario, DEMO_HOST_NAMES } from './scenario-demo.js';
import { buildFreshScenario, FRESH_HOST_NAMES, type FreshTruth } from './scenario-fresh.js';
import { buildSharedScenario } from './scenario-shared.js';
import { buildTlsScenario, TLS_HOST_NAMES, tlsServerPair, type TlsTruth } from './scenario-tls.js';
import { type BuiltScenario, buildTestScenario, type HostHandler, TEST_HOST_NAMES } from './scenario-test.js';
import { buildTopicScenario, TOPIC_HOST_NAMES, type TopicTruth } from './scenario-topic.js';
import type { ScenarioName, SyntheticWeb, SyntheticWebOptions, WebRequest } from './types.js';

export type {
  BenchOptions,
  CrawlOptions,
  ExpectedOutcomes,
  HostInfo,
  ScenarioName,
  SyntheticWeb,
  SyntheticWebOptions,
  WebRequest,
} from './types.js';
export { DEFAULT_CRAWL_OPTIONS, MAX_REDIRECT_HOPS } from './types.js';
export { DEFAULT_BENCH } from './scenario-bench.js';

export const DEFAULT_FIRST_ADDRESS: Record<ScenarioName, string> = {
  test: '127.10.0.1',
  bench: '127.20.0.1',
  demo: '127.30.0.1',
  fresh: '127.40.0.1',
  shared: '127.50.0.1',
  tls: '127.60.0.1',
  topic: '127.70.0.1',
};

const BIND_ATTEMPTS = 20;

export function now(): number {
  return performance.timeOrigin + performance.now();
}

/** `count` addresses from `first` upwards, skipping x.y.z.0 and x.y.z.255 (legal on lo, but confusing). */
export function consecutiveAddresses(first: string, count: number): string[] {
  const octets = first.split('.').map(Number);
  if (octets.length !== 4 || octets[0] !== 127 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) {
    throw new Error(`firstAddress must be an IPv4 address in 127.0.0.0/8, got ${first}`);
  }
  const out: string[] = [];
  for (let n = ((octets[1] << 16) | (octets[2] << 8) | octets[3]) >>> 0; out.length < count; n++) {
    if (n > 0xffffff) throw new Error(`not enough loopback addresses after ${first} for ${count} hosts`);
    const last = n & 0xff;
    if (last !== 0 && last !== 255) out.push(`127.${(n >> 16) & 0xff}.${(n >> 8) & 0xff}.${last}`);
  }
  return out;
}

function listen(server: Server, port: number, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, address, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function shutdown(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    // close() alone waits for busy sockets; a hanging or trickling response would never let it finish.
    server.closeAllConnections();
  });
}

/** Binds every address on one port: the first on `port` (0 = any free one), the rest on the port it got. */
async function bindAll(addresses: string[], port: number | undefined, make: (address: string) => Server) {
  for (let attempt = 1; ; attempt++) {
    const servers: Server[] = [];
    try {
      const first = make(addresses[0]);
      servers.push(first);
      await listen(first, port ?? 0, addresses[0]);
      const bound = (first.address() as { port: number }).port;
      const rest = addresses.slice(1).map((a) => {
        const s = make(a);
        servers.push(s);
        return listen(s, bound, a);
      });
      const results = await Promise.allSettled(rest);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      return { servers, port: bound };
    } catch (err) {
      await Promise.all(servers.map(shutdown));
      // Another process may own the port we were given on some other address: try a fresh port.
      const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (!inUse || port !== undefined || attempt >= BIND_ATTEMPTS) throw err;
    }
  }
}

function record(entry: WebRequest, req: IncomingMessage, res: ServerResponse): void {
  const socket = req.socket;
  const done = () => {
    // Off again, or a keep-alive socket would collect one listener per request it carried.
    socket.off('close', done);
    if (entry.endedAt !== Infinity) return;
    entry.endedAt = now();
    entry.status = res.headersSent ? res.statusCode : 0;
    const retryAfter = res.headersSent ? res.getHeader('retry-after') : undefined;
    if (retryAfter !== undefined && /^\d+$/.test(String(retryAfter))) entry.retryAfterMs = Number(retryAfter) * 1000;
  };
  res.once('finish', done);
  res.once('close', done);
  // The socket's 'close' comes before the response's; close() waits for it, so it leaves no entry open.
  socket.once('close', done);
}

function build(options: SyntheticWebOptions, addresses: string[], port: number): BuiltScenario & { fresh?: FreshTruth; tls?: TlsTruth; topic?: TopicTruth } {
  if (options.scenario === 'tls') return buildTlsScenario(addresses, port);
  if (options.scenario === 'topic') return buildTopicScenario(addresses, port);
  if (options.scenario === 'test') return buildTestScenario(addresses, port);
  if (options.scenario === 'fresh') return buildFreshScenario(addresses, port, options.fresh);
  if (options.scenario === 'shared') return buildSharedScenario(addresses, port);
  if (options.scenario === 'demo') return buildDemoScenario(addresses, port);
  return buildBenchScenario(addresses, port, { ...DEFAULT_BENCH, ...options.bench });
}

function hostCount(options: SyntheticWebOptions): number {
  if (options.scenario === 'test') return TEST_HOST_NAMES.length;
  if (options.scenario === 'demo') return DEMO_HOST_NAMES.length;
  if (options.scenario === 'fresh') return FRESH_HOST_NAMES.length;
  if (options.scenario === 'shared') return 1;
  if (options.scenario === 'tls') return TLS_HOST_NAMES.length;
  if (options.scenario === 'topic') return TOPIC_HOST_NAMES.length;
  if (options.scenario === 'bench') return options.bench?.hosts ?? DEFAULT_BENCH.hosts;
  throw new Error(`unknown scenario ${String(options.scenario)}`);
}

export async function startSyntheticWeb(options: SyntheticWebOptions): Promise<SyntheticWeb> {
  const addresses = consecutiveAddresses(options.firstAddress ?? DEFAULT_FIRST_ADDRESS[options.scenario], hostCount(options));
  const keepLog = options.log !== false;
  const requests: WebRequest[] = [];
  const handlers = new Map<string, HostHandler>();
  const sockets = new Set<Socket>();
  let port = 0;

  const make = (address: string): Server => {
    // The 'tls' scenario serves some of its hosts over HTTPS, each with its certificate.
    const pair = options.scenario === 'tls' ? tlsServerPair(addresses.indexOf(address)) : undefined;
    const listener = (req: IncomingMessage, res: ServerResponse) => {
      const entry: WebRequest = {
        host: `${address}:${port}`,
        path: req.url ?? '',
        method: req.method ?? '',
        userAgent: req.headers['user-agent'] ?? '',
        startedAt: now(),
        endedAt: Infinity,
        status: 0,
        conditional: req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined,
        hostHeader: String(req.headers.host ?? ''),
      };
      if (keepLog) requests.push(entry);
      record(entry, req, res);
      const host = handlers.get(address);
      try {
        if (host) host.handle(req, res);
        else res.writeHead(503).end();
      } catch (err) {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(`synthetic web bug: ${String(err)}\n`);
        else res.destroy();
      }
    };
    const server: Server = pair ? createTlsServer({ key: pair.key, cert: pair.cert }, listener) : createServer(listener);
    // A crawler refusing a bad certificate is what the 'tls' scenario is for: not an error here.
    if (pair) server.on('tlsClientError', () => {});
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    // Hostile endpoints keep responses open on purpose; Node's own timeouts must not end them first.
    server.requestTimeout = 0;
    server.timeout = 0;
    return server;
  };

  const bound = await bindAll(addresses, options.port, make);
  port = bound.port;
  const built = build(options, addresses, port);
  for (const h of built.hosts) handlers.set(h.address, h);
  const byName = new Map(built.hosts.map((h) => [h.name, h]));
  let closing: Promise<void> | undefined;

  return {
    port,
    hosts: built.hosts.map((h) => ({
      name: h.name,
      address: h.address,
      origin: h.origin,
      ...(h.crawlDelayMs !== undefined ? { crawlDelayMs: h.crawlDelayMs } : {}),
    })),
    seeds: built.seeds,
    origin(hostName: string): string {
      const h = byName.get(hostName);
      if (!h) throw new Error(`no host named ${hostName} in this synthetic web`);
      return h.origin;
    },
    requests,
    expected: built.expected,
    fresh: built.fresh,
    tls: built.tls,
    topic: built.topic,
    endpoints: built.endpoints,
    resetLog(): void {
      requests.length = 0;
    },
    close(): Promise<void> {
      closing ??= (async () => {
        await Promise.all(bound.servers.map(shutdown));
        // A destroyed socket reports 'close' only after the server's close callback; waiting for it lets
        // every log entry get its endedAt before close() resolves.
        await Promise.all([...sockets].map((s) => new Promise((resolve) => s.once('close', resolve))));
      })();
      return closing;
    },
  };
}
