// The focused crawl's figures (issue 21): node dist/bench/focus.js [--quick]
// 1. Parse cost with focus on: analyzeBody on stored bench pages (what a parse worker runs), alone and
//    followed by the focus scorer (what a worker adds with --focus-examples), interleaved rounds on
//    one thread, CPU time; the fastest round of each (and the medians).
// 2. The topic web (test-web scenario 'topic') crawled by bin/crawlstream with and without
//    --focus-examples (--max-pages 1000, a 20 ms delay, no sitemaps): harvest over the first 500
//    pages in the server's log order (robots.txt excluded) and the share of the on-topic pages
//    fetched within a budget of three times their number.
// Prints one JSON line.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderPages } from './bench-pages.js';
import { analyzeBody, type BodyInput } from '../parsing/analyze-body.js';
import { MAX_PARSE_BYTES } from '../stages/parse/parse.js';
import { createFocus } from '../focus/create-focus.js';
import { startSyntheticWeb, type WebRequest } from '../test-web/synthetic-web.js';
import { canonicalize } from '../url/canonicalize.js';

const quick = process.argv.includes('--quick');
const BIN = fileURLToPath(new URL('../../bin/crawlstream', import.meta.url));
const FIRST = 500;
const MAX_PAGES = 1000;
const DELAY_MS = 20;

const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;
const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function parseCost(examples: string[]): Promise<object> {
  const origins = Array.from({ length: 20 }, (_, i) => `http://127.20.0.${i + 1}:41234`);
  const { pages } = renderPages('bench', origins, quick ? 20 : 50);
  const inputs: BodyInput[] = pages.flatMap((host, h) => host.map((body, n) => ({
    body, bodyEncoding: 'identity', contentType: 'text/html', charset: 'utf-8', url: `${origins[h]}${n ? `/p/${n}` : '/'}`,
    productToken: 'crawlstream', maxBodyBytes: 10 * 1024 * 1024, maxParseBytes: MAX_PARSE_BYTES,
  })));
  const focus = await createFocus({ examples, counterexamples: [], mode: 'soft' });
  const round1 = (withFocus: boolean) => {
    const t = cpuMicros();
    for (const input of inputs) {
      const a = analyzeBody(input);
      if (withFocus) a.focus = focus.score({ url: input.url, title: a.title, text: a.text, links: a.links });
    }
    return (cpuMicros() - t) / inputs.length;
  };
  round1(false);
  round1(true);
  const plain: number[] = [];
  const focused: number[] = [];
  for (let r = 0; r < (quick ? 4 : 15); r++) {
    plain.push(round1(false));
    focused.push(round1(true));
  }
  // The least disturbed round of each: on a shared machine other processes only ever add time.
  const p = Math.min(...plain), f = Math.min(...focused);
  return {
    pages: inputs.length, plainMicrosPerPage: round(p, 1), focusMicrosPerPage: round(f, 1), overheadMicrosPerPage: round(f - p, 1),
    medianOverheadMicrosPerPage: round(median(focused) - median(plain), 1),
    what: `analyzeBody per stored bench page, then the focus scorer (6 example pages about beekeeping); fastest of ${plain.length} interleaved rounds each, CPU time`,
  };
}

interface CrawlFigures {
  pages: number;
  harvest: number;
  coverage: number;
  wallSeconds: number;
  exitCode: number | null;
}

async function crawl(web: Awaited<ReturnType<typeof startSyntheticWeb>>, dir: string, name: string, extra: string[]): Promise<CrawlFigures> {
  web.resetLog();
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'crawl', ...web.seeds, '--data-dir', join(dir, name), '--allow-network', '127.0.0.0/8',
    '--default-delay-ms', String(DELAY_MS), '--max-pages', String(MAX_PAGES), '--no-sitemaps', '--quiet', ...extra], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const wallSeconds = (performance.now() - started) / 1000;
  const onTopic = new Set(web.topic!.onTopic);
  const canonical = (r: WebRequest) => {
    const c = canonicalize(`http://${r.host}${r.path}`);
    return c.ok ? c.url : `http://${r.host}${r.path}`;
  };
  const pages = web.requests.filter((r) => r.path !== '/robots.txt').sort((a, b) => a.startedAt - b.startedAt).map(canonical);
  const head = pages.slice(0, FIRST);
  const budget = pages.slice(0, 3 * onTopic.size);
  return {
    pages: pages.length, exitCode, wallSeconds: round(wallSeconds, 1),
    harvest: round(head.filter((u) => onTopic.has(u)).length / Math.max(1, head.length)),
    coverage: round(new Set(budget.filter((u) => onTopic.has(u))).size / onTopic.size),
  };
}

async function main(): Promise<void> {
  const web = await startSyntheticWeb({ scenario: 'topic', log: true });
  const dir = mkdtempSync(join(tmpdir(), 'crawlstream-bench-focus-'));
  try {
    const examples = join(dir, 'examples');
    mkdirSync(examples);
    web.topic!.examples.forEach((t, i) => writeFileSync(join(examples, `example-${i}.txt`), t));
    const parse = await parseCost(web.topic!.examples);
    const plain = await crawl(web, dir, 'plain', []);
    const focused = await crawl(web, dir, 'focused', ['--focus-examples', examples]);
    process.stdout.write(JSON.stringify({
      parse, web: { pages: web.topic!.pages, onTopic: web.topic!.onTopic.length, seeds: web.seeds.length, hosts: web.hosts.length },
      plain, focused, harvestRatio: plain.harvest > 0 ? round(focused.harvest / plain.harvest, 2) : null,
      what: `topic web, --max-pages ${MAX_PAGES}, --default-delay-ms ${DELAY_MS}, --no-sitemaps; harvest over the first ${FIRST} pages of the server's log (robots.txt excluded); coverage within 3× the on-topic pages`,
    }) + '\n');
  } finally {
    await web.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench focus: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
