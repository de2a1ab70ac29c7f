// Ceilings of the testbed, each run as its own process by the harness:
//   node dist/bench/ceilings.js fetch --seeds-file F --pages N [--concurrency 64]
//     every page URL of the bench web once with plain undici, bodies read and dropped, no parsing;
//   node dist/bench/ceilings.js parse --seeds-file F --pages N [--sample 400] [--seconds 3]
//     analyzeBody (what the parse stage runs per page: decompress the stored body, decode, extract,
//     simhash) on bench pages stored as the fetch stage stores them (fetched and compressed first,
//     timed apart), on one thread; plus the project's benchExtract() on its sample articles.
// Prints one JSON line.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { analyzeBody, type BodyInput } from '../parsing/analyze-body.js';
import { benchExtract } from '../parsing/extract-page.bench.js';
import { compressBody, decompressBody } from '../fetching/body-codec.js';
import { MAX_PARSE_BYTES } from '../stages/parse/parse.js';

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
        // Not `bytes += await …`: that reads `bytes` before the await and loses the other workers' adds.
        const body = await get(pageUrl(next++));
        bytes += body.length;
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
  const fetched: { url: string; body: Buffer }[] = [];
  for (let i = 0; fetched.length < sample; i += step) fetched.push({ url: pageUrl(i % total), body: await get(pageUrl(i % total)) });
  await agent.close();
  // Timed warm and over five rounds, as the restore below: a single cold pass also timed loading
  // lz4-napi's binary and unoptimised code, which made compression look ~5x dearer than it is.
  for (const p of fetched.slice(0, 20)) compressBody(p.body);
  const compressStarted = process.cpuUsage();
  for (let round = 0; round < 4; round++) for (const p of fetched) compressBody(p.body);
  const inputs: BodyInput[] = fetched.map((p) => {
    const stored = compressBody(p.body);
    return {
      body: stored.bytes, bodyEncoding: stored.encoding, contentType: 'text/html; charset=utf-8', charset: 'utf-8', url: p.url,
      productToken: 'crawlstream', maxBodyBytes: 10 * 1024 * 1024, maxParseBytes: MAX_PARSE_BYTES,
    };
  });
  const compressCpu = process.cpuUsage(compressStarted);
  // Restoring is part of analyzeBody below too; measured apart for the body-storage budget.
  const restoreStarted = process.cpuUsage();
  for (let round = 0; round < 5; round++) for (const input of inputs) decompressBody(input.bodyEncoding, input.body as Buffer, input.maxBodyBytes);
  const restoreCpu = process.cpuUsage(restoreStarted);
  let links = 0;
  const run = (i: number) => {
    const a = analyzeBody(inputs[i % inputs.length]);
    if (a.kind !== 'html') throw new Error(`bench page not parsed as HTML: ${a.error}`);
    return a.links.length;
  };
  for (let i = 0; i < inputs.length * 2; i++) links += run(i); // warm-up: JIT, string tables
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const stopAt = started + Number(values.seconds) * 1000;
  let n = 0;
  while (performance.now() < stopAt) for (let k = 0; k < 20; k++) run(n++);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuMicros = cpu.user + cpu.system;
  return {
    benchPages: {
      what: 'analyzeBody per page on one thread: decompress the stored body, decode, extract links and text, simhash',
      pagesPerSecond: Math.round(n / seconds),
      pagesPerCpuSecond: Math.round(n / (cpuMicros / 1e6)),
      microsPerPage: Math.round((seconds / n) * 1e6),
      cpuMicrosPerPage: Math.round(cpuMicros / n),
      compressCpuMicrosPerPage: Math.round((compressCpu.user + compressCpu.system) / (5 * inputs.length)),
      decompressCpuMicrosPerPage: Math.round((restoreCpu.user + restoreCpu.system) / (5 * inputs.length)),
      distinctPages: inputs.length,
      averagePageBytes: Math.round(fetched.reduce((s, p) => s + p.body.length, 0) / fetched.length),
      linksPerPage: Math.round(links / (inputs.length * 2)),
    },
    sampleArticles: await benchExtract(Number(values.seconds) * 1000),
  };
}

const mode = positionals[0];
if (mode !== 'fetch' && mode !== 'parse') throw new Error('usage: ceilings.js fetch|parse --seeds-file F --pages N');
const result = mode === 'fetch' ? await fetchCeiling() : await parseCeiling();
await agent.close().catch(() => {});
process.stdout.write(`${JSON.stringify(result)}\n`);
