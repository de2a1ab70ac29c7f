// crawlstream normalize URL... — one line per URL: the canonical form, or "rejected <reason>".
import { canonicalize } from '../url/canonicalize.js';
import { defaultCrawlConfig } from '../contract/config.js';
import { UsageError } from './options.js';

export async function run(argv: string[]): Promise<number> {
  if (argv.length === 0) throw new UsageError('give at least one URL');
  const { maxUrlLength } = defaultCrawlConfig();
  const lines = argv.map((raw) => {
    const c = canonicalize(raw, { maxLength: maxUrlLength });
    return c.ok ? c.url : `rejected ${c.reason}`;
  });
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}
