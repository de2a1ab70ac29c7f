// A crawl on the embedded runtime, start to finish: open (or resume) the data directory, seed,
// run until the frontier is drained or the page budget is spent, stop cleanly. Used by the
// `crawl` command, the demo, the end-to-end tests and the benchmarks.
import { mkdirSync } from 'node:fs';
import type { Logger } from '../engine/api.js';
import { CrawlBudget } from '../processors/crawl-budget.js';
import type { DiscoveredUrl } from '../schemas/records.js';
import type { CrawlConfig } from './config.js';
import { crawlTopology } from './topology.js';
import { createFetcher, type CrawlServices } from './services.js';
import { ParsePool } from '../parsing/parse-pool.js';
import { sharedClickHouse } from '../clickhouse/connection.js';
import { hostKey } from '../url/canonicalize.js';
import { EmbeddedRuntime } from '../engine/embedded/embedded-runtime.js';
import { crawlStats, type CrawlStats } from './stats.js';

export interface EmbeddedCrawlOptions {
  dataDir: string;
  config: CrawlConfig;
  seeds: string[];
  partitions?: number;
  clickhouseUrl?: string;
  log: Logger;
  /** Called about every `progressEveryMs` while the crawl runs. */
  onProgress?: (stats: CrawlStats) => void;
  progressEveryMs?: number;
  /** Abort to stop: records in progress finish, everything is committed, the crawl can resume. */
  signal?: AbortSignal;
}

export interface CrawlSummary extends CrawlStats {
  elapsedMs: number;
  stoppedEarly: boolean;
}

export async function runEmbeddedCrawl(options: EmbeddedCrawlOptions): Promise<CrawlSummary> {
  mkdirSync(options.dataDir, { recursive: true });
  const started = performance.now();
  const clickhouse = sharedClickHouse({ url: options.clickhouseUrl, dataDir: options.dataDir });
  const fetcher = createFetcher(options.config);
  const budget = new CrawlBudget(options.config.maxPages);
  const parsePool = new ParsePool();
  let runtime: EmbeddedRuntime<CrawlServices> | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const services: CrawlServices = {
      config: options.config, fetcher, clickhouse, sinkName: 'live', parsePool, budget, control: { paused: false },
    };
    runtime = await EmbeddedRuntime.open({
      dataDir: options.dataDir,
      topology: crawlTopology(),
      services,
      partitions: options.partitions,
      log: options.log,
    });
    // Fail early and clearly when ClickHouse cannot be opened, before any page is fetched.
    await clickhouse();
    await runtime.start();
    for (const seed of options.seeds) {
      let host: string;
      try {
        host = hostKey(new URL(seed));
      } catch {
        options.log.warn(`seed ${JSON.stringify(seed)} is not a URL; skipped`);
        continue;
      }
      const value: DiscoveredUrl = { url: seed, source_url: '', depth: 0, anchor: '', via: 'seed', redirect_hops: 0, discovered_at: Date.now() };
      await runtime.produce('discovered-urls', host, value);
    }
    const rt = runtime;
    if (options.onProgress) timer = setInterval(() => options.onProgress!(crawlStats(rt)), options.progressEveryMs ?? 2000);
    await runtime.whenIdle(options.signal);
    const stats = crawlStats(runtime);
    return { ...stats, elapsedMs: performance.now() - started, stoppedEarly: options.signal?.aborted ?? false };
  } finally {
    if (timer) clearInterval(timer);
    await runtime?.stop();
    await fetcher.close();
    await parsePool.close();
    await clickhouse.close();
  }
}
