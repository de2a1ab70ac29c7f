// End to end: `crawlstream crawl` on the embedded default against the synthetic web on loopback,
// checked from the test server's own request log and from the `pages` table.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb } from '../test-web/synthetic-web.js';
import { query, runCli, type CliRun } from './support/cli.js';
import { crawlOutcomeTests, embeddedCrawlArgs, fetchCounts, FETCH_COUNTS_SQL, TEST_DELAY_MS, type FetchCounts, type PageRow } from './support/crawl-outcome-tests.js';

describe('embedded crawl of the synthetic web', () => {
  let web: SyntheticWeb;
  let dataDir: string;
  let run: CliRun;
  let pages: PageRow[];
  let fetches: FetchCounts;

  before(async () => {
    web = await startSyntheticWeb({ scenario: 'test' });
    dataDir = mkdtempSync(join(tmpdir(), 'crawl-e2e-'));
    run = await runCli(embeddedCrawlArgs(web, dataDir));
    pages = run.code === 0 ? await query<PageRow>(dataDir, 'SELECT * FROM pages') : [];
    fetches = fetchCounts(run.code === 0 ? (await query(dataDir, FETCH_COUNTS_SQL))[0] : {});
  });

  after(async () => {
    await web?.close();
  });

  it('should finish with exit code 0 and a one-line summary', () => {
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^crawled \d+ pages .* pages\/s/m);
  });

  crawlOutcomeTests(() => ({ web, pages, fetches, delayMs: TEST_DELAY_MS }));
});
