// Ceilings of the testbed, each run as its own process by the harness:
//   node dist/bench/ceilings.js fetch --seeds-file F --pages N [--concurrency 64]
//     every page URL of the bench web once with plain undici, bodies read and dropped, no parsing;
//   node dist/bench/ceilings.js parse --seeds-file F --pages N [--sample 400] [--seconds 3]
//     decodeHtml + extractPage on bench pages (fetched first, untimed) on one thread, plus the
//     project's benchExtract() on its sample articles.
// Prints one JSON line.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { decodeHtml } from '../parsing/decode-html.js';
import { extractPage } from '../parsing/extract-page.js';
import { benchExtract } from '../parsing/extract-page.bench.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    'seeds-file': { type: 'string' },
    pages: { type: 'string', default: '50' },
    concurrency: { type: 'string', default: '64' },
    sample: { type: 'string', default: '400' },
    seconds: { type: 'string', default: '3' },
  },
});

const origins = readFileSync(values['seeds-file']!, 'utf8').split('\n').filter(Boolean).map((s) => new URL(s).origin);
const pagesPerHost = Number(values.pages);
const pageUrl = (i: number) => {
  // Host-major interleaving: consecutive URLs go to different hosts, as a crawl's fetches do.
  const origin = origins[i % origins.length];
  const n = Math.floor(i / origins.length);
  return `${origin}${n === 0 ? '/' : `/p/${n}`}`;
};
const total = origins.length * pagesPerHost;
const agent = new Agent({ keepAliveTimeout: 30_000 });

async function get(url: string): Promise<Buffer> {
  const res = await request(url, { dispatcher: agent, headers: { 'user-agent': 'crawlstream-bench-ceiling/1.0' } });
  const body = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== 200) throw new Error(`${url}: status ${res.statusCode}`);
  return body;
}

async function fetchCeiling(): Promise<object> {
  const concurrency = Number(values.concurrency);
  let next = 0;
  let bytes = 0;
  let errors = 0;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) {
      try {
        bytes += (await get(pageUrl(next++))).length;
      } catch {
        errors++;
      }
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    requests: total,
    errors,
    concurrency,
    seconds: Math.round(seconds * 100) / 100,
    pagesPerSecond: Math.round(total / seconds),
    wallMicrosPerRequest: Math.round((seconds / total) * 1e6),
    cpuMicrosPerRequest: Math.round((cpu.user + cpu.system) / total),
    averagePageBytes: Math.round(bytes / Math.max(1, total - errors)),
  };
}

async function parseCeiling(): Promise<object> {
  const sample = Math.min(Number(values.sample), total);
  const step = Math.max(1, Math.floor(total / sample));
  const pages: { url: string; body: Buffer }[] = [];
  for (let i = 0; pages.length < sample; i += step) pages.push({ url: pageUrl(i % total), body: await get(pageUrl(i % total)) });
  await agent.close();
  const run = (i: number) => {
    const p = pages[i % pages.length];
    const { html } = decodeHtml(p.body, 'utf-8');
    return extractPage(html, p.url, 'crawlstream').links.length;
  };
  let links = 0;
  for (let i = 0; i < pages.length * 2; i++) links += run(i); // warm-up: JIT, string tables
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const stopAt = started + Number(values.seconds) * 1000;
  let n = 0;
  while (performance.now() < stopAt) for (let k = 0; k < 20; k++) run(n++);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    benchPages: {
      pagesPerSecond: Math.round(n / seconds),
      pagesPerCpuSecond: Math.round(n / ((cpu.user + cpu.system) / 1e6)),
      microsPerPage: Math.round((seconds / n) * 1e6),
      distinctPages: pages.length,
      averagePageBytes: Math.round(pages.reduce((s, p) => s + p.body.length, 0) / pages.length),
      linksPerPage: Math.round(links / (pages.length * 2)),
    },
    sampleArticles: await benchExtract(Number(values.seconds) * 1000),
  };
}

const mode = positionals[0];
if (mode !== 'fetch' && mode !== 'parse') throw new Error('usage: ceilings.js fetch|parse --seeds-file F --pages N');
const result = mode === 'fetch' ? await fetchCeiling() : await parseCeiling();
await agent.close().catch(() => {});
process.stdout.write(`${JSON.stringify(result)}\n`);
