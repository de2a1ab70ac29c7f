// Which tier each compiled test file belongs to, what it shares, and the order the runner starts
// them in (scripts/run-tests.mjs). A file says what its name cannot in one header line:
//   // test-plan: process               starts processes, worker threads, chdb or Chromium
//   // test-plan: e2e holds=kafka ~80s   restarts the shared Kafka; usually takes about 80 s
// Tiers: `unit` (in-process, CPU-bound: one file per core), `process` and `e2e` (mostly waiting on
// child processes, servers and politeness delays: several at once). `*.e2e.*` and `*.integration.*`
// files are e2e; `*.integration.*` files use the shared services (kafka, registry, clickhouse) unless
// `uses=` names the ones they do.
// `holds=S` runs a file while no other file using S runs (it stops or restarts S); once it waits,
// no new user of S starts, so it is never starved. `alone` runs a file while no other file runs at
// all: its assertions depend on timing that two cores shared with other crawls disturb (the Kafka
// crawls' hand-overs and recrawl rates); such files run first, one after another. `paced` files are
// long crawls that may share the machine but not with many of their kind: at most `slots.paced` of
// them run at once (CRAWLSTREAM_TEST_PACED, default 2), in a pool of their own beside the other
// tiers, started before the rest; with CRAWLSTREAM_TEST_PACED=alone each runs as if it were `alone`,
// except that `slots.beside` unit files (CRAWLSTREAM_TEST_BESIDE, default 1) may run next to it: a
// paced crawl mostly waits on politeness delays, a unit file uses no service and one core at most.
// `isolated` keeps a unit file in a process of its own (see `groupUnits`: most short unit files share one).
// `retry` runs a file once more after a failure, said loudly: only for a known, open fault (named in
// the file). `~90s` says how long a file usually takes, so that a fresh clone (no earlier run's times
// under dist/) still starts the longest files first and the run does not end on one long file.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

export const SERVICES = ['kafka', 'registry', 'clickhouse'];
const TIERS = ['unit', 'process', 'e2e'];
/** Expected seconds when neither a hint nor an earlier run says more (files that take longer carry a hint). */
const DEFAULT_SECONDS = { unit: 2, process: 8, e2e: 15 };

/** The plan line of a compiled test file, read from its first comment lines. */
function directive(path) {
  const head = readFileSync(path, 'utf8').slice(0, 4000).split('\n');
  for (const line of head) {
    if (!line.startsWith('//')) break;
    const m = /^\/\/\s*test-plan:\s*(.*)$/.exec(line);
    if (m) return m[1].trim().split(/\s+/);
  }
  return [];
}

/**
 * How many `paced` files run at once: a number, or 'alone' (each runs with nothing beside it). From
 * CRAWLSTREAM_TEST_PACED; a value that is neither is an error, not a silent default.
 */
/**
 * How many paced files run at once. On two cores or fewer, by default, each runs alone: in a
 * fresh-clone run, two Kafka crawls beside the e2e tier and the services' warm-up starved whichever
 * timing-judged crawls started with them (four e2e files failed in one run, the focused crawl in two).
 */
export function pacedSlots(value = process.env.CRAWLSTREAM_TEST_PACED, cores = availableParallelism()) {
  if (value === undefined || value === '') return cores <= 2 ? 'alone' : 2;
  if (value === 'alone') return 'alone';
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`CRAWLSTREAM_TEST_PACED must be a whole number of files (1 or more) or "alone", not "${value}"`);
  return n;
}

/** How many unit files may run beside a paced file made to run alone: CRAWLSTREAM_TEST_BESIDE, default 1. */
export function besideSlots(value = process.env.CRAWLSTREAM_TEST_BESIDE) {
  if (value === undefined || value === '') return 1;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`CRAWLSTREAM_TEST_BESIDE must be a whole number of files (0 or more), not "${value}"`);
  return n;
}

export function planFile(relPath, absPath, times = {}, paced = 2) {
  const words = directive(absPath);
  const named = relPath.includes('.e2e.') || relPath.includes('.integration.') ? 'e2e' : 'unit';
  const tier = words.find((w) => TIERS.includes(w)) ?? named;
  const given = words.filter((w) => w.startsWith('uses='));
  const uses = new Set(given.length ? [] : relPath.includes('.integration.') ? SERVICES : []);
  const holds = new Set();
  const isPaced = words.includes('paced');
  const alone = words.includes('alone') || (isPaced && paced === 'alone');
  // A paced file made to run alone leaves room for unit files; one marked `alone` leaves none.
  const admitsUnits = alone && !words.includes('alone');
  const retry = words.includes('retry');
  let hint;
  for (const w of words) {
    const [key, value] = w.split('=');
    if (key === 'uses' || key === 'holds') {
      for (const s of value.split(',')) {
        if (!SERVICES.includes(s)) throw new Error(`${relPath}: test-plan names an unknown service "${s}" (known: ${SERVICES.join(', ')})`);
        uses.add(s);
        if (key === 'holds') holds.add(s);
      }
    } else if (/^~\d+s$/.test(w)) hint = Number(w.slice(1, -1));
    else if (!['alone', 'paced', 'retry', 'isolated'].includes(w) && !TIERS.includes(w)) throw new Error(`${relPath}: unknown test-plan word "${w}"`);
  }
  const seconds = times[relPath] ?? hint ?? DEFAULT_SECONDS[tier];
  const sharesProcess = tier === 'unit' && uses.size === 0 && !alone && !retry && hint === undefined && !words.includes('isolated') && !changesProcess(readFileSync(absPath, 'utf8'));
  return { path: relPath, tier, uses, holds, alone, admitsUnits, paced: isPaced && !alone, retry, seconds, sharesProcess };
}

