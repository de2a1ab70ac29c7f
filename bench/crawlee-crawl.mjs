// Crawlee's CheerioCrawler over the bench web, as the alternative users would pick, configured as they
// would: robots.txt respected, at most 64 requests in flight, no per-host delay (Crawlee's default),
// default retries, storage in memory only, logging off. Every link to a bench origin is enqueued (same-
// and cross-host), so it crawls the same web from the same seeds as crawlstream.
//   node bench/crawlee-crawl.mjs --seeds-file F --concurrency fixed|autoscaled
// Prints one JSON line: {"handled":N,"failed":N,"elapsedMs":N,...}. Run from a scratch directory.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CheerioCrawler, Configuration, log, LogLevel } from '@crawlee/cheerio';
import { MemoryStorage } from '@crawlee/memory-storage';

const { values } = parseArgs({
  options: {
    'seeds-file': { type: 'string' },
    concurrency: { type: 'string', default: 'fixed' },
    'max-concurrency': { type: 'string', default: '64' },
  },
});
const seeds = readFileSync(values['seeds-file'], 'utf8').split('\n').filter(Boolean);
const origins = new Set(seeds.map((s) => new URL(s).origin));
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// One alternation over the bench origins: links anywhere else are not followed.
const benchOnly = new RegExp(`^(?:${[...origins].map(escape).join('|')})/`);
const maxConcurrency = Number(values['max-concurrency']);

log.setLevel(LogLevel.OFF);
const config = new Configuration({ persistStorage: false, storageClient: new MemoryStorage({ persistStorage: false, writeMetadata: false }), logLevel: LogLevel.OFF });

let titles = 0;
const crawler = new CheerioCrawler(
  {
    maxConcurrency,
    // 'fixed' starts at the cap; 'autoscaled' is Crawlee's default (start at 1, grow with spare CPU/memory).
    ...(values.concurrency === 'fixed' ? { minConcurrency: maxConcurrency } : {}),
    respectRobotsTxtFile: true,
    async requestHandler({ $, enqueueLinks }) {
      // What a user's handler minimally does: read something off the page, follow its links.
      if ($('title').text()) titles++;
      await enqueueLinks({ strategy: 'all', regexps: [benchOnly] });
    },
    failedRequestHandler() {},
  },
  config,
);

const started = performance.now();
const stats = await crawler.run(seeds);
process.stdout.write(`${JSON.stringify({
  handled: stats.requestsFinished,
  failed: stats.requestsFailed,
  retries: stats.requestsRetries ?? null,
  titles,
  elapsedMs: Math.round(performance.now() - started),
  concurrency: values.concurrency,
  maxConcurrency,
})}\n`);
