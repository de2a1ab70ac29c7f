// Cost of analyzeBody (decode, extract, content hash, simhash, visible text) per page, one thread:
//   node dist/parsing/analyze-body.bench.js [seconds]
// Pages are the bench web's own (test-web/scenario-bench.ts renders them; ~18 KB, ~21 distinct
// links) and the sample articles of sample-pages.ts, both generated in process, no server. A bare
// htmlparser2 pass over the bench pages (text and hrefs collected, nothing else) runs in the same
// rounds as a yardstick: on a shared, noisy machine the ratio to it means more than microseconds.
import { pathToFileURL } from 'node:url';
import { Parser } from 'htmlparser2';
import { analyzeBody, type BodyInput } from './analyze-body.js';
import { sampleArticleHtml } from './sample-pages.js';
import { buildBenchScenario, DEFAULT_BENCH } from '../test-web/scenario-bench.js';

function input(body: Buffer, url: string): BodyInput {
  return {
    body, bodyEncoding: 'identity', contentType: 'text/html; charset=utf-8', charset: 'utf-8', url,
    productToken: 'crawlstream', maxBodyBytes: 10 << 20, maxParseBytes: 1 << 20,
  };
}

/** Bench web pages, rendered exactly as the bench server serves them. */
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

/** The yardstick: one htmlparser2 pass that collects the text length and the hrefs, nothing else. */
function bareSax(html: string): number {
  let text = 0;
  const hrefs: string[] = [];
  new Parser({
    ontext(data) { text += data.length; },
    onopentag(name, attribs) { if (name === 'a' && attribs.href !== undefined) hrefs.push(attribs.href); },
  }).end(html);
  return text + hrefs.length;
}

export interface AnalyzeBenchResult {
  /** Least CPU µs per page over the rounds (the machine's noise only ever adds). */
  benchPageMicros: number;
  sampleArticleMicros: number;
  bareSaxMicros: number;
  /** benchPageMicros / bareSaxMicros. */
  benchPageToBareSax: number;
  pageBytes: number;
  linksPerPage: number;
  textLength: number;
}

export async function benchAnalyze(seconds = 6): Promise<AnalyzeBenchResult> {
  const bench = benchWebPages();
  const samples = sampleArticlePages();
  const html = bench.map(p => Buffer.from(p.body).toString('utf8'));
  const runs: Record<string, (i: number) => unknown> = {
    bench: i => analyzeBody(bench[i % bench.length]),
    sample: i => analyzeBody(samples[i % samples.length]),
    sax: i => bareSax(html[i % html.length]),
  };
  for (const run of Object.values(runs)) for (let i = 0; i < 300; i++) run(i);
  const best: Record<string, number> = { bench: Infinity, sample: Infinity, sax: Infinity };
  const rounds = Math.max(3, Math.round(seconds / 0.9));
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of Object.entries(runs)) {
      await new Promise(resolve => setImmediate(resolve));
      const cpu0 = process.cpuUsage();
      let n = 0;
      for (const stopAt = Date.now() + 300; Date.now() < stopAt;) for (let k = 0; k < 10; k++) run(n++);
      const cpu = process.cpuUsage(cpu0);
      best[name] = Math.min(best[name], (cpu.user + cpu.system) / n);
    }
  }
  const first = bench.map(p => analyzeBody(p));
  return {
    benchPageMicros: Math.round(best.bench),
    sampleArticleMicros: Math.round(best.sample),
    bareSaxMicros: Math.round(best.sax),
    benchPageToBareSax: Math.round((best.bench / best.sax) * 100) / 100,
    pageBytes: Math.round(bench.reduce((s, p) => s + p.body.byteLength, 0) / bench.length),
    linksPerPage: Math.round(first.reduce((s, a) => s + a.links.length, 0) / first.length),
    textLength: Math.round(first.reduce((s, a) => s + a.textLength, 0) / first.length),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await benchAnalyze(Number(process.argv[2] ?? 6))));
}
