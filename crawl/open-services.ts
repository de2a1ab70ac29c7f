// The services of one process, opened: one HTTP client, one ClickHouse connection, one parse pool, a
// browser when the crawl renders. Their contract (what processors may ask for) is contract/services.ts.
import type { RuntimeControl } from '../engine/api.js';
import { availableParallelism } from 'node:os';
import { DEFAULT_MAX_CONNECTIONS, HttpFetcher } from '../fetching/http-fetcher.js';
import { pinnedResolver } from '../fetching/dns-cache.js';
import { ProxyRoute } from '../fetching/proxy-route.js';
import { rowSinks } from '../clickhouse/row-sinks.js';
import { sharedClickHouse } from '../clickhouse/connection.js';
import { ParsePool, parseWorkersFor } from '../parsing/parse-pool.js';
import { Renderer } from '../rendering/renderer.js';
import { PdfPool } from '../pdf/pdf-pool.js';
import type { ParserModule } from '../parsing/parser-module.js';
import { HostTurns } from '../politeness/host-turns.js';
import type { CrawlBudget } from '../contract/crawl-budget.js';
import type { CrawlConfig } from '../contract/config.js';
import type { WarcOutput } from '../warc/warc-output.js';
import { NO_OBSERVER, type CrawlObserver, type CrawlServices } from '../contract/services.js';
import { Troubles } from '../contract/troubles.js';
import { createFocus } from '../focus/create-focus.js';
import { focusGateFor, type FocusGate } from '../focus/focus-gate.js';
import type { FocusScorer } from '../focus/focus-scorer.js';

/** A focused crawl's scorer for this thread and, where the schedule runs, its gate across hosts. */
export async function openFocus(config: CrawlConfig, withGate = true): Promise<{ focus?: FocusScorer; focusGate?: FocusGate }> {
  if (!config.focus) return {};
  return { focus: await createFocus(config.focus), focusGate: withGate ? focusGateFor(config.defaultDelayMs) : undefined };
}

export function createFetcher(config: CrawlConfig, maxConnections?: number): HttpFetcher {
  return new HttpFetcher({
    maxConnections,
    userAgent: config.userAgent,
    connectTimeoutMs: config.connectTimeoutMs,
    headersTimeoutMs: config.headersTimeoutMs,
    totalTimeoutMs: config.fetchTimeoutMs,
    maxBodyBytes: config.maxBodyBytes,
    allowNetworks: config.allowNetworks,
    resolve: Object.keys(config.resolve).length ? pinnedResolver(config.resolve) : undefined,
    tls: { verify: config.tlsVerify, ca: config.caPem },
    proxy: new ProxyRoute(config.proxy || undefined),
  });
}

/**
 * Parse workers and sockets for a worker that has `share` of a process of `cores` cores: one worker
 * alone gets a parse worker for every core but one and DEFAULT_MAX_CONNECTIONS sockets; a thread of N
 * gets 1/N of each, at least one parse worker and 16 sockets.
 */
export function shareOf(share: number, cores: number): { parseWorkers: number; sockets: number } {
  const part = Math.min(1, Math.max(0, share));
  return {
    parseWorkers: Math.max(1, Math.floor(parseWorkersFor(cores) * part)),
    sockets: Math.max(16, Math.floor(DEFAULT_MAX_CONNECTIONS * part)),
  };
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
  /** How long one page's parse may take (--module-timeout). */
  parseTimeoutMs?: number;
  budget?: CrawlBudget;
  control?: RuntimeControl;
  /** Process-level rendering options: --chromium PATH, --render-concurrency N. */
  chromiumPath?: string;
  renderConcurrency?: number;
  warn?: (line: string) => void;
  observer?: CrawlObserver;
  warc?: WarcOutput;
  /** openFocus's: a focused crawl's scorer and gate. */
  focus?: { focus?: FocusScorer; focusGate?: FocusGate };
  /**
   * This worker's share of what a process may hold (`worker --threads N`): threads of one process share
   * its cores and its file descriptors, so each gets a part of the parse workers and sockets one
   * worker would open. Default: the whole.
   */
  share?: number;
}): OpenServices {
  const part = shareOf(o.share ?? 1, availableParallelism());
  const fetcher = createFetcher(o.config, part.sockets);
  const clickhouse = sharedClickHouse({ url: o.clickhouseUrl, dataDir: o.dataDir });
  const parsePool = new ParsePool(part.parseWorkers, o.parserModule?.path, o.config.focus, { timeoutMs: o.parseTimeoutMs });
  const troubles = new Troubles();
  const services: CrawlServices = {
    config: o.config, fetcher, clickhouse, sinkName: o.sinkName ?? 'live', parsePool, parserModule: o.parserModule,
    budget: o.budget, control: o.control ?? { paused: false }, rows: rowSinks(clickhouse, troubles.of('clickhouse')), troubles, observer: o.observer ?? NO_OBSERVER, warc: o.warc,
    // Started on the first PDF: a crawl that meets none spawns no thread for them.
    pdfPool: new PdfPool({ threads: 1, timeoutMs: 20_000, maxMemoryMb: 256 }),
    hostTurns: new HostTurns(),
    ...o.focus,
  };
  if (o.config.render !== 'never') {
    services.renderer = new Renderer({
      chromiumPath: o.chromiumPath, concurrency: o.renderConcurrency, userAgent: o.config.userAgent,
      timeoutMs: Math.min(30_000, o.config.fetchTimeoutMs), warn: o.warn,
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
