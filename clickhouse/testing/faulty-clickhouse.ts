// A ClickHouse that fails the way real ones do, on loopback: an HTTP server standing in for the
// server URL that passes requests to a real server (or answers nothing itself) until told to fail.
// Faults: 'error' answers 500 with a ClickHouse-style exception, 'close' drops the connection
// without an answer, 'hang' accepts the request and never answers. `failing` picks which requests
// fail: every one, or only INSERTs (the sink's writes), so a crawl can start and then lose its sink.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type ClickHouseFault = 'none' | 'error' | 'close' | 'hang';

export interface FaultyClickHouse {
  readonly url: string;
  fault: ClickHouseFault;
  failing: 'all' | 'inserts';
  /** Requests that met a fault, and those passed on. */
  readonly stats: { failed: number; passed: number; inserts: number };
  close(): Promise<void>;
}

/**
 * @param upstream the real server to pass requests to (http://host:port); without it every request
 *   that does not fail gets a 500 too (a server that never worked).
 */
export async function startFaultyClickHouse(opts: { upstream?: string; fault?: ClickHouseFault; failing?: 'all' | 'inserts'; host?: string } = {}): Promise<FaultyClickHouse> {
  const sockets = new Set<Socket>();
  const state = { fault: opts.fault ?? 'none', failing: opts.failing ?? 'all', stats: { failed: 0, passed: 0, inserts: 0 } };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  function isInsert(req: IncomingMessage, body: Buffer): boolean {
    const query = new URL(req.url ?? '/', 'http://x').searchParams.get('query') ?? '';
    return /^\s*INSERT\b/i.test(query) || /^\s*INSERT\b/i.test(body.subarray(0, 200).toString('latin1'));
  }

  function handle(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const insert = isInsert(req, body);
    if (insert) state.stats.inserts++;
    const fails = state.fault !== 'none' && (state.failing === 'all' || insert);
    if (fails || !opts.upstream) {
      state.stats.failed++;
      const fault = state.fault === 'none' ? 'error' : state.fault;
      if (fault === 'hang') return; // the socket stays open, unanswered
      if (fault === 'close') return void req.socket.destroy();
      res.writeHead(500, { 'content-type': 'text/plain', 'x-clickhouse-exception-code': '241' });
      res.end('Code: 241. DB::Exception: Memory limit (total) exceeded: would use 9.31 GiB (attempt to allocate chunk of 4194304 bytes), maximum: 9.31 GiB: injected by the test. (MEMORY_LIMIT_EXCEEDED) (version 23.8.1.1)\n');
      return;
    }
    state.stats.passed++;
    const target = new URL(req.url ?? '/', opts.upstream);
    const up = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => req.socket.destroy());
    up.end(body);
  }

  await new Promise<void>((resolve) => server.listen(0, opts.host ?? '127.0.0.1', resolve));
  const { port, address } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    get fault() {
      return state.fault;
    },
    set fault(f: ClickHouseFault) {
      state.fault = f;
    },
    get failing() {
      return state.failing;
    },
    set failing(f: 'all' | 'inserts') {
      state.failing = f;
    },
    stats: state.stats,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
