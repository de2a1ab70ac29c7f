// test-plan: e2e ~25s
// Prometheus metrics of a real crawl of the synthetic web (--metrics-port), scraped while it runs and
// once more after it finished (--metrics-linger), parsed by Python's prometheus_client, and checked
// against the server's own request log.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb } from '../test-web/synthetic-web.js';
import { noPrometheusReader, scrape, type Sample } from '../metrics/testing/scrape.js';
import { runCli, type CliRun } from './support/cli.js';
import { embeddedCrawlArgs } from './support/crawl-outcome-tests.js';

const skip = noPrometheusReader;

const sum = (s: Sample[], name: string, labels: Record<string, string> = {}) =>
  s.filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v)).reduce((n, x) => n + x.value, 0);
const has = (s: Sample[], name: string) => s.some((x) => x.name === name);

/** Resolves with the first match of `re` in what the child writes to `stream`. */
function waitFor(run: ReturnType<typeof runCli>, stream: 'stdout' | 'stderr', re: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (d: Buffer) => {
      text += d;
      const m = re.exec(text);
      if (m) {
        run.child[stream]!.off('data', onData);
        resolve(m);
      }
    };
    run.child[stream]!.on('data', onData);
    run.child.once('exit', () => reject(new Error(`exited before ${stream} matched ${re}`)));
  });
}

describe('metrics of a crawl (--metrics-port)', { skip }, () => {
  let web: SyntheticWeb;
  let during: Sample[];
  let final: Sample[];
  let done: CliRun;

  before(async () => {
    web = await startSyntheticWeb({ scenario: 'test' });
    const dataDir = mkdtempSync(join(tmpdir(), 'metrics-crawl-'));
    const crawl = runCli(embeddedCrawlArgs(web, dataDir, ['--metrics-port', '0', '--metrics-linger', '10m']));
    const summary = waitFor(crawl, 'stdout', /^crawled \d+ pages/m);
    const [, url] = await waitFor(crawl, 'stderr', /metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/);
    while (web.requests.length < 60) await new Promise((r) => setTimeout(r, 20));
    during = await scrape(url);
    await summary;
    // The crawl has finished and everything is committed; the process serves its final values.
    final = await scrape(url);
    crawl.child.kill('SIGTERM');
    done = await crawl;
  });
  after(() => web?.close());

  it('should serve the fetch, frontier and lag metrics while the crawl runs', () => {
    assert.ok(sum(during, 'crawlstream_fetches_total') > 0);
    assert.ok(sum(during, 'crawlstream_fetches_total', { kind: 'robots' }) > 0);
    for (const g of ['crawlstream_frontier_urls', 'crawlstream_recrawl_due_urls', 'crawlstream_hosts_waiting', 'crawlstream_fetches_in_flight']) {
      assert.ok(has(during, g), `${g} is served`);
    }
    const lag = during.filter((s) => s.name === 'crawlstream_task_lag_records');
    // Labelled by stored names: near-dup-bands and clickhouse-sink keep simhash-bands and sink (README: stored names).
    assert.deepEqual(new Set(lag.map((s) => s.labels.processor)), new Set(['normalize', 'dedup', 'schedule', 'resolve', 'fetch', 'parse', 'simhash-bands', 'near-dup', 'sink']));
    assert.equal(new Set(lag.map((s) => s.labels.partition)).size, 4, 'one series per partition');
    assert.ok(has(during, 'crawlstream_process_resident_memory_bytes'), 'process metrics');
  });

  it('should count, at the end, exactly the requests the server saw', () => {
    assert.equal(sum(final, 'crawlstream_fetches_total'), web.requests.length);
    const pages = web.requests.filter((r) => !r.path.endsWith('/robots.txt') && r.path !== '/sitemap.xml').length;
    assert.equal(sum(final, 'crawlstream_fetches_total', { kind: 'page' }), pages);
    assert.equal(sum(final, 'crawlstream_fetch_duration_seconds_count'), web.requests.length);
    assert.equal(sum(final, 'crawlstream_fetches_total', { outcome: '5xx' }), web.requests.filter((r) => r.status >= 500).length);
    assert.equal(sum(final, 'crawlstream_fetches_in_flight'), 0);
  });

  it('should count each fetch outcome once on the fetched topic, and the URLs dropped by reason', () => {
    assert.equal(sum(final, 'crawlstream_records_total', { topic: 'fetched' }), web.requests.length);
    assert.ok(sum(final, 'crawlstream_records_total', { topic: 'parsed' }) > 100);
    assert.ok(sum(final, 'crawlstream_urls_dropped_total', { reason: 'robots-disallowed' }) > 0, 'robots.txt kept some URLs out');
    assert.ok(final.filter((s) => s.name === 'crawlstream_urls_dropped_total').length >= 2, 'more than one reason');
  });

  it('should stop serving and exit 0 when told to during --metrics-linger', () => {
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stderr, /metrics: still serving the final values at http:\/\/127\.0\.0\.1:\d+\/metrics for 600 s/);
  });
});
