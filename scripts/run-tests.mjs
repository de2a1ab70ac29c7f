#!/usr/bin/env node
// Runs the compiled tests in two phases: unit and driver tests in parallel, then the end-to-end and
// integration tests one file at a time (they start crawls, web servers and share services).
//   node scripts/run-tests.mjs            every test
//   node scripts/run-tests.mjs --unit     only tests that need no external service
//   node scripts/run-tests.mjs <substr>   only files whose path contains <substr>
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const filters = args.filter((a) => !a.startsWith('--'));

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const files = walk(dist)
  .map((p) => relative(root, p))
  .filter((p) => !p.startsWith('dist/bench/'))
  .filter((p) => filters.length === 0 || filters.some((f) => p.includes(f)))
  .sort();
const serial = (p) => p.includes('.e2e.') || p.includes('.integration.');
const phases = [
  { name: 'unit', files: files.filter((p) => !serial(p)), concurrency: 2 },
  { name: 'end-to-end and integration', files: unitOnly ? [] : files.filter(serial), concurrency: 1 },
];

let failed = false;
for (const phase of phases) {
  if (phase.files.length === 0) continue;
  console.log(`\n# ${phase.name}: ${phase.files.length} file(s)`);
  const r = spawnSync(
    process.execPath,
    ['--import', join(dist, 'test/support/property-seed.js'), '--test', `--test-concurrency=${phase.concurrency}`, '--test-reporter=spec', ...phase.files],
    { cwd: root, stdio: 'inherit', env: { ...process.env, CRAWLSTREAM_TEST: '1' } },
  );
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
