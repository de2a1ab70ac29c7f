// crawlstream report [--data-dir DIR | --clickhouse-url URL] --out report.html
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { openClickHouse } from '../clickhouse/connection.js';
import { schemaState, SCHEMA_VERSION } from '../clickhouse/schema.js';
import { buildReport } from '../clickhouse/report.js';
import { parse, UsageError } from './options.js';
import { DEFAULT_DATA_DIR } from './data-dir.js';
import { stderrLogger } from './progress.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, { 'data-dir': { type: 'string' }, 'clickhouse-url': { type: 'string' }, out: { type: 'string' } });
  const out = values.out as string | undefined;
  if (!out) throw new UsageError('--out FILE is required, e.g. --out report.html');
  // Read-only: a report never creates an empty store where the crawl's was expected, nor changes
  // the schema; damaged parts are told on stderr here and at the top of the page.
  const ch = await openClickHouse({
    url: values['clickhouse-url'] as string | undefined,
    dataDir: resolve((values['data-dir'] as string | undefined) ?? DEFAULT_DATA_DIR),
    readOnly: true,
    logger: stderrLogger(),
  });
  try {
    const schema = await schemaState(ch);
    if (schema.missing.length || schema.version < SCHEMA_VERSION) {
      throw new Error(`${ch.location} (${ch.database}) is at schema version ${schema.version}${schema.missing.length ? ` and lacks ${schema.missing.join(', ')}` : ''}; ` +
        `this report needs version ${SCHEMA_VERSION}: run crawlstream clickhouse migrate first`);
    }
    writeFileSync(out, await buildReport(ch));
    process.stdout.write(`wrote ${resolve(out)}\n`);
    return 0;
  } finally {
    await ch.close();
  }
}
