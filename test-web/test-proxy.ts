// A forward proxy on loopback for the proxy tests: CONNECT tunnels (https targets) and forwarding of
// absolute-URI requests (http targets), with a name table of its own (so it can reach names the
// crawler's DNS cannot), hosts it refuses (403 with Proxy-Status, RFC 9209), optional credentials
// (407 without them) and a log of what it was asked.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect as netConnect, isIP, type AddressInfo, type Socket } from 'node:net';

export interface ProxyLogEntry { method: string; target: string; status: number }

export interface TestProxy {
  url: string;
  log: ProxyLogEntry[];
  close(): Promise<void>;
}

export interface TestProxyOptions {
  address?: string;
  /** Names this proxy resolves (the crawler may not). */
  names?: Record<string, string>;
  /** Host names it answers 403 for. */
  refuse?: string[];
  /** 'user:password' it requires in Proxy-Authorization. */
  credentials?: string;
}

export async function startTestProxy(o: TestProxyOptions = {}): Promise<TestProxy> {
  const log: ProxyLogEntry[] = [];
  const sockets = new Set<Socket>();
  const names = new Map(Object.entries(o.names ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const refuse = new Set((o.refuse ?? []).map((h) => h.toLowerCase()));
  const expected = o.credentials ? `Basic ${Buffer.from(o.credentials).toString('base64')}` : '';

  /** The address to dial, or the status and Proxy-Status error to answer with. */
  const route = (req: IncomingMessage, host: string): { address: string } | { status: number; error: string } => {
    if (expected && req.headers['proxy-authorization'] !== expected) return { status: 407, error: 'proxy_auth_required' };
    const name = host.replace(/^\[|\]$/g, '').toLowerCase();
    if (refuse.has(name)) return { status: 403, error: 'destination_ip_prohibited' };
    const address = isIP(name) ? name : names.get(name);
    return address ? { address } : { status: 502, error: 'dns_error' };
  };
  const refusal = (status: number, error: string) =>
    `HTTP/1.1 ${status} ${status === 407 ? 'Proxy Authentication Required' : status === 403 ? 'Forbidden' : 'Bad Gateway'}\r\n` +
    `Proxy-Status: test-proxy; error=${error}\r\n${status === 407 ? 'Proxy-Authenticate: Basic realm="test"\r\n' : ''}Content-Length: 0\r\nConnection: close\r\n\r\n`;

  const server: Server = createServer((req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    const r = route(req, target.hostname);
    const entry: ProxyLogEntry = { method: req.method ?? '', target: target.href, status: 0 };
    log.push(entry);
    if ('status' in r) {
      entry.status = r.status;
      res.socket?.end(refusal(r.status, r.error));
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = httpRequest({ host: r.address, port: target.port || 80, path: target.pathname + target.search, method: req.method, headers }, (up) => {
      entry.status = up.statusCode ?? 0;
      res.writeHead(up.statusCode ?? 502, up.rawHeaders);
      up.pipe(res);
    });
    upstream.on('error', () => {
      entry.status = 502;
      if (!res.headersSent) res.writeHead(502, { 'proxy-status': 'test-proxy; error=connection_refused' });
      res.end();
    });
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const m = /^(.+):(\d+)$/.exec(req.url ?? '');
    const entry: ProxyLogEntry = { method: 'CONNECT', target: req.url ?? '', status: 0 };
    log.push(entry);
    client.on('error', () => {});
    const r = m ? route(req, m[1]) : { status: 400, error: 'http_request_error' };
    if ('status' in r) {
      entry.status = r.status;
      client.end(refusal(r.status, r.error));
      return;
    }
    const upstream = netConnect({ host: r.address, port: Number(m![2]) }, () => {
      entry.status = 200;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      if (entry.status === 0) {
        entry.status = 502;
        client.end(refusal(502, 'connection_refused'));
      } else client.destroy();
    });
    client.once('close', () => upstream.destroy());
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  const address = o.address ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    log,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
