// Serves GET /metrics for Prometheus. Bound to loopback unless told otherwise: metrics name hosts and
// URLs' fates, which are nobody else's business.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a scrape is answered from: one registry, or several threads' put together. */
export interface MetricsSource {
  metrics(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsServerOptions {
  /** 0 picks a free port (tests). */
  port: number;
  host?: string;
  logger?: { warn(message: string): void };
}

export interface MetricsServer {
  readonly port: number;
  readonly host: string;
  /** http://host:port/metrics */
  readonly url: string;
  close(): Promise<void>;
}

export async function serveMetrics(metrics: MetricsSource, options: MetricsServerOptions): Promise<MetricsServer> {
  const host = options.host ?? '127.0.0.1';
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new TypeError(`metrics port must be an integer in 0..65535, got ${options.port}`);
  }
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    metrics.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.contentType, 'content-length': Buffer.byteLength(text) });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: Error) => {
        options.logger?.warn(`metrics: collecting for a scrape failed: ${err?.message ?? err}`);
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`collecting metrics failed: ${err?.message ?? err}\n`);
      },
    );
  });
  // Scrapers are few; a bound keeps a misbehaving client from holding many sockets.
  server.maxConnections = 32;
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      reject(new Error(`metrics: cannot listen on ${host}:${options.port}: ${err.code ?? ''} ${err.message}`));
    };
    server.once('error', onError);
    server.listen(options.port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', (err) => options.logger?.warn(`metrics: server error: ${err.message}`));
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    port,
    host,
    url: `http://${shown}:${port}/metrics`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections(); // keep-alive sockets of a scraper would hold close() open
    }),
  };
}
