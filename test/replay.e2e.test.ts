// Re-parsing what was crawled with a new parser, without fetching again: every page gets the new
// value, row counts do not change, nothing is duplicated, and the server sees no request.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb } from '../test-web/synthetic-web.js';
import { query, runCli } from './support/cli.js';
import { embeddedCrawlArgs } from './support/crawl-outcome-tests.js';
import { PARSER_VERSION } from '../stages/parse/parse.js';

import { UPPER_CASE_PARSER } from './support/fixtures.js';

describe('replaying fetched pages through a changed parser', () => {
  let web: SyntheticWeb;
  let dataDir: string;
  before(async () => {
    web = await startSyntheticWeb({ scenario: 'demo' });
    dataDir = mkdtempSync(join(tmpdir(), 'replay-'));
    const crawl = await runCli(embeddedCrawlArgs(web, dataDir));
    assert.equal(crawl.code, 0, crawl.stderr);
  });
  after(() => web?.close());

  it('should give every page the new parser\'s value with the same rows and no refetch', async () => {
    const [before] = await query<{ pages: string; parsed: string; titled: string }>(dataDir,
      "SELECT (SELECT count() FROM pages) AS pages, (SELECT count() FROM parsed_pages FINAL) AS parsed, (SELECT countIf(title != '') FROM pages) AS titled");
    const requests = web.requests.length;
    const replay = await runCli(['replay', '--from', 'fetched', '--processors', 'parse,sink', '--parser-module', UPPER_CASE_PARSER, '--data-dir', dataDir]);
    assert.equal(replay.code, 0, replay.stderr);
    assert.match(replay.stdout, /^replay \S+: \d+ records of fetched through parse, sink .* parser upper-case-titles/m);
    assert.equal(web.requests.length, requests, 'a replay fetches nothing');
    const [after] = await query<{ pages: string; parsed: string; upper: string; versions: string[] }>(dataDir,
      "SELECT (SELECT count() FROM pages) AS pages, (SELECT count() FROM parsed_pages FINAL) AS parsed, " +
      "(SELECT countIf(title != '' AND title = upper(title)) FROM pages) AS upper, " +
      "(SELECT groupUniqArray(parser_version) FROM parsed_pages FINAL) AS versions");
    assert.equal(after.pages, before.pages, 'the same number of pages');
    assert.equal(after.parsed, before.parsed, 'one parsed row per fetch, replaced not duplicated');
    assert.equal(after.upper, before.titled, 'every titled page has the new parser\'s title');
    assert.deepEqual(after.versions, [`${PARSER_VERSION}+upper-case-titles`]);
  });

  it('should start from a time or an offset', async () => {
    const none = await runCli(['replay', '--since', '2099-01-01T00:00:00Z', '--data-dir', dataDir]);
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stdout, /: 0 records of fetched/);
    const late = await runCli(['replay', '--from-offset', '1000000', '--data-dir', dataDir]);
    assert.match(late.stdout, /: 0 records of fetched/);
  });

  // Last: it damages the data directory.
  it('should count as replayed only the records it could read, say how many it could not, and exit 3', async () => {
    const partitions = join(dataDir, 'log', 'fetched');
    const segments = readdirSync(partitions).flatMap((p) => readdirSync(join(partitions, p)).filter((f) => f.endsWith('.log')).map((f) => join(partitions, p, f)));
    const largest = segments.sort((a, b) => statSync(b).size - statSync(a).size)[0];
    truncateSync(largest, Math.floor(statSync(largest).size * 0.6));
    const replay = await runCli(['replay', '--from', 'fetched', '--processors', 'parse', '--data-dir', dataDir]);
    assert.equal(replay.code, 3, replay.stderr);
    const [, unreadable, total] = /: (\d+) of the (\d+) records of fetched could not be read \(log damage/.exec(replay.stdout) ?? [];
    assert.ok(Number(unreadable) > 0, replay.stdout);
    assert.match(replay.stdout, new RegExp(`^replay \\S+: ${Number(total) - Number(unreadable)} records of fetched through parse`, 'm'), 'the records replayed, not the range');
    assert.match(replay.stderr, /records could not be read \(log damage, see above\) and were not replayed/);
  });
});
