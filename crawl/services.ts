// Process-wide resources the crawl's processors share, built from the crawl config.
import { HttpFetcher } from '../fetching/http-fetcher.js';
import type { CrawlConfig } from './config.js';

/** One HTTP client per process: connection reuse and the DNS cache span every fetch task. */
export function createFetcher(config: CrawlConfig): HttpFetcher {
  return new HttpFetcher({
    userAgent: config.userAgent,
    connectTimeoutMs: config.connectTimeoutMs,
    headersTimeoutMs: config.headersTimeoutMs,
    totalTimeoutMs: config.fetchTimeoutMs,
    maxBodyBytes: config.maxBodyBytes,
    allowNetworks: config.allowNetworks,
  });
}
