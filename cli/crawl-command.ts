// crawlstream crawl [URL...] — a crawl on the embedded runtime. Ctrl-C stops cleanly (fetches in
// flight finish, everything is committed); the same command resumes where it stopped.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { runEmbeddedCrawl, type CrawlSummary } from '../crawl/embedded-crawl.js';
import { serveTelemetry } from '../crawl/telemetry.js';
import { lingerThenClose, METRICS_FLAGS, metricsOptionsFrom, WARC_FLAGS, warcOutputFrom } from './observe-options.js';
import { NetworkPolicy } from '../fetching/network-policy.js';
import { findChromium } from '../rendering/find-chromium.js';
import {
  CRAWL_LEVEL_FLAGS, crawlConfigFrom, durationOption, intOption, LIMITS, listOption, parse, PROXY_FLAGS, proxyOption, RENDER_PROCESS_FLAGS,
  renderProcessOptions, TIMER_MAX_MS, UsageError,
} from './options.js';
import { formatProgress, formatSummary, stderrLogger } from './progress.js';
import { crawlOutcome } from '../crawl/crawl-outcome.js';
import { loadModules, MODULE_FLAGS } from './modules.js';
import { formatUnfinished, STOP_FLAGS, UNFINISHED_STOP_EXIT } from './stop-report.js';
import { DEFAULT_STOP_GRACE_MS } from '../engine/embedded/embedded-runtime.js';
import { formatDuration } from './duration.js';
import { describeFocus, FOCUS_FLAGS, focusFrom } from './focus-options.js';
import { DEFAULT_DATA_DIR, LOST_RECORDS_EXIT, NOTHING_ANSWERED_EXIT } from './data-dir.js';

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...CRAWL_LEVEL_FLAGS,
    ...FOCUS_FLAGS,
    'seeds-file': { type: 'string' },
    'data-dir': { type: 'string' },
    'allow-network': { type: 'string', multiple: true },
    partitions: { type: 'string' },
    'clickhouse-url': { type: 'string' },
    quiet: { type: 'boolean' },
    'run-for': { type: 'string' },
    ...RENDER_PROCESS_FLAGS,
    ...PROXY_FLAGS,
    'reset-state': { type: 'boolean' },
    ...MODULE_FLAGS,
    ...WARC_FLAGS,
    ...METRICS_FLAGS,
    ...STOP_FLAGS,
    threads: { type: 'string' },
  });
  if (values.threads !== undefined && values.threads !== '1') {
    throw new UsageError('the embedded crawl runs its tasks on one thread (README, Benchmarks: why); to use more cores, run the crawl on Kafka with `worker --threads N`, or several workers');
  }
  const modules = await loadModules(values);
  // Every option is checked before anything is read or written: a bad one must not leave a data directory behind.
  const partitions = intOption(values, 'partitions', LIMITS.embeddedPartitions);
  const seeds = [...positionals];
  const seedsFile = values['seeds-file'] as string | undefined;
  if (seedsFile) {
    const text = readFileSync(seedsFile, 'utf8');
    seeds.push(...text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#')));
  }
  const allowNetworks = listOption(values, 'allow-network');
  let policy: NetworkPolicy;
  try {
    policy = new NetworkPolicy(allowNetworks);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const config = crawlConfigFrom(values, { allowNetworks, proxy: proxyOption(values) }, seeds);
  const logger = stderrLogger();
  config.focus = focusFrom(values, undefined, logger.info);
  // Built once here: a module that does not load is a usage error before anything is written.
  if (config.focus) logger.info(await describeFocus(config.focus));
  // Found now, not at the first page to render: otherwise every render would end in an error row.
  if (config.render !== 'never' && !findChromium(values.chromium as string | undefined)) {
    throw new UsageError(`--render ${config.render} needs Chromium: install Debian's chromium package, or give --chromium PATH or CRAWLSTREAM_CHROMIUM`);
  }
  const runFor = durationOption(values, 'run-for', LIMITS.runForMs);
  const stopGraceMs = durationOption(values, 'stop-grace', LIMITS.stopGraceMs) ?? DEFAULT_STOP_GRACE_MS;
  const warc = warcOutputFrom(values);
  const metrics = metricsOptionsFrom(values);
  const dataDir = resolve((values['data-dir'] as string | undefined) ?? DEFAULT_DATA_DIR);
  warnAboutRefusedSeeds(seeds, policy, logger.warn);
  // Before the crawl: a port in use is a clear error, not a crawl without its metrics.
  const served = metrics ? await serveTelemetry(metrics, logger) : undefined;

  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts === 1) {
      logger.info(`stopping: no new work starts; work in flight gets up to ${formatDuration(stopGraceMs)} (--stop-grace) to finish and everything finished is committed; ` +
        'run the same command to resume (Ctrl-C again to quit at once)');
      abort.abort();
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // --run-for stops the crawl as Ctrl-C does: everything committed, resumable, exit 0.
  const stopTimer = runFor === undefined ? undefined : setTimeout(() => {
    logger.info(`stopping after --run-for ${values['run-for']}: fetches in flight finish and everything is committed`);
    abort.abort();
  }, Math.min(runFor, TIMER_MAX_MS));
  const quiet = values.quiet === true;
  let last = { at: performance.now(), pages: 0 };
  let summary: CrawlSummary;
  try {
    summary = await runEmbeddedCrawl({
      dataDir,
      config,
      seeds,
      partitions,
      clickhouseUrl: values['clickhouse-url'] as string | undefined,
      resetState: values['reset-state'] === true,
      ...modules,
      ...renderProcessOptions(values),
      warc,
      telemetry: served?.telemetry,
      logger: logger,
      signal: abort.signal,
      stopGraceMs,
      onProgress: quiet ? undefined : (stats) => {
        const now = performance.now();
        const rate = ((stats.pages - last.pages) * 1000) / Math.max(1, now - last.at);
        last = { at: now, pages: stats.pages };
        process.stderr.write(formatProgress(stats, rate) + '\n');
      },
    });
  } catch (err) {
    await served?.close();
    throw err;
  } finally {
    clearTimeout(stopTimer);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  // Lines of their own first: the summary is the last line, the one a user reads.
  if (warc) process.stdout.write(formatWarcSummary(summary.counters, warc.dir) + '\n');
  let code = 0;
  if (summary.lostRecords > 0) {
    // Records lost before a processor saw them are missing from the crawl's results: a script must
    // notice. Records every processor had already handled only shorten a later replay.
    const before = summary.lostUnprocessed;
    process.stdout.write(
      `log damage: ${summary.lostRecords} records of ${dataDir}/log cannot be read (see the warnings above); ` +
        (before ? `${before} of them were lost before every processor had handled them, so this crawl's results are incomplete\n` : 'every processor had handled them already\n'),
    );
    if (before) code = LOST_RECORDS_EXIT;
  }
  // Work a stage could not do is not a finished crawl: a script must notice, as with lost records.
  if (summary.deadLetters > 0) {
    process.stdout.write(`dead letters: ${summary.deadLetters} records could not be processed and were set aside in the dead-letters topic with their reasons (see the warnings above); this crawl's results are incomplete\n`);
    code = LOST_RECORDS_EXIT;
  }
  // A parsing step that fails on pages leaves their rows without what it should have added.
  const moduleFailures = summary.counters['parse.errors.parser-module'] ?? 0;
  if (modules.parserModule && moduleFailures > 0) {
    process.stdout.write(`parser module: ${moduleFailures} pages failed in ${modules.parserModule.path} (their parsed_pages rows carry the error, 'parser-module: …'; see the warnings above); this crawl's results are incomplete\n`);
    code = LOST_RECORDS_EXIT;
  }
  // With a parser module, a parse that overran is that module's failure and was counted just above.
  const parseTimeouts = modules.parserModule ? 0 : summary.counters['parse.parse-timeouts'] ?? 0;
  if (parseTimeouts > 0) {
    process.stdout.write(`parse: ${parseTimeouts} pages were not parsed within --module-timeout (parsed_pages.error 'parse-timeout: …'); this crawl's results are incomplete\n`);
    code = LOST_RECORDS_EXIT;
  }
  const unwritable = summary.counters['warc.unwritable'] ?? 0;
  if (warc && unwritable > 0) {
    process.stdout.write(`WARC: ${unwritable} captures could not be written (see the warnings above); the archive in ${warc.dir} is incomplete\n`);
    code = LOST_RECORDS_EXIT;
  }
  // Right above the summary: work a bounded stop left for the next run, with what its output failed at.
  const unfinished = formatUnfinished(summary.unfinished ?? [], stopGraceMs, { clickhouse: values['clickhouse-url'] ? 'ClickHouse' : `${dataDir}/clickhouse`, warcDir: warc?.dir });
  for (const line of unfinished) process.stdout.write(`${line}\n`);
  if (unfinished.length && code === 0) code = UNFINISHED_STOP_EXIT;
  process.stdout.write(formatSummary(summary, dataDir) + '\n');
  // A crawl that reached nothing is no crawl, whatever else went wrong: 4 wins over 3.
  if (crawlOutcome(summary.counters).nothingAnswered) code = NOTHING_ANSWERED_EXIT;
  if (served) await lingerThenClose(served);
  return code;
}

/** What the WARC stage did over the whole crawl (its counters survive restarts). */
export function formatWarcSummary(counters: Record<string, number>, dir: string): string {
  const n = (name: string) => counters[`warc.${name}`] ?? 0;
  const unwritable = n('unwritable') ? `, ${n('unwritable')} could not be written (see the log)` : '';
  return `WARC files in ${dir}: ${n('responses')} responses, ${n('revisits')} revisits; ${n('no-response')} fetches without a response not archived${unwritable}`;
}

function warnAboutRefusedSeeds(seeds: string[], policy: NetworkPolicy, warn: (m: string) => void): void {
  for (const seed of seeds) {
    let host: string;
    try {
      host = new URL(seed).hostname.replace(/^\[|\]$/g, '');
    } catch {
      continue;
    }
    if (!/^[\d.]+$|:/.test(host)) continue; // names are checked when resolved, at fetch time
    const verdict = policy.check(host);
    if (!verdict.allowed) warn(`seed ${seed} will not be fetched: ${verdict.reason}`);
  }
}
