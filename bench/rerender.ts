// Renders a results file again, e.g. after bench/levers.json gained an entry or the report changed:
//   node dist/bench/rerender.js bench/results/bench-<stamp>.json [--levers bench/levers.json]
// Rewrites the .md beside the .json (the targets are judged again from the measured values).
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readLevers } from './levers.js';
import { renderMarkdown } from './render.js';
import type { Results } from './report.js';

const { positionals, values } = parseArgs({ allowPositionals: true, options: { levers: { type: 'string' } } });
const file = positionals[0];
if (!file?.endsWith('.json')) throw new Error('usage: rerender.js RESULTS.json [--levers FILE]');
const results = JSON.parse(readFileSync(file, 'utf8')) as Results;
delete results.comparison; // judged again by the current report
const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const md = renderMarkdown(results, readLevers(resolve(values.levers ?? `${root}/bench/levers.json`)));
writeFileSync(file.replace(/\.json$/, '.md'), md);
process.stdout.write(md);
