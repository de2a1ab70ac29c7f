// node dist/bench/freshness.js [--runtimes kafka,embedded] [--seconds 120] [--kill-at 40] [--story-every 4]
// The continuous crawl under a kill -9, judged from the test server's own log: the fresh web (pages that
// change at every visit, pages that never change and answer 304, a front page that gains a story every
// few seconds), crawled with --recrawl (minimum interval 2 s, maximum 60 s) at a 200 ms delay for
// `seconds`. On Kafka: two workers on 4 partitions, worker 0 killed -9 at `kill-at`. Embedded: the crawl
// killed -9 at `kill-at` and started again on its data directory for the rest. Prints one JSON object:
// per runtime, refetches per page of each kind, changing ÷ unchanging, the stories that appeared at
// least 20 s before the end and how many were fetched, and the politeness audit (overlaps, short gaps).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startSyntheticWeb, type SyntheticWeb, type WebRequest } from '../test-web/synthetic-web.js';
import { auditPoliteness, delayFromExpected } from '../test-web/politeness-audit.js';
import { cleanupKafkaRun, ensureServices } from './kafka-run.js';
import { FRESH_DELAY_MS as DELAY_MS, type FreshnessResult, type FreshnessRun } from './freshness-report.js';

const RECRAWL = ['--recrawl', '--recrawl-min-interval', '2s', '--recrawl-max-interval', '60s'];
/** A story counts once it has been listed this long before the end: two minimum intervals and a margin. */
const STORY_COUNTS_AFTER_MS = 20_000;

const dist = resolve(fileURLToPath(new URL('..', import.meta.url)));
const root = resolve(dist, '..');
const BIN = join(root, 'bin/crawlstream');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Child { child: ChildProcess; done: Promise<{ code: number | null; signal: string | null; stderr: string }> }

function start(args: string[], onStderr?: (chunk: string) => void): Child {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    const s = d.toString();
    stderr = (stderr + s).slice(-8192);
    onStderr?.(s);
  });
  return { child, done: new Promise((r) => child.once('close', (code, signal) => r({ code, signal, stderr }))) };
}

const lastLine = (s: string) => s.trim().split('\n').at(-1) ?? '';

/** What the server saw, judged: refetch rates, stories found, politeness. */
export function judge(web: Pick<SyntheticWeb, 'requests' | 'fresh' | 'origin' | 'expected'>, runtime: FreshnessRun['runtime'], from: number, end: number, killedAt: number): FreshnessRun {
  const host = (name: string) => new URL(web.origin(name)).host;
  const pages = web.requests.filter((r) => r.host === host('fresh-pages'));
  const n = web.fresh!.pages;
  const refetches = (kind: string) => Math.max(0, pages.filter((r) => r.path.startsWith(`/${kind}/`)).length - n) / n;
  const perPage = { always: refetches('always'), sometimes: refetches('sometimes'), never: refetches('never') };
  const firstFetch = new Map<number, number>();
  for (const r of web.requests.filter((q) => q.host === host('fresh-news'))) {
    const m = /^\/story\/(\d+)$/.exec(r.path);
    if (m && r.status === 200) firstFetch.set(Number(m[1]), Math.min(firstFetch.get(Number(m[1])) ?? Infinity, r.startedAt));
  }
  const due: number[] = [];
  // Stories listed before the crawl started count from its start: the first front page lists them all.
  for (let i = 0; web.fresh!.storyAt(i) <= end - STORY_COUNTS_AFTER_MS; i++) due.push(i);
  const latencies = due.filter((i) => firstFetch.has(i)).map((i) => firstFetch.get(i)! - Math.max(from, web.fresh!.storyAt(i))).sort((a, b) => a - b);
  const violations = auditPoliteness(web.requests as WebRequest[], delayFromExpected(web.expected.hostDelayMs, DELAY_MS));
  const missed = due.filter((i) => !firstFetch.has(i));
  return {
    runtime, seconds: Math.round((end - from) / 1000), killedAtSeconds: Math.round((killedAt - from) / 1000),
    refetchesPerPage: perPage,
    changingOverUnchanging: perPage.never > 0 ? Math.round((perPage.always / perPage.never) * 100) / 100 : Infinity,
    storiesDue: due.length, storiesFound: due.length - missed.length,
    storyLatencyP50Ms: latencies.length ? Math.round(latencies[Math.floor(latencies.length / 2)]) : NaN,
    overlaps: violations.filter((v) => v.kind === 'overlap').length, shortGaps: violations.filter((v) => v.kind === 'gap').length,
    requests: web.requests.length,
    notes: missed.length ? [`stories never fetched: ${missed.join(', ')}`] : [],
  };
}

