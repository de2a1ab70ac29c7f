#!/usr/bin/env node
// Runs the compiled tests, several files at once (one process each), in tiers (scripts/test-plan.mjs):
// unit files one per core, process and e2e files (which mostly wait on crawls, servers and delays)
// several at once beside them, and a file that restarts a shared service while no other file uses it.
//   node scripts/run-tests.mjs                 every test
//   node scripts/run-tests.mjs --unit          only the unit and process tiers (no crawl, no service)
//   node scripts/run-tests.mjs <substr>...     only files whose path contains one of them
//   node scripts/run-tests.mjs --list          the plan (tier, services, expected time), nothing run
// CRAWLSTREAM_TEST_JOBS=N sets how many process and e2e files run at once (default one more than the cores);
// CRAWLSTREAM_TEST_PACED=N how many files marked `paced` run at once beside them (default 2; `alone`: one
// at a time with nothing else running but CRAWLSTREAM_TEST_BESIDE=N unit files, default 1);
// CRAWLSTREAM_TEST_FILE_TIMEOUT (seconds, default 600) ends a file that hangs, as a failure;
// CRAWLSTREAM_TEST_NO_RETRY=1 turns off the one retry of files marked `retry`; CRAWLSTREAM_TEST_GROUP=N
// runs short unit files N to a process (default 20; 1: each in its own, as a single named file always is).
// Each file's temporary files (TMPDIR) go to a directory of its own, removed when the file passes and
// kept, and named, when it fails: a whole run used to leave ~190 MB of crawls' data directories behind.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { besideSlots, groupUnits, nextToStart, order, pacedSlots, planFile } from './test-plan.mjs';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const TIMES = join(dist, '.test-times.json');
const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const listOnly = args.includes('--list');
const filters = args.filter((a) => !a.startsWith('--'));
const cpus = availableParallelism();
const paced = pacedSlots();
const slots = { cpu: cpus, wait: Number(process.env.CRAWLSTREAM_TEST_JOBS) || cpus + 1, paced: paced === 'alone' ? 0 : paced, beside: besideSlots() };
const fileTimeoutMs = (Number(process.env.CRAWLSTREAM_TEST_FILE_TIMEOUT) || 600) * 1000;

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

// Durations of an earlier run in this checkout order the files better than the hints do.
const times = existsSync(TIMES) ? JSON.parse(readFileSync(TIMES, 'utf8')) : {};
const planned = walk(dist)
  .map((p) => planFile(relative(root, p), p, times, paced))
  .filter((f) => filters.length === 0 || filters.some((s) => f.path.includes(s)))
  .filter((f) => !unitOnly || f.tier !== 'e2e');
const files = order(filters.length ? planned : groupUnits(planned));

if (listOnly) {
  for (const f of files) {
    const needs = [...f.uses].map((s) => (f.holds.has(s) ? `${s} (held)` : s)).join(', ');
    console.log(`${f.tier.padEnd(7)} ${String(Math.round(f.seconds)).padStart(4)} s  ${f.path}${f.alone ? '  (alone)' : f.paced ? '  (paced)' : ''}${needs ? `  [${needs}]` : ''}`);
  }
  process.exit(0);
}

// Short names: a browser's and a broker's sockets live under TMPDIR, and a socket's path has ~100 bytes.
const runTmp = mkdtempSync(join(tmpdir(), 'cst-'));
let fileNumber = 0;

/** Runs one file in its own process group, its output kept until it ends so files do not interleave. */
function runFile(f) {
  const started = performance.now();
  const fileTmp = mkdtempSync(join(runTmp, `${fileNumber++}-`));
  const child = spawn(
    process.execPath,
    ['--import', join(dist, 'test/support/property-seed.js'), '--test-reporter=spec',
      ...(f.members ? [join(root, 'scripts/test-group.mjs'), ...f.members] : ['--test', f.path])],
    { cwd: root, env: { ...process.env, CRAWLSTREAM_TEST: '1', TMPDIR: fileTmp }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid, 'SIGKILL'); // the file and every crawl, worker or browser it started
    } catch {}
  }, fileTimeoutMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      if (timedOut) output += `\n# ${f.path}: ended after ${fileTimeoutMs / 1000} s (CRAWLSTREAM_TEST_FILE_TIMEOUT)\n`;
      const ok = code === 0 && !timedOut;
      if (ok) removeTmp(fileTmp);
      else output += `\n# ${f.path}: its temporary files are kept in ${fileTmp}\n`;
      resolve({ ...f, ok, code, signal, seconds, output });
    });
  });
}

