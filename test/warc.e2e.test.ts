// WARC output of real crawls of the synthetic web, judged by Python's warcio and the server's own log:
// every response the server sent is archived exactly once with its URI and status, 304s are revisits
// of the capture they confirm, a kill -9 and restart neither loses nor doubles a capture, and
// `warc export` over the retained fetched topic gives the same captures without a request.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb } from '../test-web/synthetic-web.js';
import { toolsOrSkip } from '../warc/warc-reader.js';
import type { PythonTools } from '../warc/python-tools.js';
import { runCli, type CliRun } from './support/cli.js';
import { embeddedCrawlArgs } from './support/crawl-outcome-tests.js';
import {
  archived, differences, identities, readCaptures, serverResponses, sourcesTwice, tally, uriOf, type Capture,
} from './support/warc-captures.js';

const tools = toolsOrSkip();
const skip = 'skip' in tools ? tools.skip : false;
const py = () => tools as PythonTools;

async function exportCaptures(dataDir: string, web: SyntheticWeb): Promise<Capture[]> {
  const out = mkdtempSync(join(tmpdir(), 'warc-export-'));
  const requests = web.requests.length;
  const r = await runCli(['warc', 'export', '--out', out, '--data-dir', dataDir]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^exported \d+ records of fetched to .*: \d+ responses, \d+ revisits, 0 already there, \d+ without a response \(not archived\), 0 unwritable$/m);
  assert.equal(web.requests.length, requests, 'an export requests nothing');
  return readCaptures(py(), out);
}

describe('WARC files of a crawl (--warc-dir)', { skip }, () => {
  let web: SyntheticWeb;
  let dataDir: string;
  let warcDir: string;
  let crawl: CliRun;
  let captures: Capture[];

  before(async () => {
    web = await startSyntheticWeb({ scenario: 'test' });
    dataDir = mkdtempSync(join(tmpdir(), 'warc-crawl-'));
    warcDir = join(dataDir, 'warc');
    crawl = await runCli(embeddedCrawlArgs(web, dataDir, ['--warc-dir', warcDir]));
    assert.equal(crawl.code, 0, crawl.stderr);
    captures = await readCaptures(py(), warcDir);
  });
  after(() => web?.close());

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
});

describe('WARC files across kill -9 and restart', { skip }, () => {
  let web: SyntheticWeb;
  after(() => web?.close());

  it('should neither lose nor double a capture, and export the same ones afterwards', async () => {
    web = await startSyntheticWeb({ scenario: 'test' });
    const dataDir = mkdtempSync(join(tmpdir(), 'warc-kill-'));
    const warcDir = join(dataDir, 'warc');
    const args = embeddedCrawlArgs(web, dataDir, ['--warc-dir', warcDir]);
    const first = runCli(args);
    let killedAt = 0;
    const timer = setInterval(() => {
      if (!killedAt && web.requests.length >= 90) {
        killedAt = performance.timeOrigin + performance.now();
        first.child.kill('SIGKILL');
      }
    }, 5);
    const killed = await first;
    clearInterval(timer);
    assert.equal(killed.signal, 'SIGKILL');
    const second = await runCli(args);
    assert.equal(second.code, 0, second.stderr);

    const captures = await readCaptures(py(), warcDir);
    assert.deepEqual(sourcesTwice(captures), [], 'no fetched record archived twice');
    // Every response is archived once, except a response to a request in flight at the kill: its
    // outcome died with the process (the request was sent again after the restart, and that answer
    // is archived). Nothing is archived that the server did not send.
    const sent = serverResponses(web.requests);
    const got = archived(captures);
    const inFlight = tally(web.requests.filter((r) => r.status > 0 && r.endedAt >= killedAt - 5000 && r.startedAt <= killedAt).map((r) => `${uriOf(r)} ${r.status}`));
    const wrong = differences(sent, got).filter((d) => {
      const [key, counts] = d.split(': ');
      const [want, have] = counts.split(' → ').map(Number);
      return !(have < want && want - have <= (inFlight.get(key) ?? 0));
    });
    assert.deepEqual(wrong, [], `server responses → WARC records (in flight at the kill: ${[...inFlight.keys()].join(', ')})`);
    assert.deepEqual(identities(await exportCaptures(dataDir, web)), identities(captures), 'the export holds exactly what the live files hold');
  });
});

describe('WARC revisits of a recrawl (--recrawl, 304 Not Modified)', { skip }, () => {
  let web: SyntheticWeb;
  after(() => web?.close());

  it('should write every 304 as a revisit of the capture it confirms', async () => {
    web = await startSyntheticWeb({ scenario: 'fresh' });
    const dataDir = mkdtempSync(join(tmpdir(), 'warc-recrawl-'));
    const warcDir = join(dataDir, 'warc');
    const run = await runCli([
      'crawl', ...web.seeds, '--data-dir', dataDir, '--allow-network', '127.0.0.0/8', '--default-delay-ms', '100', '--partitions', '2', '--quiet',
      '--recrawl', '--recrawl-min-interval', '2s', '--recrawl-max-interval', '4s', '--run-for', '25s', '--warc-dir', warcDir,
    ]);
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
