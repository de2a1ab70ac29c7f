// test-plan: e2e paced ~65s
// A focused crawl of the topic web (~4,300 pages, 345 on beekeeping, seeds on general portals) beside
// an unfocused one, judged from the server's own log against the web's own definition of which pages
// are on the topic: the harvest rate over the first 500 pages fetched, the share of the on-topic pages
// fetched within a budget of three times their number, politeness and robots.txt. The focused crawl's
// results are then rescored from `fetched` with other examples, without a request.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb, type WebRequest } from '../test-web/synthetic-web.js';
import { decoyText } from '../focus/testing/topic-texts.js';
import { query, runCli, type CliRun } from './support/cli.js';
import { assertNeverFetched, assertPolite, assertRobotsFirst, canonicalOf } from './support/crawl-checks.js';

const DELAY_MS = 20;
const FIRST = 500;

function folder(dir: string, texts: string[]): string {
  mkdirSync(dir);
  texts.forEach((t, i) => writeFileSync(join(dir, `page-${i}.txt`), t));
  return dir;
}

/** Page requests in the order the server saw them, robots.txt left out. */
function pageRequests(requests: WebRequest[]): WebRequest[] {
  return requests.filter((r) => r.path !== '/robots.txt').sort((a, b) => a.startedAt - b.startedAt);
}

function harvest(pages: WebRequest[], onTopic: Set<string>, first: number): number {
  const head = pages.slice(0, first);
  return head.filter((r) => onTopic.has(canonicalOf(r))).length / head.length;
}

