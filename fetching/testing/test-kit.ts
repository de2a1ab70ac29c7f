// Fetchers and loopback servers for the fetcher's tests, closed when the test file ends.
import { after } from 'node:test';
import { HttpFetcher, type FetcherOptions } from '../http-fetcher.js';
import { startHttpServer, startHttpsServer, startRawServer, type TestServer } from './test-servers.js';

export const MiB = 1024 * 1024;

export function fetcherTestKit() {
  const servers: TestServer[] = [];
  const fetchers: HttpFetcher[] = [];
  after(async () => {
    await Promise.all(fetchers.map((f) => f.close()));
    await Promise.all(servers.map((s) => s.close()));
  });
  return {
    fetcher(overrides: Partial<FetcherOptions> = {}): HttpFetcher {
      const f = new HttpFetcher({
        userAgent: 'crawlstream-test/1.0 (+https://crawler.example/bot)',
        connectTimeoutMs: 2000, headersTimeoutMs: 1000, totalTimeoutMs: 3000,
        maxBodyBytes: 10 * MiB, allowNetworks: ['127.0.0.0/8'], ...overrides,
      });
      fetchers.push(f);
      return f;
    },
    async http(host: string, handler: Parameters<typeof startHttpServer>[1]): Promise<TestServer> {
      const s = await startHttpServer(host, handler);
      servers.push(s);
      return s;
    },
    async https(host: string, pair: { key: string; cert: string }, handler: Parameters<typeof startHttpServer>[1]): Promise<TestServer> {
      const s = await startHttpsServer(host, pair, handler);
      servers.push(s);
      return s;
    },
    async raw(host: string, onSocket: Parameters<typeof startRawServer>[1]): Promise<TestServer> {
      const s = await startRawServer(host, onSocket);
      servers.push(s);
      return s;
    },
  };
}
