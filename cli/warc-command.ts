// crawlstream warc export --out DIR [--since TIME | --from-offset N] [--data-dir DIR | --brokers B
//     [--topic-prefix P] --schema-registry URL] [--warc-operator TEXT] [--id ID] [--metrics-port N]
//
// WARC files of what the crawl fetched, from the retained `fetched` topic, refetching nothing: a replay
// of the warc processor under its own identity (writers named `<log>-export-fetched-<partition>`).
// Run again into the same directory, it skips the captures already there.
import { runCrawlReplay } from '../crawl/replay.js';
import { crawlStats } from '../crawl/stats.js';
import { serveTelemetry } from '../crawl/telemetry.js';
import type { CrawlServices } from '../contract/services.js';
import { formatProgress, type ReplayProgress, type ReplayView } from '../engine/replay/replay-progress.js';
import { KAFKA_FLAGS } from './kafka-options.js';
import { intOption, LIMITS, parse, UsageError } from './options.js';
import { lingerThenClose, METRICS_FLAGS, metricsOptionsFrom, warcOutputFrom } from './observe-options.js';
import { stderrLogger } from './progress.js';
import { parseSince, replayId, replaySource } from './replay-command.js';

const USAGE = 'usage: crawlstream warc export --out DIR [--since TIME | --from-offset N] [--data-dir DIR | --brokers B --schema-registry URL]';

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'export') throw new UsageError(USAGE);
  const { values, positionals } = parse(rest, {
    ...KAFKA_FLAGS,
    out: { type: 'string' },
    since: { type: 'string' },
    'from-offset': { type: 'string' },
    'data-dir': { type: 'string' },
    'schema-registry': { type: 'string' },
    'warc-operator': { type: 'string' },
    id: { type: 'string' },
    ...METRICS_FLAGS,
  });
  if (positionals.length) throw new UsageError(`unexpected ${positionals.join(' ')}; ${USAGE}`);
  if (values.out === undefined) throw new UsageError(`--out DIR is required; ${USAGE}`);
  if (values.since !== undefined && values['from-offset'] !== undefined) throw new UsageError('give --since or --from-offset, not both');
  const since = values.since !== undefined ? parseSince(values.since as string) : undefined;
  const fromOffset = intOption(values, 'from-offset', LIMITS.fromOffset);
  const warc = warcOutputFrom({ 'warc-dir': values.out, 'warc-operator': values['warc-operator'] }, 'export')!;
  const id = `warc-${replayId(values)}`;
  const metrics = metricsOptionsFrom(values);
  const logger = stderrLogger();
  const served = metrics ? await serveTelemetry(metrics, logger) : undefined;
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  let view: ReplayView<CrawlServices> | undefined;
  let result: ReplayProgress;
  try {
    result = await runCrawlReplay({
      id, from: 'fetched', processors: ['warc'], since, fromOffset, logger: logger, warc, telemetry: served?.telemetry, signal: abort.signal,
      onProgress: (p) => process.stderr.write(formatProgress(p) + '\n'),
      onStarted: (v) => (view = v),
      ...replaySource(values),
    });
  } catch (err) {
    await served?.close();
    throw err;
  }
  const c = view ? crawlStats({ tasks: view.tasks() }).counters : {};
  const n = (name: string) => c[`warc.${name}`] ?? 0;
  process.stdout.write(
    `exported ${result.done} records of fetched to ${warc.dir}: ${n('responses')} responses, ${n('revisits')} revisits, ` +
    `${n('already-written')} already there, ${n('no-response')} without a response (not archived), ${n('unwritable')} unwritable\n`,
  );
  const unreadable = result.unreadable ?? 0;
  if (unreadable) process.stdout.write(`${unreadable} of the ${result.total} records of fetched could not be read (log damage, see the warnings above) and were not exported\n`);
  if (served) await lingerThenClose(served);
  return abort.signal.aborted ? 130 : n('unwritable') > 0 || unreadable ? 1 : 0;
}
