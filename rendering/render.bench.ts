import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { BrowserRequest, BrowserResponse } from './render-page.js';
import { Renderer } from './renderer.js';

export interface RenderBenchResult {
  concurrency: number;
  pages: number;
  pagesPerSecond: number;
  medianMs: number;
  p95Ms: number;
  failed: number;
  /** The 1-minute load average when the run ended: the browser's CPU is not this process's. */
  loadAverage: number;
}

// A simple page: an inline script writes 20 links and one script file, answered from memory by the
// callback, writes one more. No network: the measure is the browser's own cost per page.
const PAGE = `<!doctype html><title>bench</title><p>Some text.</p><div id="n"></div>
<script>for (let i = 0; i < 20; i++) document.write('<a href="/item/' + i + '">item ' + i + '</a> ');</script>
<script src="/app.js"></script>`;
const APP = Buffer.from(`document.getElementById('n').innerHTML = '<a href="/from-file">f</a>';`);

async function answer(req: BrowserRequest): Promise<BrowserResponse> {
  if (req.url.endsWith('/app.js')) return { status: 200, headers: { 'content-type': 'text/javascript' }, body: APP };
  return { refused: 'bench: nothing else' };
}

export async function benchRender(concurrency: number, pages = 40): Promise<RenderBenchResult> {
  const renderer = new Renderer({ concurrency, timeoutMs: 30_000 });
  try {
    await renderer.render('http://bench.test/warm', PAGE, answer); // launch and warm-up, not measured
    const times: number[] = [];
    let failed = 0;
    let next = 0;
    const start = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < pages) {
        const r = await renderer.render(`http://bench.test/p${next++}`, PAGE, answer);
        if (r.error || r.links?.length !== 21) failed++;
        times.push(r.elapsedMs);
      }
    }));
    const seconds = (performance.now() - start) / 1000;
    times.sort((a, b) => a - b);
    return {
      concurrency,
      pages,
      pagesPerSecond: Math.round((pages / seconds) * 10) / 10,
      medianMs: times[Math.floor(times.length / 2)],
      p95Ms: times[Math.floor(times.length * 0.95)],
      failed,
      loadAverage: Math.round(loadavg()[0] * 10) / 10,
    };
  } finally {
    await renderer.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const c of [1, 2, 4]) console.log(await benchRender(c));
}
