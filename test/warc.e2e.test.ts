// test-plan: e2e ~60s
// WARC output of real crawls of the synthetic web, judged by Python's warcio and the server's own log:
// every response the server sent is archived exactly once with its URI and status, 304s are revisits
// of the capture they confirm, a kill -9 and restart neither loses nor doubles a capture, and
// `warc export` over the retained fetched topic gives the same captures without a request. The three
// crawls are independent (a web each) and run side by side: the file costs the longest.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { SyntheticWeb } from '../test-web/synthetic-web.js';
import { toolsOrSkip } from '../warc/warc-reader.js';
import type { PythonTools } from '../warc/python-tools.js';
import { query, runCli, signalWhen, type CliRun } from './support/cli.js';
import { embeddedCrawlArgs } from './support/crawl-outcome-tests.js';
import { crawlArgs, fewestNeverChangingFetches, scratchDir, testWeb } from './support/test-crawl.js';
import {
  archived, differences, identities, readCaptures, serverResponses, sourcesTwice, tally, uriOf, type Capture,
} from './support/warc-captures.js';

const tools = toolsOrSkip();
const skip = 'skip' in tools ? tools.skip : false;
const py = () => tools as PythonTools;

async function exportCaptures(dataDir: string, web: SyntheticWeb): Promise<Capture[]> {
  const out = scratchDir('warc-export-');
  const requests = web.requests.length;
  const r = await runCli(['warc', 'export', '--out', out, '--data-dir', dataDir]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^exported \d+ records of fetched to .*: \d+ responses, \d+ revisits, 0 already there, \d+ without a response \(not archived\), 0 unwritable$/m);
  assert.equal(web.requests.length, requests, 'an export requests nothing');
  return readCaptures(py(), out);
}

