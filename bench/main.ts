// `npm run bench` (bench/run.sh builds first): the figures of issue 11, each judged against its target,
// with crawlstream compared to Crawlee's CheerioCrawler at its best in the same run, on the same machine,
// against the same cheap bench web (bench/bench-server.ts). Writes bench/results/bench-<stamp>.json and .md.
//   --only ceilings,engine,crawlee,embedded,https,duplicates,kafka,hostidle,stages,freshness,focus,profile,large   (default: all but large)
//   --with-large (two 100k runs: --large-hosts × --large-pages, and --hosts × as many pages as that makes)
//   --hosts N --pages N --seeds N   --large-hosts N --large-pages N   --dup-hosts N --dup-pages N
//   --crawlee-min 16,32 (minConcurrency of each Crawlee run; the fastest is the peer)   --crawlee-max 64
//   --kafka-workers 1[,2]   --kafka-threads N[,M] (also one worker of N threads; default 2)   --kafka-rounds R (default 2, ABBA)   --engine-records N   --levers FILE   --out DIR   --quiet-wait SECONDS (default 60)
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { summarizeProfile } from './cpu-profile.js';
import { quietWait, runCrawlee, runEmbedded, type CrawlRun, type Paths } from './crawls.js';
import { ensureServices, kafkaRunName, runKafka } from './kafka-run.js';
import { roundName } from './kafka-cost.js';
import { readLevers } from './levers.js';
import { describeMachine } from './machine.js';
import { hasGnuTime, round, runMeasured, waitQuiet } from './proc.js';
import { renderMarkdown } from './render.js';
import { bestCrawlee, engineRuns, type EngineResult, type FocusResult, type Results } from './report.js';
import type { FreshnessResult } from './freshness-report.js';
import { startWeb } from './web.js';

const KAFKA_ATTEMPTS = 3;
/** The engine pass-through runs this often; its row takes the fastest (a CPU cost measured alone: a VM's other tenants only add to it). */
const ENGINE_RUNS = 5;
/** minConcurrency of the Crawlee runs (maxConcurrency 64); the fastest is the peer every ratio uses. */
const DEFAULT_CRAWLEE_MIN = [16, 32];
const SECTIONS = ['ceilings', 'engine', 'crawlee', 'embedded', 'https', 'duplicates', 'kafka', 'hostidle', 'stages', 'freshness', 'focus', 'profile', 'large'] as const;
/** The politeness loop's latency: a few hosts, many pages each, every host a seed, delay 0 (issue 18). */
const HOST_IDLE_WEB = { hosts: 5, pages: 100 };
/** The unmeasured crawl that warms the services up before the Kafka runs. */
const WARM_UP_WEB = { hosts: 40, pages: 25 };
type Section = (typeof SECTIONS)[number];

const dist = resolve(fileURLToPath(new URL('..', import.meta.url)));
const root = resolve(dist, '..');
const paths: Paths = { root, dist, bin: join(root, 'bin/crawlstream'), bench: join(root, 'bench') };

function say(m: string): void {
  process.stderr.write(`bench: ${m}\n`);
}

function int(v: string | undefined, d: number, name: string): number {
  const n = v === undefined ? d : Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
}

function summary(r: CrawlRun): string {
  return `${r.name}: ${r.pages} pages in ${r.wallSeconds} s = ${r.pagesPerSecond} pages/s, peak RSS ${r.peakRssMb} MB, ` +
    `${r.cpuSecondsPer1000Pages} CPU s/1000 pages, peak ${r.web.peakRequestsPerHostPerSecond} req/s to one host, max ${r.web.maxConnectionsPerHost} connections per host${r.notes ? ` (${r.notes.join('; ')})` : ''}`;
}