async function onKafka(seconds: number, killAt: number, storyEveryMs: number): Promise<FreshnessRun> {
  const services = ensureServices(root);
  const id = `fresh${Date.now()}`;
  const prefix = `${id}.`;
  const kafkaFlags = ['--brokers', services.brokers, '--topic-prefix', prefix];
  const scratch = mkdtempSync(join(tmpdir(), 'crawlstream-bench-fresh-'));
  const web = await startSyntheticWeb({ scenario: 'fresh', fresh: { pages: 1, storyEveryMs } });
  const workers: Child[] = [];
  try {
    const topics = await start(['topics', 'create', ...kafkaFlags, '--partitions', '4']).done;
    if (topics.code !== 0) throw new Error(`topics create failed: ${lastLine(topics.stderr)}`);
    let waiting = 0;
    await new Promise<void>((resolveWait, reject) => {
      for (let i = 0; i < 2; i++) {
        const w = start(['worker', ...kafkaFlags, '--schema-registry', services.registry, '--clickhouse-url', `${services.clickhouse}/${id}`,
          '--allow-network', '127.0.0.0/8', '--data-dir', join(scratch, `w${i}`)], (s) => {
          if (/waiting for a crawl/.test(s) && ++waiting === 2) resolveWait();
        });
        void w.done.then((r) => reject(new Error(`worker ${i} exited (${r.code ?? r.signal}) before the crawl: ${lastLine(r.stderr)}`)));
        workers.push(w);
      }
    });
    const seed = await start(['seed', ...kafkaFlags, '--schema-registry', services.registry, '--default-delay-ms', String(DELAY_MS), ...RECRAWL, ...web.seeds]).done;
    if (seed.code !== 0) throw new Error(`seed failed: ${lastLine(seed.stderr)}`);
    const from = Date.now();
    // A worker that ends on its own is a fault of the run, said beside its figures, not a quiet gap in them.
    const died: string[] = [];
    let stopping = false;
    workers.forEach((w, i) => void w.done.then((r) => {
      if (!stopping && !(i === 0 && r.signal === 'SIGKILL')) died.push(`worker ${i} exited ${r.code ?? r.signal} ${Math.round((Date.now() - from) / 1000)} s in: ${lastLine(r.stderr)}`);
    }));
    await sleep(killAt * 1000);
    const killedAt = Date.now();
    workers[0].child.kill('SIGKILL');
    await sleep(Math.max(0, from + seconds * 1000 - Date.now()));
    const end = Date.now();
    stopping = true;
    workers[1].child.kill('SIGTERM');
    const last = await workers[1].done;
    const run = judge(web, 'kafka', from, end, killedAt);
    run.notes.push(...died);
    if (last.code !== 0 && !died.length) run.notes.push(`worker 1 exited ${last.code ?? last.signal} after SIGTERM: ${lastLine(last.stderr)}`);
    return run;
  } finally {
    for (const w of workers) w.child.kill('SIGKILL');
    await web.close();
    await cleanupKafkaRun(services, prefix, id);
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function embedded(seconds: number, killAt: number, storyEveryMs: number): Promise<FreshnessRun> {
  const scratch = mkdtempSync(join(tmpdir(), 'crawlstream-bench-fresh-'));
  const web = await startSyntheticWeb({ scenario: 'fresh', fresh: { pages: 1, storyEveryMs } });
  const args = (runFor: number) => ['crawl', ...web.seeds, '--data-dir', join(scratch, 'data'), '--allow-network', '127.0.0.0/8',
    '--default-delay-ms', String(DELAY_MS), '--partitions', '4', '--quiet', ...RECRAWL, '--run-for', `${runFor}ms`];
  try {
    const from = Date.now();
    const first = start(args(seconds * 1000));
    let firstEnded = '';
    void first.done.then((r) => (firstEnded ||= `the crawl exited ${r.code ?? r.signal} before its kill: ${lastLine(r.stderr)}`));
    await sleep(killAt * 1000);
    const killedAt = Date.now();
    const ended = firstEnded;
    first.child.kill('SIGKILL');
    await first.done;
    const again = await start(args(Math.max(1000, from + seconds * 1000 - Date.now()))).done;
    const end = Date.now();
    const run = judge(web, 'embedded', from, end, killedAt);
    if (ended) run.notes.push(ended);
    if (again.code !== 0) run.notes.push(`the resumed crawl exited ${again.code ?? again.signal}: ${lastLine(again.stderr)}`);
    return run;
  } finally {
    await web.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      runtimes: { type: 'string', default: 'kafka,embedded' }, seconds: { type: 'string', default: '120' },
      'kill-at': { type: 'string', default: '40' }, 'story-every': { type: 'string', default: '4' },
    },
  });
  const seconds = Number(values.seconds);
  const killAt = Number(values['kill-at']);
  const storyEveryMs = Number(values['story-every']) * 1000;
  const runs: FreshnessRun[] = [];
  for (const r of values.runtimes.split(',')) {
    if (r === 'kafka') runs.push(await onKafka(seconds, killAt, storyEveryMs));
    else if (r === 'embedded') runs.push(await embedded(seconds, killAt, storyEveryMs));
    else throw new Error(`--runtimes: unknown runtime ${r} (kafka, embedded)`);
  }
  console.log(JSON.stringify({ runs } satisfies FreshnessResult, (_k, v) => (v === Infinity ? 'Infinity' : v)));
}
