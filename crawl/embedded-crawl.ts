// A crawl on the embedded runtime, start to finish: open (or resume) the data directory, seed,
// run until the frontier is drained or the page budget is spent, stop cleanly. Used by the
// `crawl` command, the demo, the end-to-end tests and the benchmarks.
import { mkdirSync } from 'node:fs';
import type { Logger } from '../engine/api.js';
import { CrawlBudget } from '../contract/crawl-budget.js';
import { seedRecords } from '../contract/url-batch.js';
import { migrate } from '../clickhouse/schema.js';
import type { CrawlConfig } from '../contract/config.js';
import { crawlTopology, extraProcessors } from './topology.js';
import { openCrawlServices, openFocus } from './open-services.js';
import type { CrawlServices } from '../contract/services.js';
import type { ParserModule } from '../parsing/parser-module.js';
import type { ProcessorModule } from './processor-module.js';
import { EmbeddedRuntime, type Unfinished } from '../engine/embedded/embedded-runtime.js';
import { setAsideLogAndState } from '../engine/embedded/data-dir.js';
import { whyNotWritable } from '../engine/embedded/dir-access.js';
import type { OutputState } from '../contract/troubles.js';
import { crawlStats, type CrawlStats } from './stats.js';
import type { WarcOutput } from '../warc/warc-output.js';
import { lagEntries, type CrawlTelemetry } from './telemetry.js';
import { CrawlJournal } from './crawl-journal.js';

export interface EmbeddedCrawlOptions {
  dataDir: string;
  config: CrawlConfig;
  seeds: string[];
  partitions?: number;
  clickhouseUrl?: string;
  /** A user's parsing step (--parser-module) and users' own processors (--processor-module). */
  parserModule?: ParserModule;
  processorModules?: ProcessorModule[];
  /** --module-timeout: how long one page's parse may take (processor modules carry their own bound). */
  moduleTimeoutMs?: number;
  /** Process-level rendering options (--chromium, --render-concurrency). */
  chromiumPath?: string;
  renderConcurrency?: number;
  logger: Logger;
  /** Called about every `progressEveryMs` while the crawl runs. */
  onProgress?: (stats: CrawlStats) => void;
  progressEveryMs?: number;
  /** Abort to stop: records in progress finish, everything is committed, the crawl can resume. */
  signal?: AbortSignal;
  /** How long a stop waits for work in progress and for the sinks (--stop-grace); past it, that work is left for the next start. */
  stopGraceMs?: number;
  /**
   * Sets the data directory's log and state aside (in `aside-<UTC time>/`) and starts a new log
   * from the seeds. ClickHouse is not touched: the sink keys its positions by log identity, so the
   * new log's rows are written, not taken for rows it already holds.
   */
  resetState?: boolean;
  /** Write WARC files as the crawl goes (--warc-dir). */
  warc?: WarcOutput;
  /** Prometheus metrics of this process (--metrics-port). */
  telemetry?: CrawlTelemetry;
}

export interface CrawlSummary extends CrawlStats {
  elapsedMs: number;
  stoppedEarly: boolean;
  /** Records log damage made unreadable, and how many of them some processor had not processed yet. */
  lostRecords: number;
  lostUnprocessed: number;
  /** Examples of this run's failures, for the summary. */
  journal?: CrawlJournal;
  /** What the stop could not finish within its grace (rows not written, captures not archived, records in progress). */
  unfinished?: UnfinishedWork[];
}

/** Work a stop left, with what its output was failing at (ClickHouse's error, the disk's) when known. */
export interface UnfinishedWork extends Unfinished {
  why?: OutputState;
}

