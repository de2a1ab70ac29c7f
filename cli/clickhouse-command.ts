// crawlstream clickhouse migrate [--data-dir DIR | --clickhouse-url URL]
import { resolve } from 'node:path';
import { openClickHouse } from '../clickhouse/connection.js';
import { migrate } from '../clickhouse/schema.js';
import { parse, UsageError } from './options.js';
import { loadModules, MODULE_FLAGS } from './modules.js';
import { createUserTableSql } from '../clickhouse/user-tables.js';
import { DEFAULT_DATA_DIR } from './data-dir.js';
import { stderrLogger } from './progress.js';

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'migrate') throw new UsageError('usage: crawlstream clickhouse migrate [--data-dir DIR | --clickhouse-url URL]');
  const { values } = parse(rest, { 'data-dir': { type: 'string' }, 'clickhouse-url': { type: 'string' }, 'processor-module': MODULE_FLAGS['processor-module'] });
  const { processorModules } = await loadModules(values);
  const logger = stderrLogger();
  const ch = await openClickHouse({
    url: values['clickhouse-url'] as string | undefined,
    dataDir: resolve((values['data-dir'] as string | undefined) ?? DEFAULT_DATA_DIR),
    logger: logger,
  });
  try {
    const { applied, restored, version } = await migrate(ch, { logger: logger });
    for (const table of processorModules.flatMap((m) => m.tables)) {
      await ch.command(createUserTableSql(table));
      process.stdout.write(`table ${table.name} (from a processor module) is in place\n`);
    }
    const where = `${ch.location} (${ch.database})`;
    if (restored.length) process.stdout.write(`restored ${restored.join(', ')} in ${where} (a restored table starts empty)\n`);
    process.stdout.write(applied.length
      ? `applied ${applied.length} migration(s) to ${where}; schema version ${version}\n`
      : `${where} is up to date at schema version ${version}\n`);
    return 0;
  } finally {
    await ch.close();
  }
}
