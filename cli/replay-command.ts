// crawlstream replay --from fetched [--since TIME | --from-offset N] [--processors parse,sink]
//     [--parser-module FILE] [--data-dir DIR | --brokers B ... --schema-registry URL] [--clickhouse-url URL]
import { resolve } from 'node:path';
import { loadParserModule } from '../parsing/parser-module.js';
import { formatProgress, type ReplayProgress } from '../engine/replay/replay-progress.js';
import { runCrawlReplay } from '../crawl/replay.js';
import { intOption, listOption, parse, UsageError } from './options.js';
import { DEFAULT_DATA_DIR } from './crawl-command.js';
import { KAFKA_FLAGS } from './kafka-options.js';
import { stderrLogger } from './progress.js';

/** "2026-11-20", "2026-11-20T08:00:00Z", or a duration back from now: "90m", "24h", "7d". */
export function parseSince(text: string, now = Date.now()): number {
  const ago = /^(\d+)\s*(s|m|h|d)$/.exec(text.trim());
  if (ago) return now - Number(ago[1]) * { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3 }[ago[2] as 's' | 'm' | 'h' | 'd'];
  const t = Date.parse(text);
  if (Number.isNaN(t)) throw new UsageError(`--since takes a date (2026-11-20T08:00:00Z) or a duration (90m, 24h, 7d), got "${text}"`);
  return t;
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
  });
  const from = (values.from as string | undefined) ?? 'fetched';
  if (values.since !== undefined && values['from-offset'] !== undefined) throw new UsageError('give --since or --from-offset, not both');
  const since = values.since !== undefined ? parseSince(values.since as string) : undefined;
  const fromOffset = intOption(values, 'from-offset', 0);
  const processors = listOption(values, 'processors');
  const id = (values.id as string | undefined) ?? new Date().toISOString().replace(/[-:.TZ]/g, '').slice(0, 14);
  if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new UsageError('--id may hold letters, digits, - and _ only');
  const parserModule = values['parser-module'] ? await loadParserModule(values['parser-module'] as string) : undefined;
  const log = stderrLogger();
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  const onProgress = (p: ReplayProgress) => process.stderr.write(formatProgress(p) + '\n');
  const common = { id, from, processors: processors.length ? processors : ['parse', 'sink'], since, fromOffset, parserModule, log, onProgress, signal: abort.signal };
  const clickhouseUrl = values['clickhouse-url'] as string | undefined;
  const result = values.brokers
    ? await runCrawlReplay({ ...common, clickhouseUrl, kafka: { brokers: listOption(values, 'brokers'), prefix: (values['topic-prefix'] as string | undefined) ?? '', registryUrl: values['schema-registry'] as string } })
    : await runCrawlReplay({ ...common, clickhouseUrl, dataDir: resolve((values['data-dir'] as string | undefined) ?? DEFAULT_DATA_DIR) });
  process.stdout.write(`replay ${id}: ${result.done} records of ${from} through ${common.processors.join(', ')} in ${(result.done / Math.max(result.perSecond, 1e-9)).toFixed(1)} s (${result.perSecond.toFixed(1)} records/s)${parserModule ? `, parser ${parserModule.version}` : ''}\n`);
  return abort.signal.aborted ? 130 : 0;
}
