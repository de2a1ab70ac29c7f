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
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
  process.stdout.write(robotsCommandLines(text, ua, urls).join('\n') + '\n');
  return 0;
}
