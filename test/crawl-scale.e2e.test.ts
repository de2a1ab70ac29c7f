// test-plan: e2e ~30s
// Growing an embedded crawl from 4 to 8 partitions in the middle: stopped with Ctrl-C, scaled,
// resumed. Nothing lost, nothing fetched twice, politeness intact across the change, and about
// half the hosts changed owner (the ideal for 4 → 8 is (8 − 4) / 8).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb } from '../test-web/synthetic-web.js';
import { query, runCli, signalWhen } from './support/cli.js';
import { assertAllFetched, assertNeverFetched, assertPolite, pagesFetchedTwice } from './support/crawl-checks.js';
import { embeddedCrawlArgs, TEST_DELAY_MS } from './support/crawl-outcome-tests.js';

describe('scaling an embedded crawl', () => {
  let web: SyntheticWeb;
  after(() => web?.close());

  it('should finish after growing from 4 to 8 partitions with nothing lost, nothing twice and politeness intact', async (t) => {
    web = await startSyntheticWeb({ scenario: 'test' });
    const dataDir = mkdtempSync(join(tmpdir(), 'scale-'));
    const first = runCli(embeddedCrawlArgs(web, dataDir));
    await signalWhen(first, () => web.requests.length >= 60, 'SIGINT', 5);
    const stopped = await first;
    assert.equal(stopped.code, 0, stopped.stderr);

    const scaled = await runCli(['scale', '--partitions', '8', '--data-dir', dataDir]);
    assert.equal(scaled.code, 0, scaled.stderr);
    const m = /(\d+) of (\d+) hosts moved \(([\d.]+) %, ideal ([\d.]+) %\)/.exec(scaled.stdout);
    assert.ok(m, scaled.stdout);
    const share = Number(m[1]) / Number(m[2]);
    t.diagnostic(`hosts moved: ${m[1]} of ${m[2]} = ${(share * 100).toFixed(1)} % (ideal 50 %)`);
    // 23 hosts: the binomial spread around 50 % is ±10 %; the partitioning tests check 10,000 hosts.
    assert.ok(Math.abs(share - 0.5) <= 0.3, `moved share ${share}`);

    const resumed = await runCli(embeddedCrawlArgs(web, dataDir).filter((a, i, all) => a !== '--partitions' && all[i - 1] !== '--partitions'));
    assert.equal(resumed.code, 0, resumed.stderr);
    assertPolite(web, TEST_DELAY_MS);
    assertNeverFetched(web);
    assertAllFetched(web);
    assert.deepEqual(pagesFetchedTwice(web.requests), []);
    const [{ n, u }] = await query<{ n: string; u: string }>(dataDir, 'SELECT count() AS n, uniqExact(url) AS u FROM pages');
    assert.equal(n, u, 'one pages row per URL');
  });
});
