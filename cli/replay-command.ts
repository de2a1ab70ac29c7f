// crawlstream replay --from fetched [--since TIME | --from-offset N] [--processors parse,clickhouse-sink]
//     [--parser-module FILE] [--data-dir DIR | --brokers B ... --schema-registry URL] [--clickhouse-url URL]
import { resolve } from 'node:path';
import { loadParserModule } from '../parsing/parser-module.js';
import { formatProgress, type ReplayProgress } from '../engine/replay/replay-progress.js';
import { runCrawlReplay, type CrawlReplayOptions } from '../crawl/replay.js';
import { serveTelemetry } from '../crawl/telemetry.js';
import { lingerThenClose, METRICS_FLAGS, metricsOptionsFrom } from './observe-options.js';
import { durationOption, intOption, LIMITS, listOption, parse, UsageError } from './options.js';
import { DEFAULT_DATA_DIR } from './data-dir.js';
import { KAFKA_FLAGS } from './kafka-options.js';
import { stderrLogger } from './progress.js';
import { describeFocus, FOCUS_FLAGS, focusFrom } from './focus-options.js';

// ISO 8601 dates only: Date.parse alone takes "1" for the year 2001, so a unit-less "--since 1" would
// silently replay from 2001. A date without a time is midnight UTC, a time without an offset is local.
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** "2026-11-20", "2026-11-20T08:00:00Z", or a duration back from now (parseDuration: "90m", "24h", "7d"). */
export function parseSince(text: string, now = Date.now()): number {
  const t = String(text).trim();
  const date = ISO_DATE.exec(t);
  if (date) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const day = new Date(Date.UTC(y, m - 1, d));
    const ms = Date.parse(t);
    // Date.parse turns 2026-02-30 into March 2nd: the day must exist as written.
    if (Number.isNaN(ms) || day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) {
      throw new UsageError(`--since: "${t}" is not a valid date`);
    }
    return ms;
  }
  if (/^\d{4}-/.test(t)) throw new UsageError(`--since: "${t}" is not a date in the form 2026-11-20 or 2026-11-20T08:00:00Z`);
  try {
    return now - durationOption({ since: t }, 'since', LIMITS.sinceMs)!;
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new UsageError(`${err.message} (or a date: 2026-11-20, 2026-11-20T08:00:00Z)`);
  }
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    ...KAFKA_FLAGS,
    from: { type: 'string' },
    since: { type: 'string' },
    'from-offset': { type: 'string' },
    processors: { type: 'string', multiple: true },
    'parser-module': { type: 'string' },
    'data-dir': { type: 'string' },
    'clickhouse-url': { type: 'string' },
    'schema-registry': { type: 'string' },
    id: { type: 'string' },
    ...FOCUS_FLAGS,
    ...METRICS_FLAGS,
  });
  const from = (values.from as string | undefined) ?? 'fetched';
  if (values.since !== undefined && values['from-offset'] !== undefined) throw new UsageError('give --since or --from-offset, not both');
  const since = values.since !== undefined ? parseSince(values.since as string) : undefined;
  const fromOffset = intOption(values, 'from-offset', LIMITS.fromOffset);
  const processors = listOption(values, 'processors');
  const id = replayId(values);
  const metrics = metricsOptionsFrom(values);
  const parserModule = values['parser-module'] ? await loadParserModule(values['parser-module'] as string) : undefined;
  const logger = stderrLogger();
  // New examples rescore every replayed page; without them a replay on Kafka judges as the crawl did.
  const focus = focusFrom(values, undefined, logger.info);
  if (focus) logger.info(await describeFocus(focus));
  const served = metrics ? await serveTelemetry(metrics, logger) : undefined;
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  const onProgress = (p: ReplayProgress) => process.stderr.write(formatProgress(p) + '\n');
  const common = {
    id, from, processors: processors.length ? processors : ['parse', 'clickhouse-sink'], since, fromOffset, parserModule, focus, logger, onProgress, signal: abort.signal,
    clickhouseUrl: values['clickhouse-url'] as string | undefined, telemetry: served?.telemetry,
  };
  let result;
  try {
    result = await runCrawlReplay({ ...common, ...replaySource(values) });
  } catch (err) {
    await served?.close();
    throw err;
  }
  process.stdout.write(`replay ${id}: ${result.done} records of ${from} through ${common.processors.join(', ')} in ${(result.done / Math.max(result.perSecond, 1e-9)).toFixed(1)} s (${result.perSecond.toFixed(1)} records/s)${parserModule ? `, parser ${parserModule.version}` : ''}\n`);
  // A replay that passed records over did not replay the range it was given: a script must notice.
  const unreadable = result.unreadable ?? 0;
  if (unreadable) process.stdout.write(`replay ${id}: ${unreadable} of the ${result.total} records of ${from} could not be read (log damage, see the warnings above) and were not replayed\n`);
  if (served) await lingerThenClose(served);
  return abort.signal.aborted ? 130 : unreadable ? EXIT_UNREADABLE : 0;
}

/** The replay ran to its end, but records of its range could not be read (log damage). */
export const EXIT_UNREADABLE = 3;

/** --id, or one made of the time. */
export function replayId(values: Record<string, unknown>): string {
  const id = (values.id as string | undefined) ?? new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new UsageError('--id may hold letters, digits, - and _ only (at most 64)');
  return id;
}

/** Where the replayed topic is: the embedded data directory, or the Kafka cluster with --brokers. */
export function replaySource(values: Record<string, unknown>): Pick<CrawlReplayOptions, 'dataDir' | 'kafka'> {
  if (values.brokers) {
    return { kafka: { brokers: listOption(values, 'brokers'), prefix: (values['topic-prefix'] as string | undefined) ?? '', registryUrl: values['schema-registry'] as string } };
  }
  return { dataDir: resolve((values['data-dir'] as string | undefined) ?? DEFAULT_DATA_DIR) };
}