// Side by side; the tests within each (sharing its crawl) in order, as written.
describe('WARC', { concurrency: true }, () => {
  describe('WARC files of a crawl (--warc-dir)', { skip, concurrency: 1 }, () => {
    const t = testWeb({ scenario: 'test' }, 'warc-crawl-');
    let web: SyntheticWeb;
    let dataDir: string;
    let warcDir: string;
    let crawl: CliRun;
    let captures: Capture[];

    before(async () => {
      ({ web, dataDir } = t);
      warcDir = join(dataDir, 'warc');
      // The 20 MB body must reach the 10 MB cap (read, hashed, compressed and archived as it comes)
      // before the fetch timeout for its capture to say 'length': 3 s (the test crawls' default) and
      // 5 s each fell short once on a heavily loaded machine with this file's other crawls beside it.
      // 10 s makes this crawl (its hang retried three times) about as long as the kill -9 case's two.
      const args = embeddedCrawlArgs(web, dataDir, ['--warc-dir', warcDir]);
      crawl = await runCli([...args, '--fetch-timeout-ms', '10000']);
      assert.equal(crawl.code, 0, crawl.stderr);
      captures = await readCaptures(py(), warcDir);
    });

    it('should archive every response the server sent exactly once, with its URI and status', () => {
      assert.ok(captures.length > 100, `${captures.length} captures`);
      assert.deepEqual(differences(serverResponses(web.requests), archived(captures)), [], 'server responses → WARC records');
      assert.deepEqual(sourcesTwice(captures), [], 'no fetched record archived twice');
      const responses = captures.filter((c) => c.type === 'response').length;
      assert.match(crawl.stdout, new RegExp(`^WARC files in ${warcDir}: ${responses} responses, 0 revisits; [1-9]\\d* fetches without a response not archived$`, 'm'));
    });

    it('should archive robots.txt answers, and say which bodies were cut short and why', () => {
      const robots = captures.filter((c) => c.uri.endsWith('/robots.txt'));
      assert.ok(robots.length >= web.hosts.length - 1, `${robots.length} robots.txt captures`);
      assert.equal(robots.length, web.requests.filter((r) => uriOf(r).endsWith('/robots.txt') && r.status > 0).length);
      const e = web.endpoints;
      const cut = (url: string) => captures.filter((c) => c.uri === url).map((c) => c.truncated);
      assert.deepEqual(cut(e.bigBody), ['length'], 'the 20 MB body, cut at the 10 MB cap');
      assert.deepEqual(cut(e.gzipBomb), ['length']);
      assert.ok(cut(e.trickle).length > 0 && cut(e.trickle).every((t) => t === 'time'), 'the trickle, cut by the total timeout');
      assert.ok(captures.filter((c) => !c.truncated).length > 100, 'whole bodies carry no WARC-Truncated');
    });

    it('should not archive a fetch that got no response, and say so', () => {
      const hang = web.requests.filter((r) => uriOf(r) === web.endpoints.hang);
      assert.ok(hang.length > 0 && hang.every((r) => r.status === 0), 'the hanging endpoint never answers');
      assert.equal(captures.filter((c) => c.uri === web.endpoints.hang).length, 0);
      assert.match(crawl.stderr, /warc: \d+ fetch\(es\) without a response not archived so far \(counted as warc\.no-response\)/);
    });

    it('should export the same captures from the retained fetched topic, refetching nothing', async () => {
      assert.deepEqual(identities(await exportCaptures(dataDir, web)), identities(captures));
    });

    it('should export from a time: all of a crawl of the last hour, nothing from a time to come', async () => {
      const hour = await runCli(['warc', 'export', '--out', scratchDir('warc-since-'), '--since', '1h', '--data-dir', dataDir]);
      assert.equal(hour.code, 0, hour.stderr);
      assert.match(hour.stdout, new RegExp(`: ${captures.filter((c) => c.type === 'response').length} responses,`));
      const later = await runCli(['warc', 'export', '--out', scratchDir('warc-since-'), '--since', '2099-01-01', '--data-dir', dataDir]);
      assert.equal(later.code, 0, later.stderr);
      assert.match(later.stdout, /^exported 0 records of fetched/m);
      const bad = await runCli(['warc', 'export', '--out', dataDir, '--since', '90', '--data-dir', dataDir]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--since must be a duration .*"90" has no unit/);
    });
  });

  describe('WARC files across kill -9 and restart', { skip, concurrency: 1 }, () => {
    const t = testWeb({ scenario: 'test' }, 'warc-kill-');

    it('should neither lose nor double a capture, and export the same ones afterwards', async () => {
      const { web, dataDir } = t;
      const warcDir = join(dataDir, 'warc');
      const args = embeddedCrawlArgs(web, dataDir, ['--warc-dir', warcDir]);
      const first = runCli(args);
      await signalWhen(first, () => web.requests.length >= 90, 'SIGKILL', 5);
      const firstRun = await first;
      assert.equal(firstRun.signal, 'SIGKILL');
      const second = await runCli(args);
      assert.equal(second.code, 0, second.stderr);

      const captures = await readCaptures(py(), warcDir);
      assert.deepEqual(sourcesTwice(captures), [], 'no fetched record archived twice');
      // Exactly once against the crawl's own record of its fetches (the sink reads the same topic).
      const rows = await query<{ url: string; status: number }>(dataDir, 'SELECT url, status FROM fetches FINAL WHERE status > 0');
      assert.deepEqual(differences(tally(rows.map((r) => `${new URL(r.url).href} ${r.status}`)), archived(captures)), [], 'fetches rows → WARC records');
      // Against the server: nothing archived that it did not send, and every URL it answered archived.
      // A response in flight at the kill died with the process and was asked for again after the
      // restart, so a (URI, status) may have fewer records than responses, never none for its URI.
      const sent = serverResponses(web.requests);
      const got = archived(captures);
      assert.deepEqual([...got].filter(([k, n]) => n > (sent.get(k) ?? 0)).map(([k]) => k), [], 'archived more often than the server answered');
      const uris = new Set(captures.map((c) => new URL(c.uri).href));
      assert.deepEqual([...sent.keys()].map((k) => k.slice(0, k.lastIndexOf(' '))).filter((u) => !uris.has(u)), [], 'answered but never archived');
      assert.deepEqual(identities(await exportCaptures(dataDir, web)), identities(captures), 'the export holds exactly what the live files hold');
    });
  });

  describe('WARC revisits of a recrawl (--recrawl, 304 Not Modified)', { skip, concurrency: 1 }, () => {
    const t = testWeb({ scenario: 'fresh' }, 'warc-recrawl-');

    it('should write every 304 as a revisit of the capture it confirms', async () => {
      const { web, dataDir } = t;
      const warcDir = join(dataDir, 'warc');
      const crawl = runCli(crawlArgs(web, dataDir, { delayMs: 100 },
        ['--recrawl', '--recrawl-min-interval', '2s', '--recrawl-max-interval', '4s', '--run-for', '60s', '--warc-dir', warcDir]));
      // Stopped (as Ctrl-C does) once each never-changing page was answered 304 twice: the second revisit
      // follows a revisit, and must still refer to the response. --run-for only bounds a failure.
      await signalWhen(crawl, () => fewestNeverChangingFetches(web, web.requests, 304) >= 2, 'SIGINT');
      const run = await crawl;
      assert.equal(run.code, 0, run.stderr);
      const captures = await readCaptures(py(), warcDir);
      const served304 = web.requests.filter((r) => r.status === 304);
      assert.ok(served304.length >= 3, `the server answered ${served304.length} conditional requests with 304`);
      assert.deepEqual(differences(serverResponses(web.requests), archived(captures)), []);
      const revisits = captures.filter((c) => c.type === 'revisit');
      assert.equal(revisits.length, served304.length, 'one revisit per 304');
      assert.ok(revisits.every((c) => c.status === 304));
      for (const r of revisits) {
        const earlier = captures.filter((c) => c.type === 'response' && c.uri === r.uri && c.date === r.refersToDate);
        assert.equal(earlier.length, 1, `${r.uri}: one response record at WARC-Refers-To-Date ${r.refersToDate}`);
        assert.equal(r.digest, earlier[0].digest, `${r.uri}: the revisit carries the payload digest of the capture it refers to`);
        assert.ok(r.date > r.refersToDate);
      }
    });
  });
});
