// test-plan: e2e paced ~70s
// `worker --threads 2` on real services: two worker processes of two threads each crawl the synthetic
// web, and one process is killed -9 midway (two workers gone at once). The threads of the other take
// its tasks over; the crawl finishes with nothing lost, no page or fetch row twice and politeness
// intact, and the surviving process serves its threads' metrics together on one endpoint.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { query } from './support/cli.js';
import { assertAllFetched, assertNeverFetched, assertPolite } from './support/crawl-checks.js';
import { TEST_DELAY_MS } from './support/crawl-outcome-tests.js';
import { kafkaCrawl, stopCrawl, type KafkaCrawl } from './support/kafka-crawl.js';

/** Requests the server has seen when process 0 (both its threads) is killed. */
const KILL_AT = 60;

/** Sum of the samples of one metric family in a Prometheus text exposition. */
function total(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

describe('Kafka crawl by two processes of two worker threads, one process killed -9', () => {
  let crawl: KafkaCrawl | undefined;
  let failure: unknown;
  let killedAt = -1;
  let fetchIds: { n: string; d: string }[] = [];
  let scrape = '';

  before(async () => {
    try {
      crawl = await kafkaCrawl('threads', {
        after: KILL_AT,
        // Both threads of process 0 hold tasks before it dies: a kill of one idle thread would prove little.
        when: (c) => (c.workers[0].stderrSoFar().match(/thread \d\/2: worker \S+ running/g) ?? []).length === 2,
        act: (c) => {
          killedAt = c.web.requests.length;
          c.workers[0].child.kill('SIGKILL');
        },
      }, { workerArgs: (i) => ['--threads', '2', ...(i === 1 ? ['--metrics-port', '0'] : [])] });
      fetchIds = await query<{ n: string; d: string }>('', 'SELECT count() AS n, uniqExact(fetch_id) AS d FROM fetches', ['--clickhouse-url', crawl.chUrl]);
      const url = /metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(crawl.workers[1].stderrSoFar())?.[1];
      if (url) scrape = await (await fetch(url)).text();
    } catch (err) {
      failure = err;
    }
  });
  after(() => stopCrawl(crawl));

  function done(): KafkaCrawl {
    if (failure || !crawl) throw failure ?? new Error('the crawl did not run');
    assert.equal(crawl.idle.code, 0, crawl.idle.stderr);
    assert.ok(killedAt >= KILL_AT, `the crawl ended (${crawl.web.requests.length} requests) before process 0 was killed`);
    return crawl;
  }

  it('should run every thread as a worker of its own', () => {
    const said = done().workers[1].stderrSoFar();
    const ids = [...said.matchAll(/thread (\d)\/2: worker (\S+) running/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual([...new Set(ids.map(([t]) => t))].sort(), ['1', '2'], said.slice(-3000));
    assert.equal(new Set(ids.map(([, id]) => id)).size, new Set(ids.map(([t]) => t)).size, 'each thread has its own worker identity');
  });

  it('should finish with every page fetched and nothing that robots.txt or nofollow rule out', () => {
    const c = done();
    assertNeverFetched(c.web);
    assertAllFetched(c.web);
  });

  it('should keep politeness intact across the kill', () => {
    assertPolite(done().web, TEST_DELAY_MS);
  });

  it('should hold one pages row per URL and no fetch recorded twice', () => {
    const urls = done().pages.map((p) => p.url);
    assert.equal(new Set(urls).size, urls.length, 'one pages row per URL');
    assert.equal(fetchIds[0]?.n, fetchIds[0]?.d, 'no fetch recorded twice');
  });

  it('should serve both threads\' metrics on one endpoint, the process\'s own once', () => {
    const c = done();
    assert.ok(scrape, 'process 1 said where its metrics are');
    // The requests the server logged after the kill came from process 1's two threads, but for those
    // process 0 had on the wire as it died (at most one per host): a thread left out of the sum would count short.
    const after = c.web.requests.length - killedAt - new Set(c.web.requests.map((r) => r.host)).size;
    const fetched = total(scrape, 'crawlstream_fetches_total');
    assert.ok(fetched >= after && fetched <= c.web.requests.length, `fetches counted ${fetched}, requests after the kill less one a host ${after}, in all ${c.web.requests.length}`);
    assert.equal(scrape.split('\n').filter((l) => l.startsWith('crawlstream_process_cpu_seconds_total ')).length, 1, 'the process\'s CPU once, not once per thread');
  });
});
