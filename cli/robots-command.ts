// crawlstream robots FILE --user-agent UA URL... — one line per URL: "allowed <url>" or "disallowed <url>".
import { readFileSync } from 'node:fs';
import { robotsCommandLines } from '../robots/robots-command.js';
import { parse, UsageError } from './options.js';

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { 'user-agent': { type: 'string' } });
  const [file, ...urls] = positionals;
  if (!file || urls.length === 0) throw new UsageError('usage: crawlstream robots FILE --user-agent UA URL...');
  const ua = values['user-agent'] as string | undefined;
  if (!ua) throw new UsageError('--user-agent is required');
  // A word that is not a URL would get a verdict for a path it does not have ("allowed notaurl").
  const notUrls = urls.filter((u) => !isHttpUrl(u));
  if (notUrls.length) {
    throw new UsageError(`not an absolute http(s) URL: ${notUrls.map((u) => JSON.stringify(u)).join(', ')} (e.g. https://example.org/page)`);
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
  process.stdout.write(robotsCommandLines(text, ua, urls).join('\n') + '\n');
  return 0;
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