async function ceilings(hosts: number, pages: number): Promise<Results['ceilings']> {
  const scratch = mkdtempSync(join(tmpdir(), 'crawlstream-bench-ceiling-'));
  try {
    const probe = async (mode: 'fetch' | 'parse') => {
      const web = await startWeb(dist, hosts, pages, scratch);
      const seedsFile = join(scratch, `seeds-${mode}.txt`);
      writeFileSync(seedsFile, web.seeds.join('\n') + '\n');
      if (mode === 'fetch') await waitQuiet(quietWait.ms);
      const m = await runMeasured(process.execPath, [join(dist, 'bench/ceilings.js'), mode, '--seeds-file', seedsFile, '--pages', String(pages)]);
      const stats = await web.stop();
      if (m.exitCode !== 0) throw new Error(`ceiling ${mode} failed: ${m.stderrTail}`);
      return { result: JSON.parse(m.stdout) as Record<string, unknown>, m, stats };
    };
    const f = await probe('fetch');
    const p = await probe('parse');
    return {
      fetch: { ...f.result, serverPageRequests: f.stats.pageRequests, peakRssMb: f.m.peakRssMb, serverCpuSeconds: f.stats.serverCpuSeconds } as never,
      parse: p.result as never,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function childJson(script: string, args: string[], nodeFlags: string[] = []): Promise<Record<string, unknown>> {
  const m = await runMeasured(process.execPath, [...nodeFlags, join(dist, 'bench', script), ...args]);
  if (m.exitCode !== 0) throw new Error(`${script} failed: ${m.stderrTail}`);
  return { ...(JSON.parse(m.stdout) as Record<string, unknown>), peakRssMb: m.peakRssMb };
}

async function profile(hosts: number, pages: number, seeds: number): Promise<Results['profile']> {
  const dir = mkdtempSync(join(tmpdir(), 'crawlstream-bench-cpuprof-'));
  const run = await runEmbedded(paths, 'embedded-profiled', { hosts, pages, seeds, nodeFlags: ['--cpu-prof', '--cpu-prof-dir', dir] });
  // One file per thread: CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; the main thread's id is 0.
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const file = files.find((f) => f.split('.').at(-3) === '0') ?? files[0];
  if (!file) throw new Error('no .cpuprofile written');
  return { ...summarizeProfile(join(dir, file), dist), file: join(dir, file), pagesPerSecond: run.pagesPerSecond, pages: run.pages, run };
}

function list(v: string | undefined, d: number[], name: string): number[] {
  if (v === undefined) return d;
  const out = v.split(',').map((x) => Number(x.trim()));
  if (out.length === 0 || out.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--${name} must be a comma-separated list of positive integers`);
  return out;
}

async function kafkaSection(results: Results, workers: number[], hosts: number, pages: number, seeds: number, threads: number[], rounds: number): Promise<void> {
  const services = ensureServices(root);
  results.services = { ...services, note: services.startedByBench ? 'KAFKA_BROKERS etc. were not set: the bench ran scripts/dev-services.sh up (idempotent: starts what is not running)' : 'taken from KAFKA_BROKERS, SCHEMA_REGISTRY_URL, CLICKHOUSE_URL' };
  say(`kafka: services ${results.services.note}`);
  // A broker just started compiles its hot paths during the first crawl it serves (one such run
  // measured 15.3 broker CPU s where warm ones take 5-9): that is the JVM's warm-up, not a page's cost.
  say(`kafka: warming the services up with an unmeasured crawl of ${WARM_UP_WEB.hosts * WARM_UP_WEB.pages} pages…`);
  try {
    const w = await runKafka(paths, services, 1, WARM_UP_WEB.hosts, WARM_UP_WEB.pages, seeds);
    results.services.note += `; an unmeasured ${w.pages}-page crawl on one worker warmed them up first (broker CPU ${w.servicesCpuSeconds?.kafka ?? '?'} s)`;
  } catch (err) {
    results.services.note += `; the warm-up crawl failed (${(err as Error).message}): the first run may carry the broker's warm-up`;
  }
  const arms = [...workers.map((n) => [n, 1]), ...threads.filter((t) => t > 1).map((t) => [1, t])];
  // ABBA: round 2 runs the arms in reverse, so a drift of the machine over the section (this VM's CPU
  // time a page moved by 10-20 % within minutes) weighs on each arm alike; the ratios pool the rounds.
  const runs = Array.from({ length: rounds }, (_, i) => (i % 2 === 0 ? arms : [...arms].reverse()).map(([n, t]) => [n, t, i + 1])).flat();
  for (const [n, t, round] of runs) {
    const name = roundName(kafkaRunName(n, t), round);
    // The dev services are shared: another user's test may restart the broker mid-run. Try again then.
    const failures: string[] = [];
    for (let attempt = 1; attempt <= KAFKA_ATTEMPTS; attempt++) {
      say(`crawlstream on Kafka, ${n} worker(s)${t > 1 ? ` of ${t} threads` : ''}, round ${round} of ${rounds}${attempt > 1 ? `, attempt ${attempt}` : ''}…`);
      try {
        const r = await runKafka(paths, services, n, hosts, pages, seeds, t);
        r.name = name;
        if (failures.length) r.notes = [...(r.notes ?? []), `earlier attempts failed: ${failures.join('; ')}`];
        results.crawls[r.name] = r;
        say(summary(r));
        break;
      } catch (err) {
        failures.push((err as Error).message);
        say(`${name} attempt ${attempt} failed: ${(err as Error).message}`);
        if (attempt < KAFKA_ATTEMPTS) await new Promise((r) => setTimeout(r, 15_000)); // a broker that just started needs a moment
      }
    }
    if (failures.length === KAFKA_ATTEMPTS) (results.failed ??= []).push(`${name}: ${failures.join('; ')}`);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' }, 'with-large': { type: 'boolean', default: false },
      hosts: { type: 'string' }, pages: { type: 'string' }, seeds: { type: 'string' },
      'large-hosts': { type: 'string' }, 'large-pages': { type: 'string' },
      'dup-hosts': { type: 'string' }, 'dup-pages': { type: 'string' },
      'crawlee-min': { type: 'string' }, 'crawlee-max': { type: 'string' },
      'kafka-workers': { type: 'string' }, 'kafka-threads': { type: 'string' }, 'kafka-rounds': { type: 'string' }, 'engine-records': { type: 'string' },
      levers: { type: 'string' }, out: { type: 'string' }, 'quiet-wait': { type: 'string' },
    },
  });
  const only = values.only?.split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of only ?? []) if (!SECTIONS.includes(s as Section)) throw new Error(`--only: unknown section ${s} (${SECTIONS.join(', ')})`);
  const sections = new Set<Section>((only as Section[] | undefined) ?? SECTIONS.filter((s) => s !== 'large' || values['with-large']));
  const hosts = int(values.hosts, 200, 'hosts');
  const pages = int(values.pages, 50, 'pages');
  const seeds = Math.min(hosts, int(values.seeds, 10, 'seeds'));
  const large = { hosts: int(values['large-hosts'], 2000, 'large-hosts'), pages: int(values['large-pages'], 50, 'large-pages') };
  const dupWeb = { hosts: int(values['dup-hosts'], 20, 'dup-hosts'), pages: int(values['dup-pages'], 50, 'dup-pages') };
  const crawleeMax = int(values['crawlee-max'], 64, 'crawlee-max');
  const crawlee = list(values['crawlee-min'], DEFAULT_CRAWLEE_MIN, 'crawlee-min').map((min) => ({ min: Math.min(min, crawleeMax), max: crawleeMax }));
  const kafkaWorkers = list(values['kafka-workers'], [1], 'kafka-workers');
  // Default: also one worker of two threads, whose CPU a page the stream-threads row sets against one thread's.
  const kafkaThreads = list(values['kafka-threads'], [2], 'kafka-threads');
  const kafkaRounds = int(values['kafka-rounds'], 2, 'kafka-rounds');
  const engineRecords = int(values['engine-records'], 200_000, 'engine-records');
  if (values['quiet-wait'] !== undefined) quietWait.ms = Number(values['quiet-wait']) * 1000;
  if (!Number.isFinite(quietWait.ms) || quietWait.ms < 0) throw new Error('--quiet-wait must be a number of seconds ≥ 0');
  const outDir = resolve(values.out ?? join(root, 'bench/results'));
  const leversFile = resolve(values.levers ?? join(root, 'bench/levers.json'));
  const started = performance.now();
  const results: Results = {
    machine: describeMachine(root, hasGnuTime()),
    options: { sections: [...sections], hosts, pagesPerHost: pages, seeds, large, duplicatesWeb: dupWeb, crawlee },
    crawls: {},
  };
  say(`sections: ${[...sections].join(', ')}; bench web ${hosts} hosts × ${pages} pages, ${seeds} seeds`);
  // A failed section is recorded with its reason and the others still run.
  const section = async (name: Section, fn: () => Promise<void>) => {
    if (!sections.has(name)) return;
    try {
      await fn();
    } catch (err) {
      say(`${name} failed: ${(err as Error).message}`);
      (results.failed ??= []).push(`${name}: ${(err as Error).message}`);
    }
  };

  await section('ceilings', async () => {
    say('ceilings: fetch-only (undici, c=64) and parse-only (analyzeBody, one core)');
    const c = await ceilings(hosts, pages);
    results.ceilings = c;
    say(`ceilings: fetch ${c!.fetch.pagesPerSecond} pages/s, parse ${c!.parse.benchPages.cpuMicrosPerPage} µs/page`);
  });
  await section('engine', async () => {
    say(`engine: pass-through of ${engineRecords} records on the embedded runtime…`);
    await waitQuiet(quietWait.ms);
    const runs: EngineResult[] = [];
    for (let i = 0; i < ENGINE_RUNS; i++) runs.push((await childJson('engine-pass.js', ['--records', String(engineRecords)])) as unknown as EngineResult);
    const fastest = runs.reduce((a, b) => (b.cpuMicrosPerRecord < a.cpuMicrosPerRecord ? b : a));
    results.engine = { ...fastest, runsMicrosPerRecord: runs.map((r) => r.cpuMicrosPerRecord) };
    say(`engine: ${results.engine.recordsPerCpuSecond} records per CPU-second (${results.engine.cpuMicrosPerRecord} µs/record${engineRuns(results.engine)})`);
  });
  await section('crawlee', async () => {
    for (const c of crawlee) {
      say(`crawlee (minConcurrency ${c.min}, maxConcurrency ${c.max})…`);
      const r = await runCrawlee(paths, `crawlee-min${c.min}`, c, { hosts, pages, seeds });
      results.crawls[r.name] = r;
      say(summary(r));
    }
  });
  await section('embedded', async () => {
    say('crawlstream embedded…');
    const r = await runEmbedded(paths, 'embedded', { hosts, pages, seeds, replay: true, countRecords: true });
    results.crawls[r.name] = r;
    say(summary(r));
    if (r.logCounts) say(`embedded: ${r.logCounts.total} records through the topology = ${round(r.logCounts.total / Math.max(1, r.pages), 2)} per page`);
    if (r.replay) say(`replay of fetched through parse, sink: ${r.replay.records} records in ${r.replay.wallSeconds} s = ${r.replay.recordsPerSecond} records/s`);
  });
  await section('https', async () => {
    // The same web over TLS (a CA made for the run, trusted by both crawlers): Crawlee at its fastest
    // HTTP configuration, then crawlstream embedded.
    const best = bestCrawlee(results.crawls);
    const c = crawlee.find((x) => `crawlee-min${x.min}` === best?.name) ?? crawlee.at(-1)!;
    say(`crawlee over HTTPS (minConcurrency ${c.min})…`);
    const peer = await runCrawlee(paths, `crawlee-https-min${c.min}`, c, { hosts, pages, seeds, https: true });
    results.crawls[peer.name] = peer;
    say(summary(peer));
    say('crawlstream embedded over HTTPS…');
    const r = await runEmbedded(paths, 'embedded-https', { hosts, pages, seeds, https: true });
    results.crawls[r.name] = r;
    say(summary(r));
  });
  await section('duplicates', async () => {
    say(`crawlstream embedded on the template-heavy web (${dupWeb.hosts} hosts × ${dupWeb.pages} pages)…`);
    const r = await runEmbedded(paths, 'embedded-template-heavy', { ...dupWeb, seeds: Math.min(seeds, dupWeb.hosts), kind: 'template-heavy', countRecords: true });
    results.crawls[r.name] = r;
    say(summary(r));
    const d = r.logCounts?.duplicates;
    if (d) say(`template-heavy: ${d.records} duplicate records about ${d.pages} pages`);
  });
  await section('kafka', () => kafkaSection(results, kafkaWorkers, hosts, pages, seeds, kafkaThreads, kafkaRounds));
  await section('hostidle', async () => {
    const { hosts: h, pages: p } = HOST_IDLE_WEB;
    say(`host idle between requests: embedded on ${h} hosts × ${p} pages at delay 0…`);
    const e = await runEmbedded(paths, 'hostidle-embedded', { hosts: h, pages: p, seeds: h });
    results.crawls[e.name] = e;
    say(summary(e));
    say('host idle between requests: Kafka, 1 worker…');
    const k = await runKafka(paths, ensureServices(root), 1, h, p, h);
    k.name = 'hostidle-kafka-1w';
    results.crawls[k.name] = k;
    say(summary(k));
  });
  await section('stages', async () => {
    say('stage costs…');
    const env = results.services?.clickhouse;
    if (env) process.env.CLICKHOUSE_URL = env;
    results.stages = await childJson('stages.js', []);
    say('seen-set at 10 million URLs…');
    results.seenSet = await childJson('seen-set.js', ['10000000'], ['--expose-gc']);
  });
  await section('freshness', async () => {
    say('freshness: the continuous crawl, 120 s with a kill -9 at 40 s, on Kafka (two workers) and embedded…');
    await waitQuiet(quietWait.ms);
    results.freshness = (await childJson('freshness.js', [])) as unknown as FreshnessResult;
    for (const r of results.freshness.runs) say(`freshness ${r.runtime}: changing ÷ unchanging ${r.changingOverUnchanging}, stories ${r.storiesFound} / ${r.storiesDue}, ${r.overlaps + r.shortGaps} politeness findings`);
  });
  await section('focus', async () => {
    say('focus: parse cost with focus on, and the topic web crawled with and without --focus-examples…');
    await waitQuiet(quietWait.ms);
    results.focus = (await childJson('focus.js', [])) as unknown as FocusResult;
    const f = results.focus;
    say(`focus: harvest over the first 500 pages ${f.focused.harvest} (unfocused ${f.plain.harvest}), coverage ${f.focused.coverage}, parse +${f.parse.overheadMicrosPerPage} µs/page`);
  });
  await section('profile', async () => {
    say('profiled embedded crawl (node --cpu-prof)…');
    results.profile = await profile(hosts, pages, seeds);
  });
  await section('large', async () => {
    say(`large: embedded on ${large.hosts} hosts × ${large.pages} pages (the server renders ${large.hosts * large.pages} pages first)…`);
    const r = await runEmbedded(paths, 'embedded-large', {
      hosts: large.hosts, pages: large.pages, seeds, keepSeries: true,
      onSample: (s) => { if (Math.round(s.t) % 30 === 0) say(`large: ${Math.round(s.t)} s, RSS ${s.rssMb} MB`); },
    });
    results.large = r;
    say(summary(r));
    // The same pages on the 10k web's hosts: what grows with a crawl's length apart from its breadth.
    const deepPages = Math.round((large.hosts * large.pages) / hosts);
    say(`large: embedded on ${hosts} hosts × ${deepPages} pages…`);
    const d = await runEmbedded(paths, 'embedded-large-deep', {
      hosts, pages: deepPages, seeds, keepSeries: true,
      onSample: (s) => { if (Math.round(s.t) % 30 === 0) say(`large, deep: ${Math.round(s.t)} s, RSS ${s.rssMb} MB`); },
    });
    results.largeDeep = d;
    say(summary(d));
  });

  results.durationSeconds = round((performance.now() - started) / 1000, 1);
  const stamp = results.machine.date.replace(/[:]/g, '-').replace(/\..*$/, '');
  const suffix = only ? `-${only.join('+')}` : '';
  mkdirSync(outDir, { recursive: true });
  const base = join(outDir, `bench-${stamp}${suffix}`);
  const md = renderMarkdown(results, readLevers(leversFile));
  writeFileSync(`${base}.json`, JSON.stringify(results, null, 2) + '\n');
  writeFileSync(`${base}.md`, md);
  process.stdout.write(md);
  say(`results: ${base}.json and ${base}.md`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
