// crawlstream query "SQL" — SQL over what was crawled, on embedded ClickHouse or a server.
// One read-only statement; the output goes to stdout, anything the user must know to stderr.
import { resolve } from 'node:path';
import { openClickHouse } from '../clickhouse/connection.js';
import { describeDamage } from '../clickhouse/damage.js';
import { schemaState, SCHEMA_VERSION } from '../clickhouse/schema.js';
import { runQuery } from '../clickhouse/query-output.js';
import { parse, UsageError } from './options.js';
import { DEFAULT_DATA_DIR } from './data-dir.js';
import { stderrLogger } from './progress.js';

/** The query ran, but ClickHouse had set parts aside: the rows printed are not the whole history. */
export const EXIT_INCOMPLETE = 3;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    'data-dir': { type: 'string' },
    'clickhouse-url': { type: 'string' },
    format: { type: 'string' },
  });
  const sql = positionals.join(' ').trim();
  if (!sql) throw new UsageError('give the SQL to run, e.g. crawlstream query "SELECT status, count() FROM pages GROUP BY status"');
  const format = (values.format as string | undefined) ?? 'table';
  if (format !== 'json' && format !== 'table') throw new UsageError(`--format must be json or table, got "${format}"`);
  const logger = stderrLogger();
  const ch = await openClickHouse({
    url: values['clickhouse-url'] as string | undefined,
    dataDir: resolve((values['data-dir'] as string | undefined) ?? DEFAULT_DATA_DIR),
    readOnly: true,
  });
  try {
    const schema = await schemaState(ch);
    if (schema.missing.length) logger.warn(`${ch.database} lacks ${schema.missing.join(', ')}: run crawlstream clickhouse migrate to restore them`);
    else if (schema.version < SCHEMA_VERSION) logger.warn(`${ch.database} is at schema version ${schema.version}, this crawlstream expects ${SCHEMA_VERSION}: run crawlstream clickhouse migrate`);
    process.stdout.write(await runQuery(ch, sql, format));
    // After the rows, so that it is the last thing a person sees; the exit status tells a script.
    const damage = describeDamage(ch.database, { parts: [...ch.damage] });
    for (const line of damage) logger.warn(line);
    return damage.length ? EXIT_INCOMPLETE : 0;
  } finally {
    await ch.close();
  }
}
