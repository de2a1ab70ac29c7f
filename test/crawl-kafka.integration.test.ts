// test-plan: e2e paced ~50s
// End to end on real services (scripts/dev-services.sh): the crawl of the synthetic web on Kafka
// with two workers, results in the ClickHouse server, held to the same server-side checks as the
// embedded crawl. The same crawl writes WARC files (both workers into one --warc-dir) and serves
// each worker's metrics, judged by the server's log; `warc export` from the Kafka topic then gives
// the same captures. One crawl serves all of it: a crawl of this web costs half a minute.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pythonTools, REPO_ROOT, run, type PythonTools } from '../warc/python-tools.js';
import { runCli, type CliRun } from './support/cli.js';
import { crawlOutcomeTests, TEST_DELAY_MS } from './support/crawl-outcome-tests.js';
import { kafkaCrawl, stopCrawl, type KafkaCrawl } from './support/kafka-crawl.js';
import { requireServices } from './support/services.js';
import { archived, differences, identities, readCaptures, serverResponses, sourcesTwice, type Capture } from './support/warc-captures.js';

const tools = pythonTools();
const skip = typeof tools === 'string' ? tools : false;
const py = () => tools as PythonTools;

/** crawlstream_fetches_total summed over a worker's scrape, read with prometheus_client. */
async function fetchesServed(url: string): Promise<number> {
  const text = await (await fetch(url)).text();
  const r = await run(py().python, [join(REPO_ROOT, 'metrics', 'parse-metrics.py')], text);
  assert.equal(r.code, 0, r.stderr);
  const samples = (JSON.parse(r.stdout) as { samples: { name: string; value: number }[] }[]).flatMap((f) => f.samples);
  return samples.filter((s) => s.name === 'crawlstream_fetches_total').reduce((n, s) => n + s.value, 0);
}

describe('Kafka crawl of the synthetic web with two workers', () => {
  const warcDir = mkdtempSync(join(tmpdir(), 'warc-kafka-'));
  let crawl: KafkaCrawl;
  let metricsUrls: (string | undefined)[] = [];
  let served: number[] = [];
  let stopped: CliRun[] = [];
  before(async () => {
    crawl = await kafkaCrawl('two', undefined, { workerArgs: () => ['--warc-dir', warcDir, '--metrics-port', '0'] });
    metricsUrls = crawl.workers.map((w) => /metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(w.stderrSoFar())?.[1]);
  });
  after(() => stopCrawl(crawl));

  it('should reach idle, as `status --wait-idle` reports', () => {
    assert.equal(crawl.idle.code, 0, crawl.idle.stderr);
    assert.match(crawl.idle.stdout, /idle: every topic is consumed/);
  });

  crawlOutcomeTests(() => ({ web: crawl.web, pages: crawl.pages, fetches: crawl.fetches, delayMs: TEST_DELAY_MS }));

  describe('WARC files and metrics', { skip }, () => {
    let captures: Capture[];
    before(async () => {
      assert.equal(crawl.idle.code, 0, crawl.idle.stderr);
      served = await Promise.all(metricsUrls.map((u) => (u ? fetchesServed(u) : -1)));
      for (const w of crawl.workers) w.child.kill('SIGTERM');
      stopped = await Promise.all(crawl.workers);
      captures = await readCaptures(py(), warcDir);
    });

    it('should archive every response the server sent exactly once, whichever worker fetched it', () => {
      assert.ok(stopped.every((s) => s.code === 0), stopped.map((s) => s.stderr.slice(-2000)).join('\n---\n'));
      assert.deepEqual(differences(serverResponses(crawl.web.requests), archived(captures)), []);
      assert.deepEqual(sourcesTwice(captures), []);
    });

    it('should count on the workers\' metrics, together, every request the server saw', () => {
      assert.ok(served.every((n) => n >= 0), 'each worker served its metrics');
      assert.equal(served.reduce((a, b) => a + b, 0), crawl.web.requests.length);
    });

    it('should export the same captures from the fetched topic on Kafka', async () => {
      const { kafka, registry } = requireServices();
      const out = mkdtempSync(join(tmpdir(), 'warc-kafka-export-'));
      const requests = crawl.web.requests.length;
      const r = await runCli(['warc', 'export', '--out', out, '--brokers', kafka, '--topic-prefix', crawl.prefix, '--schema-registry', registry]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(crawl.web.requests.length, requests, 'an export requests nothing');
      assert.deepEqual(identities(await readCaptures(py(), out)), identities(captures));
    });
  });
});
