// What the crawl's processors are created from: the crawl configuration and the process-wide clients
// they share. The runtimes hand this object to every processor definition's `create`; each processor
// names only what it uses, and a topology builds only when these services satisfy all of them.
import type { RuntimeControl } from '../engine/api.js';
import { HttpFetcher } from '../fetching/http-fetcher.js';
import type { ClickHouse } from '../clickhouse/connection.js';
import type { ParsePool } from '../parsing/parse-pool.js';
import type { ParserModule } from '../parsing/parser-module.js';
import type { CrawlBudget } from '../processors/crawl-budget.js';
import type { CrawlConfig } from './config.js';

export interface CrawlServices {
  config: CrawlConfig;
  /** One HTTP client per process: connection reuse and the DNS cache span every fetch task. */
  fetcher: HttpFetcher;
  /** Opens (once) the ClickHouse the sink writes to. */
  clickhouse: () => Promise<ClickHouse>;
  /** Names the sink's positions beside the log identity: 'live', or a replay's own name. */
  sinkName: string;
  /** Worker threads that parse pages; without one (tests) parsing runs inline. */
  parsePool?: ParsePool;
  /** A user's parsing step (--parser-module). */
  parserModule?: ParserModule;
  /** The global page budget (--max-pages), embedded only. */
  budget?: CrawlBudget;
  /** Kafka pauses releases while the partition count grows. */
  control: RuntimeControl;
}

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
