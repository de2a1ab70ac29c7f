// test-plan: e2e holds=kafka paced ~90s
// Faults on real services, one after the other in one crawl: a worker killed with -9, then, once the
// other worker has begun taking its tasks over (it says so: "fenced"), the broker restarted. The crawl still finishes with nothing
// lost, no page or fetch row twice and politeness intact. One crawl serves both faults: each crawl of
// the synthetic web costs about half a minute before any fault, and the suite's time is on the path
// of every change (issue 20).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { query } from './support/cli.js';
import { assertAllFetched, assertNeverFetched, assertPolite } from './support/crawl-checks.js';
import { TEST_DELAY_MS } from './support/crawl-outcome-tests.js';
import { DEV_SERVICES, kafkaCrawl, stopCrawl, type KafkaCrawl } from './support/kafka-crawl.js';

/** Requests the server has seen when worker 0 is killed, and when the broker is restarted. */
const KILL_AT = 60;
const RESTART_AT = 150;

describe('Kafka crawl surviving a worker killed -9 and a broker restart', () => {
  let crawl: KafkaCrawl | undefined;
  let failure: unknown;
  let fetchIds: { n: string; d: string }[] = [];
  const said: string[] = [];
  let restartAsked = false;

  before(async () => {
    // When each fault happened and how long the broker took to come back, told in the test's output:
    // the broker's start and the crawl after it are what this file's time (and its spread) is made of.
    const began = performance.now();
    const at = () => `${((performance.now() - began) / 1000).toFixed(1)} s`;
    try {
      crawl = await kafkaCrawl('faults', [
        { after: KILL_AT, act: (c) => { said.push(`${at()} worker 0 killed -9`); c.workers[0].child.kill('SIGKILL'); } },
        {
          after: RESTART_AT,
          when: (c) => c.workers[1].stderrSoFar().includes('fenced'),
          // Not execFileSync: the synthetic web runs in this process and must keep answering meanwhile.
          act: () => {
            restartAsked = true;
            said.push(`${at()} broker restart asked`);
            const restart = spawn('bash', [DEV_SERVICES, 'restart-kafka'], { stdio: ['ignore', 'pipe', 'pipe'] });
            for (const out of [restart.stdout, restart.stderr]) out.on('data', (d) => said.push(...String(d).trim().split('\n').map((l) => `${at()} ${l}`)));
          },
        },
      ]);
      fetchIds = await query<{ n: string; d: string }>('', 'SELECT count() AS n, uniqExact(fetch_id) AS d FROM fetches', ['--clickhouse-url', crawl.chUrl]);
    } catch (err) {
      failure = err; // told by every test below, with the phases
    } finally {
      const times = (crawl?.web.requests ?? []).map((r) => r.startedAt).sort((a, b) => a - b);
      const gaps = times.slice(1).map((x, i) => x - times[i]);
      said.push(`longest pause between requests ${(Math.max(0, ...gaps) / 1000).toFixed(1)} s; idle at ${at()}`);
    }
  });
  after(() => stopCrawl(crawl));

  let told = false;
  /** The crawl, or why there is none; the faults' timeline is told once, by the first test. */
  function done(t: { diagnostic: (s: string) => void }): KafkaCrawl {
    if (!told) t.diagnostic(said.join('; '));
    told = true;
    if (failure || !crawl) throw failure ?? new Error('the crawl did not run');
    assert.equal(crawl.idle.code, 0, crawl.idle.stderr);
    assert.ok(restartAsked, `the crawl ended (${crawl.web.requests.length} requests) before the broker restart was asked`);
    return crawl;
  }

  it('should finish with every page fetched and nothing that robots.txt or nofollow rule out', (t) => {
    const c = done(t);
    assertNeverFetched(c.web);
    assertAllFetched(c.web);
  });

  it('should keep politeness intact across both faults', (t) => {
    assertPolite(done(t).web, TEST_DELAY_MS);
  });

  it('should hold one pages row per URL and no fetch recorded twice', (t) => {
    const urls = done(t).pages.map((p) => p.url);
    assert.equal(new Set(urls).size, urls.length, 'one pages row per URL');
    assert.equal(fetchIds[0]?.n, fetchIds[0]?.d, 'no fetch recorded twice');
  });
});
