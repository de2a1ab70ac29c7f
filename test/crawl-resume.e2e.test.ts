// test-plan: e2e ~30s
// A crawl stopped half-way — with Ctrl-C or with kill -9 — and started again with the same command
// finishes as if it had not been stopped: nothing lost, politeness intact across the restart, and
// nothing fetched twice (after kill -9: nothing but what was in flight at the kill). The two cases
// crawl webs of their own and run side by side.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb, type WebRequest } from '../test-web/synthetic-web.js';
import { query, runCli, signalWhen } from './support/cli.js';
import { assertAllFetched, assertNeverFetched, assertPolite, canonicalOf, pagesFetchedTwice } from './support/crawl-checks.js';
import { embeddedCrawlArgs, TEST_DELAY_MS } from './support/crawl-outcome-tests.js';

/** Runs the crawl until the server has seen `requests` requests, then sends `signal`. */
async function interruptAfter(web: SyntheticWeb, dataDir: string, requests: number, signal: NodeJS.Signals) {
  const run = runCli(embeddedCrawlArgs(web, dataDir));
  const at = await signalWhen(run, () => web.requests.length >= requests, signal, 5);
  return { result: await run, at };
}

describe('stopping and resuming an embedded crawl', { concurrency: true }, () => {
  const webs: SyntheticWeb[] = [];
  after(async () => {
    for (const w of webs) await w.close();
  });

  it('should resume after Ctrl-C without fetching anything twice', async () => {
    const web = await startSyntheticWeb({ scenario: 'test' });
    webs.push(web);
    const dataDir = mkdtempSync(join(tmpdir(), 'resume-int-'));
    const { result } = await interruptAfter(web, dataDir, 60, 'SIGINT');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^stopped after \d+ pages/m);
    const second = await runCli(embeddedCrawlArgs(web, dataDir));
    assert.equal(second.code, 0, second.stderr);
    assertPolite(web, TEST_DELAY_MS);
    assertNeverFetched(web);
    assertAllFetched(web);
    assert.deepEqual(pagesFetchedTwice(web.requests), []);
  });

  it('should resume after kill -9, fetching again only what was in flight at the kill', async () => {
    const web = await startSyntheticWeb({ scenario: 'test' });
    webs.push(web);
    const dataDir = mkdtempSync(join(tmpdir(), 'resume-kill-'));
    const { result, at } = await interruptAfter(web, dataDir, 80, 'SIGKILL');
    assert.equal(result.signal, 'SIGKILL');
    const before = web.requests.slice();
    // What the crawl had committed at the kill, as its own sink recorded it (the sink reads only
    // committed fetch outcomes): refetching any of these is a real duplicate, however loaded the machine.
    const recorded = new Set((await query<{ url: string }>(dataDir, 'SELECT DISTINCT url FROM fetches')).map((r) => r.url));
    const second = await runCli(embeddedCrawlArgs(web, dataDir));
    assert.equal(second.code, 0, second.stderr);
    assertPolite(web, TEST_DELAY_MS);
    assertNeverFetched(web);
    assertAllFetched(web);
    // In flight at the kill, from the crawler's side: not yet answered, or answered so shortly
    // before it that the outcome was not committed yet. Commits run every few milliseconds, but a
    // 10 MB body (the gzip bomb) takes a few hundred to decode, compress and write, and a loaded CI
    // machine stretches that: an outcome answered 5 s before the kill must have been committed.
    // `before` holds only the killed run's requests, some sent in the moment between the kill
    // signal and the process's death: those were in flight too.
    const inFlight = new Set(before.filter((r: WebRequest) => r.endedAt >= at - 5000).map(canonicalOf));
    const twice = pagesFetchedTwice(web.requests).map((s) => s.replace(/ ×\d+$/, ''));
    assert.deepEqual(twice.filter((u) => recorded.has(u)), [], 'refetched though its outcome was committed (and sunk) before the kill');
    assert.deepEqual(twice.filter((u) => !inFlight.has(u)), [], `refetched though not in flight at the kill (in flight: ${[...inFlight]})`);
  });
});
