// End to end: a crawl that could not do all of its work says what was left undone and exits 3, so a
// script that checks the exit code never takes an incomplete crawl for a finished one.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb } from '../test-web/synthetic-web.js';
import { query, runCli, type CliRun } from './support/cli.js';

const FAIL_ON_ROBOTS = new URL('../../test/fixtures/fail-on-robots.mjs', import.meta.url).pathname;

describe('a crawl that leaves work undone', () => {
  let web: SyntheticWeb;
  let run: CliRun;
  let dataDir: string;

  before(async () => {
    web = await startSyntheticWeb({ scenario: 'bench', bench: { hosts: 2, pagesPerHost: 6 } });
    dataDir = mkdtempSync(join(tmpdir(), 'crawl-incomplete-'));
    run = await runCli(['crawl', ...web.seeds, '--data-dir', dataDir, '--allow-network', '127.0.0.0/8', '--default-delay-ms', '20',
      '--partitions', '2', '--quiet', '--processor-module', FAIL_ON_ROBOTS]);
  });
  after(async () => {
    await web?.close();
  });

  it('should exit 3 and count the records set aside as dead letters when a stage cannot process them', () => {
    assert.equal(run.code, 3, run.stderr);
    const robots = web.requests.filter((r) => r.path === '/robots.txt').length;
    assert.ok(robots >= 2, `robots.txt fetched ${robots} times`);
    assert.match(run.stdout, new RegExp(`^dead letters: ${robots} records could not be processed`, 'm'));
    assert.match(run.stderr, /fail-on-robots.*cannot handle http:\/\/127\./, 'each failure is a warning naming the processor and its reason');
  });

  it('should still crawl everything else: the other stages are not held back by one that fails', async () => {
    const rows = await query<{ n: string }>(dataDir, 'SELECT count() AS n FROM pages');
    const served = web.requests.filter((r) => r.path !== '/robots.txt' && r.status === 200).length;
    assert.ok(served > 0);
    assert.equal(Number(rows[0].n), served, 'a pages row for every page the server sent');
  });
});