function removeTmp(dir) {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch (err) {
    console.log(`# could not remove ${dir}: ${err.message}`);
  }
}

const counts = { unit: 0, process: 0, e2e: 0 };
for (const f of files) counts[f.tier]++;
console.log(`# ${files.length} file(s): ${Object.entries(counts).map(([t, n]) => `${n} ${t}`).join(', ')}; ${slots.cpu} unit, ${slots.wait} process/e2e and ${paced === 'alone' ? `one paced file alone (${slots.beside} unit beside it)` : `${slots.paced} paced`} at once`);

const began = performance.now();
const queue = [...files];
const running = new Set();
const done = [];
const flaky = [];
await new Promise((finish) => {
  const pump = () => {
    for (const f of nextToStart(queue, [...running], slots)) {
      queue.splice(queue.indexOf(f), 1);
      running.add(f);
      runFile(f).then(async (first) => {
        let r = first;
        // A file marked `retry` (only for a known, open fault named in the file) runs once more
        // after a failure. Both runs are printed, and the run ends with the list of files that
        // passed only on their retry.
        if (!r.ok && f.retry && !process.env.CRAWLSTREAM_TEST_NO_RETRY) {
          process.stdout.write(`${r.output}\n# FAILED ${r.path} on its first run (${r.seconds.toFixed(1)} s); running it once more\n`);
          r = await runFile(f);
          if (r.ok) flaky.push(r.path);
        }
        running.delete(f);
        done.push(r);
        const at = ((performance.now() - began) / 1000).toFixed(0);
        process.stdout.write(`${r.output}\n# ${r.ok ? 'ok' : 'FAILED'} ${r.path} (${r.tier}, ${r.seconds.toFixed(1)} s; ${done.length}/${files.length} at ${at} s)\n`);
        pump();
      });
    }
    if (running.size === 0) finish(); // nothing left (nextToStart always starts something when nothing runs)
  };
  pump();
});

const wall = (performance.now() - began) / 1000;
const failed = done.filter((r) => !r.ok);
// A group's time is shared out among its files, so that the next run plans them whatever the groups.
const fileTimes = done.flatMap((r) => (r.members ? r.members.map((m) => [m, r.seconds / r.members.length]) : [[r.path, r.seconds]]));
writeFileSync(TIMES, JSON.stringify({ ...times, ...Object.fromEntries(fileTimes.map(([p, s]) => [p, Math.round(s * 10) / 10])) }, null, 1));
console.log('\n# slowest files');
for (const r of [...done].sort((a, b) => b.seconds - a.seconds).slice(0, 12)) console.log(`#   ${r.seconds.toFixed(1).padStart(6)} s  ${r.tier.padEnd(7)} ${r.path}`);
const byTier = Object.keys(counts).filter((t) => counts[t]).map((t) => `${t} ${done.filter((r) => r.tier === t).reduce((s, r) => s + r.seconds, 0).toFixed(0)} s`);
console.log(`# ${done.length} file(s) in ${wall.toFixed(0)} s (time in files: ${byTier.join(', ')})`);
if (flaky.length) console.log(`# FLAKY (failed, then passed on their one retry; see their first run above): ${flaky.join(', ')}`);
if (failed.length) console.log(`# FAILED: ${failed.map((r) => r.path).join(', ')}`);
// Empty unless a run failed (a flaky file's first run too): what such a run left is kept where its output said.
try {
  rmdirSync(runTmp);
} catch {
  console.log(`# temporary files of the runs that failed are kept under ${runTmp}`);
}
process.exit(failed.length ? 1 : 0);
