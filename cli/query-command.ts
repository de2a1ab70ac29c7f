// crawlstream query "SQL" — SQL over what was crawled, on embedded ClickHouse or a server.
import { resolve } from 'node:path';
import { openClickHouse } from '../clickhouse/connection.js';
import { migrate } from '../clickhouse/schema.js';
import { runQuery } from '../clickhouse/query-output.js';
import { parse, UsageError } from './options.js';
import { DEFAULT_DATA_DIR } from './crawl-command.js';

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
  const ch = await openClickHouse({
    url: values['clickhouse-url'] as string | undefined,
    dataDir: resolve((values['data-dir'] as string | undefined) ?? DEFAULT_DATA_DIR),
  });
  try {
    await migrate(ch);
    process.stdout.write(await runQuery(ch, sql, format));
    return 0;
  } finally {
    await ch.close();
  }
}
