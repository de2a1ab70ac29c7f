// crawlstream worker --brokers B --schema-registry URL --clickhouse-url URL [--processors a,b] [--allow-network CIDR]...
import { resolve } from 'node:path';
import { KafkaWorker } from '../crawl/kafka-worker.js';
import { NetworkPolicy } from '../fetching/network-policy.js';
import { findChromium } from '../rendering/find-chromium.js';
import { durationOption, intOption, LIMITS, listOption, parse, PROXY_FLAGS, proxyOption, UsageError, RENDER_PROCESS_FLAGS, renderProcessOptions } from './options.js';
import { brokersOf, KAFKA_FLAGS, required } from './kafka-options.js';
import { stderrLogger } from './progress.js';
import { loadModules, MODULE_FLAGS } from './modules.js';
import { METRICS_FLAGS, metricsOptionsFrom, WARC_FLAGS, warcOutputFrom } from './observe-options.js';
import { serveTelemetry } from '../crawl/telemetry.js';
import { formatDuration } from './duration.js';
import { STOP_FLAGS, UNFINISHED_STOP_EXIT } from './stop-report.js';
import { DEFAULT_STOP_GRACE_MS } from '../engine/embedded/embedded-runtime.js';

export async function run(argv: string[]): Promise<number> {
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
    ...MODULE_FLAGS,
    ...RENDER_PROCESS_FLAGS,
    ...PROXY_FLAGS,
    ...WARC_FLAGS,
    ...METRICS_FLAGS,
  });
  const sessionTimeoutMs = intOption(values, 'session-timeout-ms', LIMITS.sessionTimeoutMs);
  const commitIntervalMs = durationOption(values, 'commit-interval', LIMITS.commitIntervalMs);
  const handoverGraceMs = durationOption(values, 'handover-grace', LIMITS.handoverGraceMs);
  const warc = warcOutputFrom(values);
  const metrics = metricsOptionsFrom(values);
  if (metrics?.lingerMs !== undefined) throw new UsageError('--metrics-linger is for crawl and replay, which end by themselves; a worker serves metrics until it stops');
  const modules = await loadModules(values);
  const allowNetworks = listOption(values, 'allow-network');
  try {
    new NetworkPolicy(allowNetworks);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const logger = stderrLogger();
  const served = metrics ? await serveTelemetry(metrics, logger) : undefined;
  // A promise rejected without a handler must not take the worker down mid-crawl: say it and go on.
  process.on('unhandledRejection', (err) => logger.warn(`unhandled: ${(err as Error)?.stack ?? err}`));
  // A worker does not know yet whether a crawl will ask it to render (seed decides): say it now.
  if (!findChromium(values.chromium as string | undefined)) {
    logger.warn('no Chromium found (install Debian\'s chromium package, or give --chromium PATH or CRAWLSTREAM_CHROMIUM): pages a crawl asks to render get fetches rows with the render error browser-unavailable');
  }
  const stopGraceMs = durationOption(values, 'stop-grace', LIMITS.stopGraceMs) ?? DEFAULT_STOP_GRACE_MS;
  const abort = new AbortController();
  const worker = new KafkaWorker({
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
    ...modules,
    ...renderProcessOptions(values),
    warc,
    telemetry: served?.telemetry,
    logger,
    signal: abort.signal,
  });
  const stopped = new Promise<void>((done) => {
    let signals = 0;
    const onSignal = () => {
      if (++signals > 1) process.exit(130);
      logger.info(`stopping: records in progress get up to ${formatDuration(stopGraceMs)} (--stop-grace) to finish and are committed (Ctrl-C again to quit at once)`);
      abort.abort();
      done();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await Promise.race([worker.start(), stopped]);
  // A fatal error (a failed punctuation) stops the worker as it stops an embedded crawl: with an error.
  const fatal = await Promise.race([stopped.then(() => undefined), worker.failed]);
  if (fatal) {
    logger.warn(`stopping: ${fatal.message.split('\n')[0]}`);
    await worker.stop().catch(() => {});
    await served?.close();
    process.exit(1);
  }
  // A clean stop commits what finished; past --stop-grace the worker leaves anyway, exit 5: what it
  // had not committed is redone by the task's next owner, so nothing is lost.
  const bound = setTimeout(() => {
    const left = worker.unfinished();
    logger.warn(`stopped before everything finished: the stop waited ${formatDuration(stopGraceMs)} (--stop-grace); nothing is lost: ` +
      `the work ${left.length ? `${left.join(', ')} had` : 'in flight'} not committed is redone by the next owner of each task (this worker or another)`);
    process.exit(UNFINISHED_STOP_EXIT);
  }, stopGraceMs);
  await worker.stop();
  clearTimeout(bound);
  await served?.close();
  // Everything is committed and every client closed; kafkajs may still hold a consumer it
  // restarted by itself after a broker failure, which would keep the process alive.
  process.exit(0);
}
