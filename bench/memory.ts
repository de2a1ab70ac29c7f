// node dist/bench/memory.js [--hosts 200 --pages 50 --seeds 10] [--label L] [--node-flag F]... [--env K=V]... [--crawl-arg A]...
// One embedded bench crawl (bench/crawls.ts's, same web, same command) with bench/mem-probe.ts loaded:
// prints one JSON line with the wait4 peak, CPU per 1000 pages and what the resident memory was made of
// at its highest sample (and, with --series, every sample). For paired before/after runs of a memory lever.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { quietWait, runEmbedded, type Paths } from './crawls.js';
import type { MemSample } from './mem-probe.js';

const { values } = parseArgs({
  options: {
    hosts: { type: 'string', default: '200' }, pages: { type: 'string', default: '50' }, seeds: { type: 'string', default: '10' },
    label: { type: 'string', default: '' }, 'node-flag': { type: 'string', multiple: true, default: [] },
    env: { type: 'string', multiple: true, default: [] }, 'quiet-wait': { type: 'string', default: '20' },
    series: { type: 'boolean', default: false }, 'crawl-arg': { type: 'string', multiple: true, default: [] },
  },
});
const dist = resolve(fileURLToPath(new URL('..', import.meta.url)));
const root = resolve(dist, '..');
const paths: Paths = { root, dist, bin: join(root, 'bin/crawlstream'), bench: join(root, 'bench') };
quietWait.ms = Number(values['quiet-wait']) * 1000;

const dir = mkdtempSync(join(tmpdir(), 'crawlstream-mem-'));
const file = join(dir, 'samples.jsonl');
process.env.CRAWLSTREAM_MEM_PROBE = file;
for (const kv of values.env) {
  const at = kv.indexOf('=');
  if (at < 1) throw new Error(`--env ${kv}: expected KEY=VALUE`);
  process.env[kv.slice(0, at)] = kv.slice(at + 1);
}
try {
  const run = await runEmbedded(paths, 'embedded-memory', {
    hosts: Number(values.hosts), pages: Number(values.pages), seeds: Number(values.seeds),
    nodeFlags: ['--import', join(dist, 'bench/mem-probe.js'), ...values['node-flag']], crawlArgs: values['crawl-arg'],
  });
  const samples = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as MemSample);
  const peak = samples.reduce((a, b) => (b.rssMb > a.rssMb ? b : a), samples[0]);
  const at = (f: number) => samples[Math.min(samples.length - 1, Math.floor(f * samples.length))];
  console.log(JSON.stringify({
    label: values.label, pages: run.pages, wallSeconds: run.wallSeconds, pagesPerSecond: run.pagesPerSecond,
    peakRssMb: run.peakRssMb, cpuSecondsPer1000Pages: run.cpuSecondsPer1000Pages, threads: run.threads,
    notes: run.notes, peak, quarter: at(0.25), half: at(0.5), threeQuarters: at(0.75),
    ...(values.series ? { series: samples.map((s) => [s.t, s.rssMb, s.heaps.main?.physicalMb, s.nativeAnonMb]) } : {}),
  }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