/**
 * What a file that shares its process could do to the files after it: hooks at the top level attach
 * to the process's root test (a beforeEach would run before every other file's tests), and exits,
 * process-wide handlers and environment changes outlive the file. Such files run in a process of
 * their own, as does chdb's embedded server (one per process, with its own data path).
 */
export function changesProcess(source) {
  return /^(before|after|beforeEach|afterEach)\(/m.test(source) ||
    /process\.(exit|exitCode|on|once|chdir)\b|process\.env\.\w+\s*=(?!=)|\bchdb\b/.test(source);
}

/**
 * Short unit files run several to a process: starting Node and loading the modules cost each file
 * ~0.3-0.5 s on two cores, more than most unit files' tests (98 short files: ~80 s one per process,
 * 17 s in one). Groups of `size` keep room for two at once and still say which file a failure is in
 * (the reporter names each failing test's file and line). CRAWLSTREAM_TEST_GROUP=1 runs every file
 * in its own process again, to tell whether a failure comes from sharing.
 */
export function groupUnits(files, size = Number(process.env.CRAWLSTREAM_TEST_GROUP) || 20) {
  if (size <= 1) return files;
  const shared = files.filter((f) => f.sharesProcess).sort((a, b) => a.path.localeCompare(b.path));
  const groups = [];
  for (let i = 0; i < shared.length; i += size) {
    const members = shared.slice(i, i + size);
    groups.push({
      path: `${members.length} unit files ${members[0].path} … ${members.at(-1).path}`, members: members.map((m) => m.path),
      tier: 'unit', uses: new Set(), holds: new Set(), alone: false, admitsUnits: false, paced: false, retry: false,
      seconds: members.reduce((n, m) => n + m.seconds, 0), sharesProcess: true,
    });
  }
  return [...files.filter((f) => !f.sharesProcess), ...groups];
}

/**
 * Picks the next files to start, in queue order. `running` are the files under way; `slots` how many of
 * each pool may run at once (unit files take `cpu` slots, process and e2e files `wait` slots, `paced`
 * files `paced` slots).
 */
export function nextToStart(queue, running, slots) {
  const lone = running.find((f) => f.alone);
  if (lone) return unitsBeside(lone, queue, running, slots);
  const first = queue.find((f) => f.alone);
  if (first) {
    // It waits for the others to end (but the unit files it admits), and nothing new starts meanwhile.
    const admitted = running.every((f) => isUnit(f)) && running.length <= besideRoom(first, slots);
    return admitted ? [first, ...unitsBeside(first, queue, running, slots)] : [];
  }
  const busy = { cpu: 0, wait: 0, paced: 0 };
  const inUse = new Map();
  for (const f of running) {
    busy[poolOf(f)]++;
    for (const s of f.uses) inUse.set(s, (inUse.get(s) ?? 0) + 1);
  }
  const held = new Set(running.flatMap((f) => [...f.holds]));
  // A holder waiting for its services keeps new users of them from starting.
  const reserved = new Set();
  const start = [];
  for (const f of queue) {
    const pool = poolOf(f);
    const blocked = [...f.uses].some((s) => held.has(s) || reserved.has(s)) || [...f.holds].some((s) => inUse.get(s));
    if (blocked || busy[pool] >= slots[pool]) {
      if (f.holds.size) for (const s of f.holds) reserved.add(s);
      continue;
    }
    start.push(f);
    busy[pool]++;
    for (const s of f.uses) inUse.set(s, (inUse.get(s) ?? 0) + 1);
    for (const s of f.holds) held.add(s);
  }
  return start;
}

const isUnit = (f) => f.tier === 'unit' && !f.alone && f.uses.size === 0;
const besideRoom = (f, slots) => (f.admitsUnits ? slots.beside ?? 0 : 0);

/** The unit files to start beside a file running alone, in queue order, as far as it admits them. */
function unitsBeside(lone, queue, running, slots) {
  let room = besideRoom(lone, slots) - running.filter((f) => f !== lone).length;
  const start = [];
  for (const f of queue) {
    if (room <= 0) break;
    if (isUnit(f)) {
      start.push(f);
      room--;
    }
  }
  return start;
}

const poolOf = (f) => (f.paced ? 'paced' : f.tier === 'unit' ? 'cpu' : 'wait');

/**
 * Files that run alone first, then holders (they need their services to themselves), then paced files
 * (their pool is narrow: started late, they would make the tail), then the longest first.
 */
export function order(files) {
  return [...files].sort((a, b) => Number(b.alone) - Number(a.alone) || b.holds.size - a.holds.size || Number(b.paced) - Number(a.paced) ||
    b.seconds - a.seconds || a.path.localeCompare(b.path));
}
