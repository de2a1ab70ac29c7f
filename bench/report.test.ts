// The report judges every figure of issue 11 against its target, takes the fastest complete Crawlee run
// as the peer, and shows a levers file's bad entries instead of dropping them.
// Run: node --test dist/bench/report.test.js (scripts/run-tests.mjs skips dist/bench/).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CrawlRun } from './crawls.js';
import { kafkaCostSection, pooledMsPerPage } from './kafka-cost.js';
import { readLevers, renderLevers } from './levers.js';
import { renderMarkdown } from './render.js';
import { bestCrawlee, compare, engineRuns, type EngineResult, type Results } from './report.js';

function crawl(name: string, pagesPerSecond: number, extra: Partial<CrawlRun> = {}): CrawlRun {
  const pages = 1000;
  return {
    name, hosts: 20, pagesPerHost: 50, pages, wallSeconds: pages / pagesPerSecond, pagesPerSecond, activePagesPerSecond: pagesPerSecond,
    peakRssMb: 400, cpuSeconds: 4, cpuSecondsPer1000Pages: 4, crawlerReport: '', exitCode: 0,
    web: { pageRequests: pages, distinctPages: pages, robotsRequests: 20, statuses: { 200: pages }, activeSeconds: 1, peakRequestsPerHostPerSecond: 1,
      maxConnectionsPerHost: 1, maxConnectionsTotal: 20, hostsPageBeforeRobots: 0, hosts: 20, serverCpuSeconds: 0.1 },
    ...extra,
  };
}

function results(crawls: CrawlRun[], extra: Partial<Results> = {}): Results {
  return {
    machine: { date: '2026-01-01T00:00:00Z', cpuModel: 'test', logicalCores: 2, cpuQuotaCores: null, ramGb: 1, node: 'v20', os: 'linux', gitCommit: 'abc',
      gitDirty: false, loadAverageAtStart: [0, 0, 0], crawleeVersion: '3', gnuTime: true },
    options: { sections: [], hosts: 20, pagesPerHost: 50, seeds: 10, large: { hosts: 200, pages: 50 }, duplicatesWeb: { hosts: 20, pages: 50 }, crawlee: [{ min: 16, max: 64 }] },
    crawls: Object.fromEntries(crawls.map((c) => [c.name, c])),
    ...extra,
  };
}

const target = (res: Results, prefix: string) => compare(res).targets.find((t) => t.name.startsWith(prefix))!;

test('should take the fastest Crawlee run that fetched the whole web as the peer', () => {
  const incomplete = crawl('crawlee-min32', 900, { web: { ...crawl('x', 1).web, distinctPages: 10 } });
  const peer = bestCrawlee(results([crawl('crawlee-min8', 200), crawl('crawlee-min16', 300), incomplete]).crawls);
  assert.equal(peer?.name, 'crawlee-min16');
});

test('should judge embedded pages/s against the peer and mark a ratio below 5 as not met', () => {
  const res = results([crawl('crawlee-min16', 300), crawl('embedded', 1200)]);
  const t = target(res, 'embedded pages/s ÷ Crawlee');
  assert.equal(t.value, 4);
  assert.equal(t.ok, false);
  assert.equal(target(results([crawl('crawlee-min16', 300), crawl('embedded', 1500)]), 'embedded pages/s ÷ Crawlee').ok, true);
});

test('should count records per page and duplicate records per near-duplicate page from the crawls\' logs', () => {
  const dups = { records: 30, pages: 10, exact: 0, near: 30 };
  const res = results([
    crawl('embedded', 500, { logCounts: { perTopic: { fetched: 1000, parsed: 1000 }, total: 12_000, duplicates: { records: 0, pages: 0, exact: 0, near: 0 } } }),
    crawl('embedded-template-heavy', 100, { logCounts: { perTopic: {}, total: 0, duplicates: dups } }),
  ]);
  assert.equal(target(res, 'records per page').value, 12);
  assert.equal(target(res, 'records per page').ok, true);
  const d = target(res, 'duplicate records per near-duplicate page');
  assert.equal(d.value, 3);
  assert.equal(d.ok, false);
});

test('should leave a figure unjudged, saying why, when its section did not run', () => {
  const t = target(results([]), 'broker CPU-ms per page');
  assert.equal(t.value, null);
  assert.equal(t.ok, null);
  assert.match(t.how, /kafka/);
  assert.match(renderMarkdown(results([]), { levers: [], invalid: [] }), /\| broker CPU-ms per page \| — \| ≤ 1 \| — \|/);
});

