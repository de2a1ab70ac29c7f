// What the crawl's processors are created from: the crawl configuration and the process-wide clients
// they share. The runtimes hand this object to every processor definition's `create`; each processor
// names only what it uses, and a topology builds only when these services satisfy all of them.
import type { RuntimeControl } from '../engine/api.js';
import { HttpFetcher } from '../fetching/http-fetcher.js';
import { pinnedResolver } from '../fetching/dns-cache.js';
import type { ClickHouse } from '../clickhouse/connection.js';
import { rowSinks, type RowSinks } from '../clickhouse/row-sinks.js';
import { sharedClickHouse } from '../clickhouse/connection.js';
import { ParsePool } from '../parsing/parse-pool.js';
import { Renderer } from '../rendering/renderer.js';
import { PdfPool } from '../pdf/pdf-pool.js';
import type { ParserModule } from '../parsing/parser-module.js';
import { HostTurns } from '../processors/host-turns.js';
import type { CrawlBudget } from '../processors/crawl-budget.js';
import type { CrawlConfig } from './config.js';
import type { FetchKind } from '../schemas/records.js';
import type { WarcOutput } from '../processors/warc-archive.js';

/** One fetch that left this process, as it ended (abandoned ones too: the server may have seen them). */
export interface FetchDone {
  /** A browser's requests while rendering a page are 'subresource' (and 'robots' when it reads robots.txt). */
  kind: FetchKind | 'subresource';
  /** 0 when no response arrived. */
  status: number;
  errorKind: string;
  /** Cut at our own size cap. */
  truncated: boolean;
  seconds: number;
  wireBytes: number;
}

/** Told of events as they happen in this process (Prometheus metrics); never blocks, never throws. */
export interface CrawlObserver {
  fetchDone(f: FetchDone): void;
}

export const NO_OBSERVER: CrawlObserver = { fetchDone: () => {} };

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
  /** Users' processors (--processor-module) write rows to their own tables through it. */
  rows: RowSinks;
  /** Headless Chromium, when the crawl renders pages (--render auto|always). */
  renderer?: Renderer;
  /** Worker threads that read PDFs. */
  pdfPool?: PdfPool;
  /** Fetch outcomes as they happen (--metrics-port); a no-op otherwise. */
  observer: CrawlObserver;
  /** Where the warc processor writes (--warc-dir, `warc export`); absent without it. */
  warc?: WarcOutput;
  /** One per process: every fetch task's requests to a host take turns here (processors/host-turns.ts). */
  hostTurns?: HostTurns;
}

export function createFetcher(config: CrawlConfig): HttpFetcher {
  return new HttpFetcher({
    userAgent: config.userAgent,
    connectTimeoutMs: config.connectTimeoutMs,
    headersTimeoutMs: config.headersTimeoutMs,
    totalTimeoutMs: config.fetchTimeoutMs,
    maxBodyBytes: config.maxBodyBytes,
    allowNetworks: config.allowNetworks,
    resolve: Object.keys(config.resolve).length ? pinnedResolver(config.resolve) : undefined,
  });
}

export interface OpenServices {
  services: CrawlServices;
  /** Closes the clients and pools the services opened. */
  close(): Promise<void>;
}

/** The services of one process: one HTTP client, one ClickHouse connection, one parse pool. */
export function openCrawlServices(o: {
  config: CrawlConfig;
  /** A ClickHouse server; without it, embedded chdb under `dataDir`. */
  clickhouseUrl?: string;
  dataDir?: string;
  sinkName?: string;
  parserModule?: ParserModule;
  budget?: CrawlBudget;
  control?: RuntimeControl;
  /** Process-level rendering options: --chromium PATH, --render-concurrency N. */
  chromiumPath?: string;
  renderConcurrency?: number;
  log?: (line: string) => void;
  observer?: CrawlObserver;
  warc?: WarcOutput;
}): OpenServices {
  const fetcher = createFetcher(o.config);
  const clickhouse = sharedClickHouse({ url: o.clickhouseUrl, dataDir: o.dataDir });
  const parsePool = new ParsePool(undefined, o.parserModule?.path);
  const services: CrawlServices = {
    config: o.config, fetcher, clickhouse, sinkName: o.sinkName ?? 'live', parsePool, parserModule: o.parserModule,
    budget: o.budget, control: o.control ?? { paused: false }, rows: rowSinks(clickhouse), observer: o.observer ?? NO_OBSERVER, warc: o.warc,
    // Started on the first PDF: a crawl that meets none spawns no thread for them.
    pdfPool: new PdfPool({ threads: 1, timeoutMs: 20_000, maxMemoryMb: 256 }),
    hostTurns: new HostTurns(),
  };
  if (o.config.render !== 'never') {
    services.renderer = new Renderer({
      chromiumPath: o.chromiumPath, concurrency: o.renderConcurrency, userAgent: o.config.userAgent,
      timeoutMs: Math.min(30_000, o.config.fetchTimeoutMs), log: o.log,
    });
  }
  return {
    services,
    async close() {
      await services.renderer?.close();
      await services.pdfPool?.close();
      await fetcher.close();
      await parsePool.close();
      await clickhouse.close();
    },
  };
}