export async function runEmbeddedCrawl(options: EmbeddedCrawlOptions): Promise<CrawlSummary> {
  try {
    mkdirSync(options.dataDir, { recursive: true });
  } catch (err) {
    // A recursive mkdir on a read-only disk says ENOENT: say what is really wrong.
    const problem = whyNotWritable(options.dataDir);
    throw new Error(problem ? `the data directory ${options.dataDir} cannot be made: ${problem}` : (err as Error).message, { cause: err });
  }
  if (options.resetState) {
    const aside = await setAsideLogAndState(options.dataDir);
    options.logger.info(aside
      ? `--reset-state: the old log and state are now in ${aside}; a new log starts from the seeds; ClickHouse is not touched`
      : `--reset-state: ${options.dataDir} held no log or state to set aside`);
  }
  const started = performance.now();
  const budget = new CrawlBudget(options.config.maxPages);
  const focus = await openFocus(options.config);
  const journal = new CrawlJournal(options.logger.warn, options.telemetry);
  const open = openCrawlServices({
    focus,
    config: options.config, clickhouseUrl: options.clickhouseUrl, dataDir: options.dataDir, parserModule: options.parserModule, budget,
    parseTimeoutMs: options.moduleTimeoutMs,
    chromiumPath: options.chromiumPath, renderConcurrency: options.renderConcurrency, warn: options.logger.warn,
    observer: journal, warc: options.warc,
  });
  let runtime: EmbeddedRuntime<CrawlServices> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => runtime!.stop({ graceMs: options.stopGraceMs });
  try {
    runtime = await EmbeddedRuntime.open({
      dataDir: options.dataDir,
      topology: crawlTopology(extraProcessors(options.warc, options.processorModules)),
      services: open.services,
      partitions: options.partitions,
      logger: options.logger,
      onCommitted: options.telemetry?.onCommitted,
    });
    const rt = runtime;
    options.telemetry?.watch(() => ({ tasks: rt.tasks, lag: lagEntries(rt.lag()) }));
    // Fail early and clearly when ClickHouse cannot be opened, before any page is fetched; and
    // create the tables now, not at the sink's first flush, so that a crawl stopped or killed in its
    // first seconds can still be queried. A stop asked for meanwhile does not wait for either.
    const ready = await untilAborted((async () => {
      await migrate(await open.services.clickhouse(), { logger: options.logger });
      await rt.start();
    })(), options.signal);
    if (ready) {
      const seeds = seedRecords(options.seeds, Date.now());
      for (const bad of seeds.invalid) options.logger.warn(`seed ${JSON.stringify(bad)} is not a URL; skipped`);
      for (const { host, value } of seeds.records) await runtime.produce('discovered-urls', host, value);
      if (options.onProgress) timer = setInterval(() => options.onProgress!(crawlStats(rt)), options.progressEveryMs ?? 2000);
      // A recrawling crawl never drains: it runs until stopped (Ctrl-C, SIGTERM, --run-for).
      if (options.config.recrawl) await runtime.whenStopped(options.signal);
      else await runtime.whenIdle(options.signal);
    }
    if (timer) clearInterval(timer);
    const stopped = await stop();
    // Counted after the stop: what the sinks wrote while it waited for them is in the totals.
    const stats = crawlStats(runtime);
    const damage = runtime.damageSummary();
    return {
      ...stats, elapsedMs: performance.now() - started, stoppedEarly: options.signal?.aborted ?? false,
      lostRecords: damage.lost, lostUnprocessed: damage.unprocessed, journal,
      unfinished: stopped.unfinished.map((u) => ({ ...u, why: u.sink ? open.services.troubles?.why(u.processor === 'warc' ? 'warc' : 'clickhouse') : undefined })),
    };
  } catch (err) {
    // The error that ended the crawl is the one to tell; a stop that fails after it must not replace it.
    await runtime?.stop({ graceMs: options.stopGraceMs }).catch((stopErr: Error) => options.logger.warn(`while stopping: ${stopErr.message}`));
    throw err;
  } finally {
    if (timer) clearInterval(timer);
    await open.close();
  }
}

/** Resolves true when `work` is done, false as soon as `signal` aborts (work is then left to fail or finish alone). */
async function untilAborted(work: Promise<void>, signal: AbortSignal | undefined): Promise<boolean> {
  if (!signal) return work.then(() => true);
  if (signal.aborted) {
    work.catch(() => undefined);
    return false;
  }
  let onAbort!: () => void;
  const aborted = new Promise<boolean>((resolve) => signal.addEventListener('abort', (onAbort = () => resolve(false)), { once: true }));
  try {
    return await Promise.race([work.then(() => true), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    work.catch(() => undefined);
  }
}
