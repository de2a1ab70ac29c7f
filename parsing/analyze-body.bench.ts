// Cost of analyzeBody (decode, extract, content hash, simhash, visible text) per page, one thread:
//   node dist/parsing/analyze-body.bench.js [seconds]
// Pages are the bench web's own (test-web/scenario-bench.ts renders them; ~18 KB, 25 links) and the
// sample articles of sample-pages.ts, both generated in process so no server is involved.
import { pathToFileURL } from 'node:url';
import { analyzeBody, type BodyInput } from './analyze-body.js';
import { sampleArticleHtml } from './sample-pages.js';
import { buildBenchScenario, DEFAULT_BENCH } from '../test-web/scenario-bench.js';

export interface AnalyzeBenchResult {
  microsPerPage: number;
  cpuMicrosPerPage: number;
  pageBytes: number;
  linksPerPage: number;
  textLength: number;
}

function input(body: Buffer, url: string): BodyInput {
  return {
    body, bodyEncoding: 'identity', contentType: 'text/html; charset=utf-8', charset: 'utf-8', url,
    productToken: 'crawlstream', maxBodyBytes: 10 << 20, maxParseBytes: 1 << 20,
  };
}

/** Bench web pages: `hosts` hosts × a few pages each, rendered exactly as the bench server serves them. */
export function benchWebPages(count = 16): BodyInput[] {
  const addresses = Array.from({ length: 8 }, (_, i) => `127.20.0.${i + 1}`);
  const scenario = buildBenchScenario(addresses, 41234, { ...DEFAULT_BENCH, hosts: addresses.length });
  const hosts = scenario.hosts as unknown as { origin: string; render(n: number): string }[];
  return Array.from({ length: count }, (_, i) => {
    const host = hosts[i % hosts.length];
    const n = 1 + Math.floor(i / hosts.length);
    return input(Buffer.from(host.render(n)), `${host.origin}/p/${n}`);
  });
}

export function sampleArticlePages(count = 8): BodyInput[] {
  return Array.from({ length: count }, (_, i) =>
    input(Buffer.from(sampleArticleHtml(i + 1)), `https://site.test/stories/2024/article-${i}.html`));
}

export async function benchAnalyze(pages: BodyInput[], durationMs = 3_000): Promise<AnalyzeBenchResult> {
  let links = 0, text = 0;
  for (const p of pages) {
    const a = analyzeBody(p);
    links += a.links.length;
    text += a.textLength;
  }
  for (const warmUntil = Date.now() + Math.min(1_000, durationMs / 3); Date.now() < warmUntil;) {
    for (let i = 0; i < 20; i++) analyzeBody(pages[i % pages.length]);
  }
  await new Promise(resolve => setImmediate(resolve));
  let n = 0;
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  const stopAt = Date.now() + durationMs;
  while (Date.now() < stopAt) {
    for (let i = 0; i < 20; i++) analyzeBody(pages[n++ % pages.length]);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  return {
    microsPerPage: Math.round((seconds / n) * 1e6),
    cpuMicrosPerPage: Math.round((cpu.user + cpu.system) / n),
    pageBytes: Math.round(pages.reduce((s, p) => s + p.body.byteLength, 0) / pages.length),
    linksPerPage: Math.round(links / pages.length),
    textLength: Math.round(text / pages.length),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const ms = Number(process.argv[2] ?? 3) * 1000;
  console.log(JSON.stringify({
    benchWebPages: await benchAnalyze(benchWebPages(), ms),
    sampleArticles: await benchAnalyze(sampleArticlePages(), ms),
  }));
}
