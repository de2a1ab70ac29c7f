// test-plan: e2e paced ~70s
// Replay and scale-out on real services: a live Kafka crawl grown from 4 to 8 partitions with its
// workers running, and a replay of its fetched pages through a changed parser.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { query, runCli } from './support/cli.js';
import { requireServices } from './support/services.js';
import { assertAllFetched, assertNeverFetched, assertPolite, pagesFetchedTwice } from './support/crawl-checks.js';
import { TEST_DELAY_MS } from './support/crawl-outcome-tests.js';
import { kafkaCrawl, stopCrawl, type KafkaCrawl } from './support/kafka-crawl.js';
import { UPPER_CASE_PARSER } from './support/fixtures.js';
import { connectCluster, readClusterState, writeClusterState } from '../engine/kafka/kafka-cluster.js';

describe('Kafka scale-out and replay', () => {
  let crawl: KafkaCrawl | undefined;
  let scaled: Promise<import('./support/cli.js').CliRun> | undefined;
  after(() => stopCrawl(crawl));

  it('should finish after growing from 4 to 8 partitions live, with nothing lost, nothing twice and politeness intact', async (t) => {
    crawl = await kafkaCrawl('scale', {
      after: 60,
      act: (c) => {
        scaled = runCli(['scale', '--partitions', '8', '--brokers', requireServices().kafka, '--topic-prefix', c.prefix, '--timeout', '600']);
      },
    });
    const scale = await scaled!;
    assert.equal(scale.code, 0, scale.stderr);
    const m = /(\d+) of (\d+) hosts moved \(([\d.]+) %/.exec(scale.stdout);
    assert.ok(m, scale.stdout);
    const share = Number(m[1]) / Number(m[2]);
    t.diagnostic(`hosts moved: ${m[1]} of ${m[2]} = ${(share * 100).toFixed(1)} % (ideal 50 %)`);
    assert.ok(Math.abs(share - 0.5) <= 0.3, `moved share ${share}`);
    assert.equal(crawl.idle.code, 0, crawl.idle.stderr);
    assertPolite(crawl.web, TEST_DELAY_MS);
    assertNeverFetched(crawl.web);
    assertAllFetched(crawl.web);
    assert.deepEqual(pagesFetchedTwice(crawl.web.requests), []);
    const urls = crawl.pages.map((p) => p.url);
    assert.equal(new Set(urls).size, urls.length, 'one pages row per URL');
  });

  it('should not call a paused crawl idle, though every task of it is', async () => {
    // What `scale` does between its pause and its resume, held still: the crawl drained, more to come.
    assert.ok(crawl, 'the crawl of the previous test');
    const kafka = requireServices().kafka;
    const quiet = { info: () => {}, warn: () => {} };
    const cluster = await connectCluster({ brokers: [kafka], prefix: crawl.prefix, logger: quiet });
    try {
      const state = (await readClusterState(cluster))!;
      await writeClusterState(cluster, { ...state, control: { ...state.control, paused: true } });
      try {
        const status = await runCli(['status', '--brokers', kafka, '--topic-prefix', crawl.prefix, '--wait-idle', '--timeout', '3s']);
        assert.equal(status.code, 1, status.stdout);
        assert.match(status.stderr, /not idle after 3 s: the crawl is paused/);
      } finally {
        await writeClusterState(cluster, state);
      }
    } finally {
      await cluster.close();
    }
  });

  it('should replay fetched pages through a changed parser: new values, same rows, no refetch', async () => {
    assert.ok(crawl, 'the crawl of the previous test');
    const { kafka, registry } = requireServices();
    const ch = ['--clickhouse-url', crawl.chUrl];
    const [before] = await query<{ pages: string; parsed: string; titled: string }>('',
      "SELECT (SELECT count() FROM pages) AS pages, (SELECT count() FROM parsed_pages FINAL) AS parsed, (SELECT countIf(title != '') FROM pages) AS titled", ch);
    const requests = crawl.web.requests.length;
    const replay = await runCli(['replay', '--from', 'fetched', '--processors', 'parse,sink', '--parser-module', UPPER_CASE_PARSER,
      '--brokers', kafka, '--topic-prefix', crawl.prefix, '--schema-registry', registry, ...ch]);
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(crawl.web.requests.length, requests, 'a replay fetches nothing');
    const [after] = await query<{ pages: string; parsed: string; upper: string }>('',
      "SELECT (SELECT count() FROM pages) AS pages, (SELECT count() FROM parsed_pages FINAL) AS parsed, (SELECT countIf(title != '' AND title = upper(title)) FROM pages) AS upper", ch);
    assert.equal(after.pages, before.pages);
    assert.equal(after.parsed, before.parsed, 'replaced, not duplicated');
    assert.equal(after.upper, before.titled, 'every titled page has the new parser\'s title');
  });
});
