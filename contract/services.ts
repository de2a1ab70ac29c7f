// The crawl's services contract: what the crawl's processors are created from: the crawl configuration and the process-wide clients
// they share. The runtimes hand this object to every processor definition's `create`; each processor
// names only what it uses, and a topology builds only when these services satisfy all of them.
import type { RuntimeControl } from '../engine/api.js';
import type { HttpFetcher } from '../fetching/http-fetcher.js';
import type { ClickHouse } from '../clickhouse/connection.js';
import type { RowSinks } from '../clickhouse/row-sinks.js';
import type { ParsePool } from '../parsing/parse-pool.js';
import type { Renderer } from '../rendering/renderer.js';
import type { PdfPool } from '../pdf/pdf-pool.js';
import type { ParserModule } from '../parsing/parser-module.js';
import type { HostTurns } from '../politeness/host-turns.js';
import type { CrawlBudget } from './crawl-budget.js';
import type { CrawlConfig } from './config.js';
import type { FetchKind } from '../schemas/records.js';
import type { WarcOutput } from '../warc/warc-output.js';
import type { Troubles } from './troubles.js';
import type { FocusScorer } from '../focus/focus-scorer.js';
import type { FocusGate } from '../focus/focus-gate.js';

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
  /** The request's host key, and its error ('' on success): what a summary names as an example. */
  host?: string;
  error?: string;
}

/** Told of events as they happen in this process (Prometheus metrics); never blocks, never throws. */
export interface CrawlObserver {
  fetchDone(f: FetchDone): void;
  /**
   * A condition worth one warning per crawl, not one per host (a host answering HTML for
   * /sitemap.xml): `kind` groups them, `example` is this occurrence. The stage counts them too.
   */
  notice?(kind: string, example: string): void;
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
  /** What ClickHouse ('clickhouse') and the WARC directory ('warc') are failing at now: a stop that leaves work says why. */
  troubles?: Troubles;
  /** A focused crawl's scorer in this thread (parse workers hold their own), for pages parsed here: PDFs, plain text, a failed worker's pages. */
  focus?: FocusScorer;
  /** A focused crawl's ordering across the hosts of this process. */
  focusGate?: FocusGate;
}

