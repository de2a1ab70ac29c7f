// `npm run bench` (bench/run.sh builds first): crawlstream against Crawlee's CheerioCrawler on the
// synthetic bench web, side by side in one run, plus the testbed's ceilings, per-stage costs, Kafka mode
// and (optionally) a 100 000-page run. Writes bench/results/<stamp>.json and .md.
//   --only crawlee,embedded,ceilings,stages,kafka,large,profile   (default: all but large)
//   --with-large   --hosts N --pages N   --large-hosts N --large-pages N   --out DIR
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { summarizeProfile } from './cpu-profile.js';
import { runCrawlee, runEmbedded, type CrawlRun, type Paths } from './crawls.js';
import { ensureServices, runKafka } from './kafka-run.js';
import { describeMachine } from './machine.js';
import { hasGnuTime, round, runMeasured } from './proc.js';
import { renderMarkdown, type Results } from './report.js';
import { startWeb } from './web.js';

const KAFKA_ATTEMPTS = 3;
const SECTIONS = ['ceilings', 'crawlee', 'embedded', 'kafka', 'stages', 'profile', 'large'] as const;
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

async function profile(hosts: number, pages: number): Promise<Results['profile']> {
  const dir = mkdtempSync(join(tmpdir(), 'crawlstream-bench-cpuprof-'));
  const run = await runEmbedded(paths, 'embedded-profiled', { hosts, pages, nodeFlags: ['--cpu-prof', '--cpu-prof-dir', dir] });
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no .cpuprofile written');
  return { ...summarizeProfile(join(dir, file), dist), file: join(dir, file), pagesPerSecond: run.pagesPerSecond, pages: run.pages };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' }, 'with-large': { type: 'boolean', default: false },
      hosts: { type: 'string' }, pages: { type: 'string' },
      'large-hosts': { type: 'string' }, 'large-pages': { type: 'string' }, out: { type: 'string' },
    },
  });
  const only = values.only?.split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of only ?? []) if (!SECTIONS.includes(s as Section)) throw new Error(`--only: unknown section ${s} (${SECTIONS.join(', ')})`);
  const sections = new Set<Section>((only as Section[] | undefined) ?? SECTIONS.filter((s) => s !== 'large' || values['with-large']));
  const hosts = int(values.hosts, 200, 'hosts');
  const pages = int(values.pages, 50, 'pages');
  const large = { hosts: int(values['large-hosts'], 2000, 'large-hosts'), pages: int(values['large-pages'], 50, 'large-pages') };
  const outDir = resolve(values.out ?? join(root, 'bench/results'));
  const started = performance.now();
  const results: Results = {
    machine: describeMachine(root, hasGnuTime()),
    options: { sections: [...sections], hosts, pagesPerHost: pages, large },
    crawls: {},
  };
  say(`sections: ${[...sections].join(', ')}; bench web ${hosts} hosts × ${pages} pages`);

  if (sections.has('ceilings')) {
    say('ceilings: fetch-only (undici, c=64) and parse-only (one core)');
    const c = await ceilings(hosts, pages);
    results.ceilings = c;
    say(`ceilings: fetch ${c!.fetch.pagesPerSecond} pages/s, parse ${c!.parse.benchPages.pagesPerSecond} pages/s`);
  }
  if (sections.has('crawlee')) {
    for (const mode of ['fixed', 'autoscaled'] as const) {
      say(`crawlee (${mode} concurrency)…`);
      const r = await runCrawlee(paths, `crawlee-${mode}`, mode, { hosts, pages });
      results.crawls[r.name] = r;
      say(summary(r));
    }
  }
  if (sections.has('embedded')) {
    say('crawlstream embedded…');
    const r = await runEmbedded(paths, 'embedded', { hosts, pages, replay: true });
    results.crawls[r.name] = r;
    say(summary(r));
    if (r.replay) say(`replay of fetched through parse, sink: ${r.replay.records} records in ${r.replay.wallSeconds} s = ${r.replay.recordsPerSecond} records/s`);
  }
  if (sections.has('kafka')) {
    const services = ensureServices(root);
    results.services = { ...services, note: services.startedByBench ? 'KAFKA_BROKERS etc. were not set: the bench ran scripts/dev-services.sh up (idempotent: starts what is not running)' : 'taken from KAFKA_BROKERS, SCHEMA_REGISTRY_URL, CLICKHOUSE_URL' };
    say(`kafka: services ${results.services.note}`);
    for (const n of [1, 2]) {
      // The dev services are shared: another user's test may restart the broker mid-run. Try again then.
      const failures: string[] = [];
      for (let attempt = 1; attempt <= KAFKA_ATTEMPTS; attempt++) {
        say(`crawlstream on Kafka, ${n} worker(s)${attempt > 1 ? `, attempt ${attempt}` : ''}…`);
        try {
          const r = await runKafka(paths, services, n, hosts, pages);
          if (failures.length) r.notes = [...(r.notes ?? []), `earlier attempts failed: ${failures.join('; ')}`];
          results.crawls[r.name] = r;
          say(summary(r));
          break;
        } catch (err) {
          failures.push((err as Error).message);
          say(`kafka-${n}w attempt ${attempt} failed: ${(err as Error).message}`);
          if (attempt < KAFKA_ATTEMPTS) await new Promise((r) => setTimeout(r, 15_000)); // a broker that just started needs a moment
        }
      }
      if (failures.length === KAFKA_ATTEMPTS) (results.failed ??= []).push(`kafka-${n}w: ${failures.join('; ')}`);
    }
  }
  if (sections.has('stages')) {
    say('stage costs…');
    const env = results.services?.clickhouse;
    if (env) process.env.CLICKHOUSE_URL = env;
    results.stages = await childJson('stages.js', []);
    say('seen-set at 10 million URLs…');
    results.seenSet = await childJson('seen-set.js', ['10000000'], ['--expose-gc']);
  }
  if (sections.has('profile')) {
    say('profiled embedded crawl (node --cpu-prof)…');
    results.profile = await profile(hosts, pages);
  }
  if (sections.has('large')) {
    say(`large: embedded on ${large.hosts} hosts × ${large.pages} pages…`);
    const r = await runEmbedded(paths, 'embedded-large', {
      hosts: large.hosts, pages: large.pages, keepSeries: true,
      onSample: (s) => { if (Math.round(s.t) % 30 === 0) say(`large: ${Math.round(s.t)} s, RSS ${s.rssMb} MB`); },
    });
    results.large = r;
    say(summary(r));
  }

  results.durationSeconds = round((performance.now() - started) / 1000, 1);
  const stamp = results.machine.date.replace(/[:]/g, '-').replace(/\..*$/, '');
  const suffix = only ? `-${only.join('+')}` : '';
  mkdirSync(outDir, { recursive: true });
  const base = join(outDir, `bench-${stamp}${suffix}`);
  const md = renderMarkdown(results);
  writeFileSync(`${base}.json`, JSON.stringify(results, null, 2) + '\n');
  writeFileSync(`${base}.md`, md);
  process.stdout.write(md);
  say(`results: ${base}.json and ${base}.md`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