test('should render valid levers with their change and list invalid entries with why', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-levers-'));
  try {
    const file = join(dir, 'levers.json');
    writeFileSync(file, JSON.stringify({ levers: [
      { lever: 'two parse workers', figure: 'embedded pages/s', before: 400, after: 500, session: 'same day, same machine' },
      { lever: 'no after', figure: 'x', before: 1, session: 's' },
      { lever: 'lower is better', figure: 'CPU-ms per page', better: 'lower', before: 4, after: 5, session: 's' },
    ] }));
    const f = readLevers(file);
    assert.equal(f.levers.length, 2);
    assert.deepEqual(f.invalid, ['entry 1 (no after): after must be a number']);
    const md = renderLevers(f).join('\n');
    assert.match(md, /\| two parse workers \| embedded pages\/s \| 400 \| 500 \| \+25\.0 % \| ✓ \|/);
    assert.match(md, /\| lower is better \| CPU-ms per page \| 4 \| 5 \| \+25\.0 % \| ✗ \|/);
    assert.match(md, /INVALID lever entry: entry 1 \(no after\): after must be a number/);
    assert.deepEqual(readLevers(join(dir, 'missing.json')).invalid, [`${join(dir, 'missing.json')} does not exist`]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('should judge a fault-free Kafka run that fetched pages twice as failed, run by run', () => {
  const web = crawl('x', 1).web;
  const res = results([crawl('kafka-1w', 200), crawl('kafka-2w', 200, { web: { ...web, pageRequests: web.pageRequests + 37 } })]);
  const section = kafkaCostSection(res).join('\n');
  assert.match(section, /\| pages fetched more than once, kafka-1w \(no faults\) \| 0 \| 0 \| ✓ \|/);
  assert.match(section, /\| pages fetched more than once, kafka-2w \(no faults\) \| 37 \| 0 \| ✗ \|/);
});

test('should pool each Kafka arm\'s rounds, CPU of all over pages of all, for the ratios', () => {
  // Round 1: one worker 4 s, two 6 s (1.5); round 2, the machine slower: one 6 s, two 6 s (1.0). Pooled: 12 / 10 = 1.2.
  const res = results([crawl('kafka-1w', 200), crawl('kafka-2w', 200, { cpuSeconds: 6 }), crawl('kafka-2w#2', 200, { cpuSeconds: 6 }), crawl('kafka-1w#2', 200, { cpuSeconds: 6 })]);
  const section = kafkaCostSection(res).join('\n');
  assert.match(section, /\| CPU-ms per page, 2 workers ÷ 1 worker \(workers' whole life, rounds pooled\) \| 1\.20 \| ≤ 1\.1 \| ✗ \|/);
  assert.match(section, /Each arm ran 2 times, in ABBA order/);
  assert.equal(pooledMsPerPage([crawl('a', 1), crawl('b', 1, { cpuSeconds: 8 })], (r) => r.cpuSeconds), 6);
  assert.equal(pooledMsPerPage([crawl('a', 1), crawl('b', 1)], (r) => (r.name === 'b' ? undefined : r.cpuSeconds)), null, 'a round without the figure');
});

test('the engine row says it is the fastest of several runs, with their median and slowest', () => {
  const e = { records: 200_000, cpuSeconds: 1.04, cpuMicrosPerRecord: 5.2 } as EngineResult;
  assert.equal(engineRuns(e), '', 'one run: nothing to add');
  assert.equal(engineRuns({ ...e, runsMicrosPerRecord: [6.1, 5.2, 7.4, 5.8] }), ', the fastest of 4 runs (median 5.95, slowest 7.4 µs/record)');
});

test('should judge a long crawl on more hosts and one on the same hosts deeper apart, each named by its web', () => {
  const emb = crawl('embedded', 500, { peakRssMb: 700 });
  const wide = crawl('embedded-large', 400, { hosts: 200, pagesPerHost: 50, pages: 10_000, peakRssMb: 910 });
  const deep = crawl('embedded-large-deep', 475, { hosts: 20, pagesPerHost: 500, pages: 10_000, peakRssMb: 770 });
  const res = results([emb], { large: wide, largeDeep: deep });
  const wideRss = target(res, 'peak RSS at 100k pages ÷ at 10k pages');
  assert.deepEqual([wideRss.value, wideRss.ok], [1.3, false]);
  assert.match(wideRss.how, /200 hosts × 50 pages/);
  const deepRss = target(res, 'peak RSS at 100k pages ÷ at 10k, the same hosts deeper');
  assert.deepEqual([deepRss.value, deepRss.ok], [1.1, true]);
  assert.match(deepRss.how, /20 hosts × 500 pages/);
  assert.deepEqual([target(res, 'pages/s at 100k ÷ at 10k, the same hosts deeper').value, target(res, 'pages/s at 100k ÷ at 10k, the same hosts deeper').ok], [0.95, true]);
  const md = renderMarkdown(res, { levers: [], invalid: [] });
  assert.match(md, /## Large run, 200 hosts × 50 pages/);
  assert.match(md, /## Large run, 20 hosts × 500 pages/);
  assert.match(md, /\| embedded-large-deep \| bench 20×500 \|/);
});
