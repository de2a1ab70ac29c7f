// Crawlee's CheerioCrawler over the bench web, as the alternative users would pick, configured as they
// would: robots.txt respected, at most 64 requests in flight with its autoscaler starting from
// --min-concurrency, no per-host delay (Crawlee's default), default retries, storage in memory only,
// logging off. Every link is enqueued (strategy 'all': same- and cross-host; the bench web links only to
// its own origins, so no filter is needed), so it crawls the same web from the same seeds as crawlstream.
// With --verify-tls it checks certificates (Crawlee's default, ignoreSslErrors: true, skips that), as
// crawlstream always does: the HTTPS bench hands both the same CA through NODE_EXTRA_CA_CERTS.
//   node bench/crawlee-crawl.mjs --seeds-file F [--min-concurrency 16] [--max-concurrency 64] [--verify-tls]
// Prints one JSON line: {"handled":N,"failed":N,"elapsedMs":N,...}. Run from a scratch directory.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CheerioCrawler, Configuration, log, LogLevel } from '@crawlee/cheerio';
import { MemoryStorage } from '@crawlee/memory-storage';

const { values } = parseArgs({
  options: {
    'seeds-file': { type: 'string' },
    'min-concurrency': { type: 'string', default: '16' },
    'max-concurrency': { type: 'string', default: '64' },
    'verify-tls': { type: 'boolean', default: false },
  },
});
const seeds = readFileSync(values['seeds-file'], 'utf8').split('\n').filter(Boolean);
const maxConcurrency = Number(values['max-concurrency']);
const minConcurrency = Math.min(maxConcurrency, Number(values['min-concurrency']));

log.setLevel(LogLevel.OFF);
const config = new Configuration({ persistStorage: false, storageClient: new MemoryStorage({ persistStorage: false, writeMetadata: false }), logLevel: LogLevel.OFF });

let titles = 0;
const crawler = new CheerioCrawler(
  {
    maxConcurrency,
    // The autoscaler grows from here while CPU and memory are spare (Crawlee's default is 1).
    minConcurrency,
    respectRobotsTxtFile: true,
    ignoreSslErrors: !values['verify-tls'],
    async requestHandler({ $, enqueueLinks }) {
      // What a user's handler minimally does: read something off the page, follow its links.
      if ($('title').text()) titles++;
      await enqueueLinks({ strategy: 'all' });
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
  minConcurrency,
  maxConcurrency,
})}\n`);