describe('a focused crawl of the topic web', () => {
  let web: SyntheticWeb;
  let dir: string;
  let onTopic: Set<string>;
  const runs: Record<'plain' | 'focused', { run: CliRun; requests: WebRequest[]; dataDir: string }> = {} as never;

  before(async () => {
    web = await startSyntheticWeb({ scenario: 'topic' });
    onTopic = new Set(web.topic!.onTopic);
    dir = mkdtempSync(join(tmpdir(), 'focus-e2e-'));
    const examples = folder(join(dir, 'examples'), web.topic!.examples);
    const crawl = async (name: 'plain' | 'focused', extra: string[]) => {
      const dataDir = join(dir, name);
      web.resetLog();
      const run = await runCli(['crawl', ...web.seeds, '--data-dir', dataDir, '--allow-network', '127.0.0.0/8', '--default-delay-ms', String(DELAY_MS),
        '--no-sitemaps', '--quiet', ...extra]);
      assert.equal(run.code, 0, run.stderr);
      runs[name] = { run, requests: [...web.requests], dataDir };
    };
    // Unfocused, only as far as the harvest is measured; focused, with the budget of the targets.
    await crawl('plain', ['--max-pages', String(FIRST)]);
    await crawl('focused', ['--max-pages', '1000', '--focus-examples', examples]);
  });
  after(() => web?.close());

  it('should fetch pages on the topic at five times the unfocused rate, and at least 0.3, over the first 500 pages', () => {
    const plain = harvest(pageRequests(runs.plain.requests), onTopic, FIRST);
    const focused = harvest(pageRequests(runs.focused.requests), onTopic, FIRST);
    process.stdout.write(`# harvest over the first ${FIRST} pages: unfocused ${plain.toFixed(3)}, focused ${focused.toFixed(3)}\n`);
    assert.ok(focused >= 0.3, `focused harvest ${focused.toFixed(3)}`);
    assert.ok(focused >= 5 * plain, `focused ${focused.toFixed(3)} against unfocused ${plain.toFixed(3)}`);
    assert.match(runs.focused.run.stderr, /focus: 6 example page\(s\), soft mode, relevance threshold 0\.\d+ \(chosen from the examples/);
    assert.match(runs.focused.run.stdout, /harvest 0\.\d\d \(\d+ of \d+ pages on the topic\)/);
  });

  it('should fetch 80 % of the on-topic pages within a budget of three times their number', () => {
    const pages = pageRequests(runs.focused.requests);
    const budget = Math.min(3 * onTopic.size, pages.length);
    const found = new Set(pages.slice(0, budget).map(canonicalOf).filter((u) => onTopic.has(u)));
    process.stdout.write(`# ${found.size} of ${onTopic.size} on-topic pages within the first ${budget} pages\n`);
    assert.ok(found.size / onTopic.size >= 0.8, `${found.size} of ${onTopic.size}`);
  });

  it('should stay polite and obey robots.txt, focused or not', () => {
    for (const { requests } of Object.values(runs)) {
      assertPolite(web, DELAY_MS, requests);
      assertRobotsFirst(requests);
      assertNeverFetched(web, requests);
    }
  });

  it('should record each page\'s relevance and the harvest rate per minute, and report it', async () => {
    const { dataDir } = runs.focused;
    const [f] = await query<Record<string, string | number>>(dataDir,
      'SELECT (SELECT sum(pages) FROM focus_harvest) AS pages, (SELECT sum(judged) FROM focus_harvest) AS judged, ' +
      '(SELECT sum(relevant) FROM focus_harvest) AS relevant, (SELECT countIf(relevance >= 0) FROM pages) AS scored, ' +
      '(SELECT min(relevance) FROM pages) AS low, (SELECT max(relevance) FROM pages) AS high');
    assert.equal(Number(f.pages), 1000, 'every page fetch, robots.txt aside');
    assert.equal(Number(f.judged), Number(f.scored), 'each page judged once');
    // The model's verdicts against the web's own truth: about as many judged relevant as the crawl
    // fetched on-topic pages (a fixed count passed or failed with the crawl's order).
    const fetchedOnTopic = new Set(pageRequests(runs.focused.requests).map(canonicalOf).filter((u) => onTopic.has(u))).size;
    assert.ok(Number(f.relevant) >= 0.8 * fetchedOnTopic && Number(f.relevant) < Number(f.judged), `${JSON.stringify(f)}; ${fetchedOnTopic} on-topic pages fetched`);
    assert.ok(Number(f.low) >= 0 && Number(f.high) <= 1);
    const [plain] = await query<Record<string, string | number>>(runs.plain.dataDir, 'SELECT countIf(relevance >= 0) AS judged, count() AS n FROM parsed_pages');
    assert.equal(Number(plain.judged), 0, 'an unfocused crawl judges nothing');
    const out = join(dir, 'report.html');
    const report = await runCli(['report', '--data-dir', dataDir, '--out', out]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(readFileSync(out, 'utf8'), /<figure data-chart="focus-harvest-rate-over-time">[\s\S]*?<svg[\s\S]*?class="mark/);
  });

  it('should rescore every page from fetched with other examples, without a request', async () => {
    const { dataDir } = runs.focused;
    const honey = folder(join(dir, 'honey'), [0, 1, 2, 3].map((i) => decoyText(`replay-${i}`, 'honeyfood')));
    const judged = () => query<{ host: string; relevant: string; judged: string }>(dataDir,
      'SELECT host, countIf(relevance >= focus_threshold) AS relevant, count() AS judged FROM parsed_pages FINAL WHERE relevance >= 0 GROUP BY host');
    const decoyHost = web.hosts.find((h) => h.name === 'decoy-honeyfood')!.address;
    const relevantOn = (rows: { host: string; relevant: string }[], address: string) => Number(rows.find((r) => r.host.startsWith(`${address}:`))?.relevant ?? 0);
    const before = await judged();
    const requests = web.requests.length;
    const replay = await runCli(['replay', '--from', 'fetched', '--processors', 'parse,sink', '--focus-examples', honey, '--data-dir', dataDir]);
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(web.requests.length, requests, 'a replay fetches nothing');
    const after = await judged();
    const total = (rows: { judged: string }[]) => rows.reduce((n, r) => n + Number(r.judged), 0);
    assert.equal(total(after), total(before), 'every page judged again, none twice');
    const topicHost = web.hosts.find((h) => h.name === 'topic-1')!.address;
    assert.ok(relevantOn(before, topicHost) > 30 && relevantOn(after, topicHost) === 0, 'beekeeping pages are off this topic');
    const decoyJudged = Number(before.find((r) => r.host.startsWith(`${decoyHost}:`))?.judged ?? 0);
    assert.ok(decoyJudged > 0, 'the focused crawl met honey recipes, the decoys');
    assert.equal(relevantOn(before, decoyHost), 0, 'off the topic of the first examples');
    assert.ok(relevantOn(after, decoyHost) > decoyJudged / 2, 'on the topic of the new ones');
    const unfocused = await runCli(['replay', '--from', 'fetched', '--since', '2099-01-01', '--data-dir', dataDir]);
    assert.equal(unfocused.code, 0, unfocused.stderr);
    assert.match(unfocused.stderr, /judged by a focused crawl; this replay has no --focus-examples or --focus-module, so the rows it writes are unjudged/);
  });
});
