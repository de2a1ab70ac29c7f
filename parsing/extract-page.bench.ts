import { pathToFileURL } from 'node:url';
import { decodeHtml } from './decode-html.js';
import { extractPage } from './extract-page.js';
import { sampleArticleHtml } from './sample-pages.js';

export interface ExtractBenchResult {
  /** decodeHtml + extractPage on one thread, by wall clock. */
  pagesPerSecond: number;
  /** The same work per second of this process's CPU time (less sensitive to a busy machine). */
  pagesPerCpuSecond: number;
  microsPerPage: number;
  pageBytes: number;
  linksPerPage: number;
}

/** Throughput of the parse stage's per-page work on realistic ~18 KB article pages with 25 links. */
export async function benchExtract(durationMs = 3_000): Promise<ExtractBenchResult> {
  // Several distinct pages so string caches and branch predictors see realistic variety.
  const bodies = Array.from({ length: 8 }, (_, i) => Buffer.from(sampleArticleHtml(i + 1)));
  const run = (i: number) => {
    const { html } = decodeHtml(bodies[i % bodies.length], 'utf-8');
    return extractPage(html, `https://site.example/stories/2024/article-${i % bodies.length}.html`, 'crawlstream');
  };
  const linksPerPage = run(0).links.length;
  for (const warmUntil = Date.now() + Math.min(1_000, durationMs / 3); Date.now() < warmUntil;) {
    for (let i = 0; i < 20; i++) run(i);
  }
  await new Promise(resolve => setImmediate(resolve));
  let pages = 0;
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  const stopAt = Date.now() + durationMs;
  while (Date.now() < stopAt) {
    for (let i = 0; i < 20; i++) run(pages++);
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  return {
    pagesPerSecond: Math.round(pages / seconds),
    pagesPerCpuSecond: Math.round(pages / cpuSeconds),
    microsPerPage: Math.round((seconds / pages) * 1e6),
    pageBytes: Math.round(bodies.reduce((n, b) => n + b.length, 0) / bodies.length),
    linksPerPage,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await benchExtract());
}
