// crawlstream worker --brokers B --schema-registry URL --clickhouse-url URL [--processors a,b] [--allow-network CIDR]... [--threads N]
//
// With --threads N the process runs N workers, one per thread (worker-threads.ts): each is a member
// of the consumer groups with its own transactions and state, as N processes would be, and the
// process serves their metrics together.
import { resolve } from 'node:path';
import { KafkaWorker, type WorkerOptions } from '../crawl/kafka-worker.js';
import { NetworkPolicy } from '../fetching/network-policy.js';
import { findChromium } from '../rendering/find-chromium.js';
import type { Logger } from '../engine/api.js';
import { durationOption, intOption, LIMITS, listOption, parse, PROXY_FLAGS, proxyOption, UsageError, RENDER_PROCESS_FLAGS, renderProcessOptions } from './options.js';
import { brokersOf, KAFKA_FLAGS, required } from './kafka-options.js';
import { stderrLogger } from './progress.js';
import { loadModules, MODULE_FLAGS } from './modules.js';
import { METRICS_FLAGS, metricsOptionsFrom, WARC_FLAGS, warcOutputFrom } from './observe-options.js';
import { serveTelemetry, type CrawlTelemetry, type MetricsOptions } from '../crawl/telemetry.js';
import { formatDuration } from './duration.js';
import { STOP_FLAGS, UNFINISHED_STOP_EXIT } from './stop-report.js';
import { DEFAULT_STOP_GRACE_MS } from '../engine/embedded/embedded-runtime.js';

/** What the command line asks of the worker (or of each of its threads). */
export interface WorkerCommand {
  worker: Omit<WorkerOptions, 'logger' | 'signal' | 'telemetry'>;
  metrics?: MetricsOptions;
  stopGraceMs: number;
  threads: number;
}

/** Where a worker runs: the process itself, or one thread of it. */
export interface WorkerHost {
  logger: Logger;
  telemetry?: CrawlTelemetry;
  /** Settles when the worker is asked to stop (a signal, or the main thread passing one on). */
  stopAsked: Promise<void>;
  /** Ends the worker with this exit code: the process, or only its thread. */
  exit(code: number): never;
  /** Stops serving metrics, once the worker has stopped. */
  close?(): Promise<void>;
}

