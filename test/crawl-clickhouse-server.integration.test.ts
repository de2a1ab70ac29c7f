// test-plan: e2e holds=clickhouse uses=clickhouse ~43s
// Crawl results in a ClickHouse server (Debian's 18.16 here) that is restarted in the middle of the
// crawl, then the same records sunk again by a replay: each time exactly one row per fetch the test
// server logged — nothing missing, nothing twice.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb } from '../test-web/synthetic-web.js';
import { query, runCli, type CliRun } from './support/cli.js';
import { requireServices } from './support/services.js';
import { embeddedCrawlArgs, fetchCounts, FETCH_COUNTS_SQL } from './support/crawl-outcome-tests.js';
import { DEV_SERVICES } from './support/kafka-crawl.js';

describe('crawl results in a ClickHouse server', () => {
  let web: SyntheticWeb;
  let dataDir: string;
  let chUrl: string;
  let run: CliRun;
  let restarted = false;
  let restartDone: Promise<unknown> | undefined;

  before(async () => {
    chUrl = `${requireServices().clickhouse}/chrestart${Date.now()}`;
    web = await startSyntheticWeb({ scenario: 'test' });
    dataDir = mkdtempSync(join(tmpdir(), 'ch-server-'));
    const crawl = runCli(embeddedCrawlArgs(web, dataDir, ['--clickhouse-url', chUrl]));
    const timer = setInterval(() => {
      if (restarted || web.requests.length < 60) return;
      restarted = true;
      // Not awaited, and not execFileSync: the synthetic web runs in this process.
      const restart = spawn('bash', [DEV_SERVICES, 'restart-clickhouse'], { stdio: 'ignore' });
      restartDone = new Promise((done) => restart.once('exit', done));
    }, 10);
    run = await crawl;
    clearInterval(timer);
    // The crawl can end (its sink having waited out the restart) before the restart script has seen
    // the server answer again: the queries below need it up.
    await restartDone;
  });
  after(() => web?.close());

  function expected() {
    const robots = web.requests.filter((r) => r.path.endsWith('/robots.txt')).length;
    const sitemap = web.requests.filter((r) => r.path === '/sitemap.xml').length;
    return { page: web.requests.length - robots - sitemap, robots, sitemap, fetchIds: web.requests.length };
  }

  it('should hold one row per fetch after the server restarted mid-crawl', async () => {
    assert.equal(run.code, 0, run.stderr);
    assert.ok(restarted, 'the server was restarted during the crawl');
    const counts = fetchCounts((await query('', FETCH_COUNTS_SQL, ['--clickhouse-url', chUrl]))[0]);
    assert.deepEqual(counts, expected());
    const [raw] = await query<{ n: string }>('', 'SELECT count() AS n FROM fetches', ['--clickhouse-url', chUrl]);
    assert.equal(Number(raw.n), expected().fetchIds, 'not even a physical duplicate: the sink skipped what the server had');
  });

  it('should still hold one row per fetch after the same records are sunk again', async () => {
    const replay = await runCli(['replay', '--from', 'fetched', '--processors', 'clickhouse-sink', '--data-dir', dataDir, '--clickhouse-url', chUrl]);
    assert.equal(replay.code, 0, replay.stderr);
    const counts = fetchCounts((await query('', FETCH_COUNTS_SQL, ['--clickhouse-url', chUrl]))[0]);
    assert.deepEqual(counts, expected(), 'a replay replaces rows, it does not add any');
  });
});
