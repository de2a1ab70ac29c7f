// test-plan: e2e ~35s
// End to end: `crawlstream crawl` on the embedded default against the synthetic web on loopback,
// checked from the test server's own request log and from the `pages` table.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb } from '../test-web/synthetic-web.js';
import { query, runCli, type CliRun } from './support/cli.js';
import { META_DESCRIPTION_MODULE } from './support/fixtures.js';
import { crawlOutcomeTests, embeddedCrawlArgs, fetchCounts, FETCH_COUNTS_SQL, TEST_DELAY_MS, type FetchCounts, type PageRow } from './support/crawl-outcome-tests.js';

describe('embedded crawl of the synthetic web', () => {
  let web: SyntheticWeb;
  let dataDir: string;
  let run: CliRun;
  let pages: PageRow[];
  let fetches: FetchCounts;

  let moduleFile: string;

  before(async () => {
    web = await startSyntheticWeb({ scenario: 'test' });
    dataDir = mkdtempSync(join(tmpdir(), 'crawl-e2e-'));
    // A user's processor module from outside the source tree, run beside the crawl's own processors.
    moduleFile = join(mkdtempSync(join(tmpdir(), 'user-module-')), 'meta-description.mjs');
    copyFileSync(META_DESCRIPTION_MODULE, moduleFile);
    run = await runCli(embeddedCrawlArgs(web, dataDir, ['--processor-module', moduleFile]));
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

  it('should run a user\'s processor module: one meta_descriptions row per HTML page fetched, from its own table', async () => {
    const rows = await query<{ url: string; description: string }>(dataDir, 'SELECT url, description FROM meta_descriptions FINAL');
    const html = await query<{ url: string; title: string }>(dataDir,
      "SELECT p.url AS url, p.title AS title FROM pages AS p WHERE p.status = 200 AND p.url IN (SELECT url FROM fetches FINAL WHERE kind = 'page' AND status = 200 AND content_type = 'text/html')");
    assert.ok(html.length > 20, `HTML pages fetched: ${html.length}`);
    assert.equal(new Set(rows.map((r) => r.url)).size, rows.length, 'one row per page');
    const byUrl = new Map(rows.map((r) => [r.url, r.description]));
    for (const p of html) {
      const description = byUrl.get(p.url);
      assert.ok(description !== undefined, `${p.url} has a row`);
      // Pages the synthetic web renders describe themselves; hand-written ones (hostile, flaky) may not.
      if (description) assert.ok(description.startsWith(`${p.title} — `), `${p.url}: ${description}`);
    }
    assert.ok(rows.filter((r) => r.description).length > 20, 'descriptions were found');
    const described = await runCli(['describe', '--processor-module', moduleFile]);
    assert.match(described.stdout, /meta-description: fetched → dead-letters/);
  });
});
