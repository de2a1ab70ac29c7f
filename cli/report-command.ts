// crawlstream report [--data-dir DIR | --clickhouse-url URL] --out report.html
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { openClickHouse } from '../clickhouse/connection.js';
import { migrate } from '../clickhouse/schema.js';
import { buildReport } from '../clickhouse/report.js';
import { parse, UsageError } from './options.js';
import { DEFAULT_DATA_DIR } from './crawl-command.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, { 'data-dir': { type: 'string' }, 'clickhouse-url': { type: 'string' }, out: { type: 'string' } });
  const out = values.out as string | undefined;
  if (!out) throw new UsageError('--out FILE is required, e.g. --out report.html');
  const ch = await openClickHouse({
    url: values['clickhouse-url'] as string | undefined,
    dataDir: resolve((values['data-dir'] as string | undefined) ?? DEFAULT_DATA_DIR),
  });
  try {
    await migrate(ch);
    writeFileSync(out, await buildReport(ch));
    process.stdout.write(`wrote ${resolve(out)}\n`);
    return 0;
  } finally {
    await ch.close();
  }
}
