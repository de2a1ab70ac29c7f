// Loopback servers for the fetcher's tests and benchmark: well-behaved HTTP and raw TCP for the hostile
// cases (silence, trickling, garbage). Each tracks its connections so tests can assert on socket reuse.
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface TestServer {
  host: string;
  port: number;
  url(path?: string): string;
  /** Connections accepted so far, and those open right now. */
  connections: number;
  open: number;
  close(): Promise<void>;
}

function track(server: Server, host: string, scheme = 'http'): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const state: TestServer = {
    host,
    port: 0,
    url: (path = '/') => `${scheme}://${host.includes(':') ? `[${host}]` : host}:${state.port}${path}`,
    connections: 0,
    open: 0,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  server.on('connection', (socket: Socket) => {
    state.connections++;
    state.open++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => {
      state.open--;
      sockets.delete(socket);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      state.port = (server.address() as AddressInfo).port;
      resolve(state);
    });
  });
}

export function startHttpServer(
  host: string,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TestServer> {
  const server = createHttpServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    res.on('error', () => {});
    handler(req, res);
  });
  return track(server, host);
}

/** An HTTPS server with the given key and certificate; `url()` names its address (give names with --resolve-style pins). */
export function startHttpsServer(
  host: string,
  pair: { key: string; cert: string },
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TestServer> {
  const server = createHttpsServer({ key: pair.key, cert: pair.cert, keepAliveTimeout: 30_000 }, (req, res) => {
    res.on('error', () => {});
    handler(req, res);
  });
  server.on('tlsClientError', () => {}); // a client refusing our certificate is what some tests want
  return track(server, host, 'https');
}

/** A TCP server that speaks whatever `onSocket` writes, for responses no HTTP library would produce. */
export function startRawServer(host: string, onSocket: (socket: Socket) => void): Promise<TestServer> {
  const server = createNetServer((socket) => onSocket(socket));
  return track(server, host);
}

/** A port on `host` where nothing listens (connections are refused). */
export async function closedPort(host: string): Promise<number> {
  const s = await startRawServer(host, () => {});
  await s.close();
  return s.port;
}
