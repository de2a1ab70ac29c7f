// npm run docs:stages: rewrites the stage table of docs/architecture.md from the crawl topology's
// description (crawl/stage-table.ts). `--check` changes nothing and exits 1 when the table is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stageTable, withStageTable } from '../crawl/stage-table.js';

const doc = fileURLToPath(new URL('../../docs/architecture.md', import.meta.url));
const before = readFileSync(doc, 'utf8');
const after = withStageTable(before, stageTable());
if (process.argv.includes('--check')) {
  if (after !== before) {
    process.stderr.write('docs/architecture.md: the stage table differs from the topology; run npm run docs:stages\n');
    process.exit(1);
  }
} else if (after !== before) {
  writeFileSync(doc, after);
  process.stdout.write('docs/architecture.md: stage table rewritten\n');
}
