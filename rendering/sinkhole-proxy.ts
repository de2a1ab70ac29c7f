// The browser's proxy: a loopback port that accepts connections and closes them. Every request the
// crawler allows is answered by request interception before it reaches the network stack, so only
// traffic that escaped interception ever comes here (the browser's own background services, shared
// workers, preconnects): it is counted and reported instead of reaching the network, and because
// an HTTP proxy resolves names itself, the browser does no DNS look-ups either.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

const KEEP_LINES = 50;

export class SinkholeProxy {
  connections = 0;
  /** The first request lines seen ('CONNECT host:443 HTTP/1.1', 'GET http://… HTTP/1.1'), the latest 50. */
  readonly requestLines: string[] = [];
  private server?: Server;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly onEscape: (line: string) => void = () => {}) {}

  async start(): Promise<string> {
    const server = createServer((socket) => {
      this.connections++;
      this.sockets.add(socket);
      socket.on('error', () => {});
      socket.once('close', () => this.sockets.delete(socket));
      // A connection that sends nothing (a preconnect) is still counted; its first line names the target.
      socket.once('data', (chunk) => {
        const line = chunk.toString('latin1').split('\r\n', 1)[0].slice(0, 300);
        this.requestLines.push(line);
        if (this.requestLines.length > KEEP_LINES) this.requestLines.shift();
        this.onEscape(line);
        socket.destroy();
      });
      socket.setTimeout(1000, () => socket.destroy());
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