export async function workerCommand(argv: string[]): Promise<WorkerCommand> {
  const { values } = parse(argv, {
    ...KAFKA_FLAGS,
    ...STOP_FLAGS,
    'schema-registry': { type: 'string' },
    'clickhouse-url': { type: 'string' },
    processors: { type: 'string', multiple: true },
    'allow-network': { type: 'string', multiple: true },
    'data-dir': { type: 'string' },
    'session-timeout-ms': { type: 'string' },
    'commit-interval': { type: 'string' },
    'handover-grace': { type: 'string' },
    threads: { type: 'string' },
    ...MODULE_FLAGS,
    ...RENDER_PROCESS_FLAGS,
    ...PROXY_FLAGS,
    ...WARC_FLAGS,
    ...METRICS_FLAGS,
  });
  // Numbers first: a bad one is refused before anything else is asked for.
  const sessionTimeoutMs = intOption(values, 'session-timeout-ms', LIMITS.sessionTimeoutMs);
  const commitIntervalMs = durationOption(values, 'commit-interval', LIMITS.commitIntervalMs);
  const handoverGraceMs = durationOption(values, 'handover-grace', LIMITS.handoverGraceMs);
  const stopGraceMs = durationOption(values, 'stop-grace', LIMITS.stopGraceMs) ?? DEFAULT_STOP_GRACE_MS;
  const threads = intOption(values, 'threads', LIMITS.workerThreads) ?? 1;
  const metrics = metricsOptionsFrom(values);
  if (metrics?.lingerMs !== undefined) throw new UsageError('--metrics-linger is for crawl and replay, which end by themselves; a worker serves metrics until it stops');
  const allowNetworks = listOption(values, 'allow-network');
  try {
    new NetworkPolicy(allowNetworks);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return {
    worker: {
      brokers: brokersOf(values),
      prefix: (values['topic-prefix'] as string | undefined) ?? '',
      registryUrl: required(values, 'schema-registry'),
      clickhouseUrl: values['clickhouse-url'] as string | undefined,
      processors: listOption(values, 'processors'),
      allowNetworks,
      proxy: proxyOption(values),
      dataDir: resolve((values['data-dir'] as string | undefined) ?? `crawl-data/worker-${process.pid}`),
      sessionTimeoutMs,
      commitIntervalMs,
      handoverGraceMs,
      ...(await loadModules(values)),
      ...renderProcessOptions(values),
      warc: warcOutputFrom(values),
    },
    metrics,
    stopGraceMs,
    threads,
  };
}

export async function run(argv: string[]): Promise<number> {
  const command = await workerCommand(argv);
  if (command.threads > 1) return (await import('./worker-threads.js')).runThreads(argv, command);
  const logger = stderrLogger();
  const served = command.metrics ? await serveTelemetry(command.metrics, logger) : undefined;
  // A promise rejected without a handler must not take the worker down mid-crawl: say it and go on.
  process.on('unhandledRejection', (err) => logger.warn(`unhandled: ${(err as Error)?.stack ?? err}`));
  warnWithoutChromium(command, logger);
  return runWorker(command, {
    logger,
    telemetry: served?.telemetry,
    stopAsked: stopOnSignals(logger, command.stopGraceMs, () => {}),
    exit: (code) => process.exit(code),
    close: () => served?.close() ?? Promise.resolve(),
  });
}

/** A worker does not know yet whether a crawl will ask it to render (seed decides): say it now. */
export function warnWithoutChromium(command: WorkerCommand, logger: Logger): void {
  if (!findChromium(command.worker.chromiumPath)) {
    logger.warn('no Chromium found (install Debian\'s chromium package, or give --chromium PATH or CRAWLSTREAM_CHROMIUM): pages a crawl asks to render get fetches rows with the render error browser-unavailable');
  }
}

/** Settles on the first SIGINT or SIGTERM (after `onStop`); a second one ends the process at once. */
export function stopOnSignals(logger: Logger, stopGraceMs: number, onStop: () => void): Promise<void> {
  return new Promise<void>((done) => {
    let signals = 0;
    const onSignal = () => {
      if (++signals > 1) process.exit(130);
      logger.info(`stopping: records in progress get up to ${formatDuration(stopGraceMs)} (--stop-grace) to finish and are committed (Ctrl-C again to quit at once)`);
      onStop();
      done();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** Runs one worker until it is asked to stop, then stops it within the stop grace; never returns normally. */
export async function runWorker(command: WorkerCommand, host: WorkerHost): Promise<number> {
  const { logger } = host;
  const abort = new AbortController();
  void host.stopAsked.then(() => abort.abort());
  const worker = new KafkaWorker({ ...command.worker, telemetry: host.telemetry, logger, signal: abort.signal });
  await Promise.race([worker.start(), host.stopAsked]);
  // A fatal error (a failed punctuation) stops the worker as it stops an embedded crawl: with an error.
  const fatal = await Promise.race([host.stopAsked.then(() => undefined), worker.failed]);
  if (fatal) {
    logger.warn(`stopping: ${fatal.message.split('\n')[0]}`);
    await worker.stop().catch(() => {});
    await host.close?.();
    return host.exit(1);
  }
  // A clean stop commits what finished; past --stop-grace the worker leaves anyway, exit 5: what it
  // had not committed is redone by the task's next owner, so nothing is lost.
  const bound = setTimeout(() => {
    const left = worker.unfinished();
    logger.warn(`stopped before everything finished: the stop waited ${formatDuration(command.stopGraceMs)} (--stop-grace); nothing is lost: ` +
      `the work ${left.length ? `${left.join(', ')} had` : 'in flight'} not committed is redone by the next owner of each task (this worker or another)`);
    host.exit(UNFINISHED_STOP_EXIT);
  }, command.stopGraceMs);
  await worker.stop();
  clearTimeout(bound);
  await host.close?.();
  // Everything is committed and every client closed; kafkajs may still hold a consumer it
  // restarted by itself after a broker failure, which would keep the process alive.
  return host.exit(0);
}
