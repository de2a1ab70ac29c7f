// test-plan: e2e holds=kafka paced ~130s
// Faults on real services: a worker killed with -9 mid-crawl, and the broker restarted mid-crawl.
// Each time the crawl finishes with nothing lost, no page row twice and politeness intact.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { query } from './support/cli.js';
import { assertAllFetched, assertNeverFetched, assertPolite } from './support/crawl-checks.js';
import { TEST_DELAY_MS } from './support/crawl-outcome-tests.js';
import { DEV_SERVICES, kafkaCrawl, stopCrawl, type KafkaCrawl } from './support/kafka-crawl.js';

describe('Kafka crawl surviving faults', () => {
  let killed: KafkaCrawl | undefined;
  let restarted: KafkaCrawl | undefined;
  after(async () => {
    await stopCrawl(killed);
    await stopCrawl(restarted);
  });

  it('should finish with nothing lost, no page row twice and politeness intact when a worker is killed -9', async () => {
    killed = await kafkaCrawl('kill', { after: 60, act: (c) => c.workers[0].child.kill('SIGKILL') });
    assert.equal(killed.idle.code, 0, killed.idle.stderr);
    assertPolite(killed.web, TEST_DELAY_MS);
    assertNeverFetched(killed.web);
    assertAllFetched(killed.web);
    const urls = killed.pages.map((p) => p.url);
    assert.equal(new Set(urls).size, urls.length, 'one pages row per URL');
    const fetchIds = await query<{ n: string; d: string }>('', 'SELECT count() AS n, uniqExact(fetch_id) AS d FROM fetches', ['--clickhouse-url', killed.chUrl]);
    assert.equal(fetchIds[0].n, fetchIds[0].d, 'no fetch recorded twice');
  });

  it('should finish with nothing lost and politeness intact when the broker restarts mid-crawl', async (t) => {
    // When it happened, told in the test's output: how long the broker took to come back and the crawl
    // after it is what this test's time (and its spread between runs) is made of.
    const began = performance.now();
    const said: string[] = [];
    const at = () => `${((performance.now() - began) / 1000).toFixed(1)} s`;
    try {
      restarted = await kafkaCrawl('restart', {
        after: 60,
        // Not execFileSync: the synthetic web runs in this process and must keep answering meanwhile.
        act: () => {
          said.push(`${at()} restart asked`);
          const restart = spawn('bash', [DEV_SERVICES, 'restart-kafka'], { stdio: ['ignore', 'pipe', 'pipe'] });
          for (const out of [restart.stdout, restart.stderr]) out.on('data', (d) => said.push(...String(d).trim().split('\n').map((l) => `${at()} ${l}`)));
        },
      });
    } finally {
      // Also when the crawl failed: that is when the phases are wanted most.
      const times = (restarted?.web.requests ?? []).map((r) => r.startedAt).sort((a, b) => a - b);
      const gaps = times.slice(1).map((x, i) => x - times[i]);
      t.diagnostic(`${said.join('; ')}; longest pause between requests ${(Math.max(0, ...gaps) / 1000).toFixed(1)} s; idle at ${at()}`);
    }
    assert.equal(restarted.idle.code, 0, restarted.idle.stderr);
    assertPolite(restarted.web, TEST_DELAY_MS);
    assertNeverFetched(restarted.web);
    assertAllFetched(restarted.web);
    const urls = restarted.pages.map((p) => p.url);
    assert.equal(new Set(urls).size, urls.length, 'one pages row per URL');
  });
});
