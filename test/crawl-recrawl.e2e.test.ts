// test-plan: e2e ~70s
// A crawl that never goes stale, judged from the test server's own log: a --recrawl run of a few dozen
// minimum intervals over pages that change at every visit, never change (with validators) or change
// now and then, a news front page that gains stories, a host reachable only through its sitemaps; a
// page budget spent on hubs; and a recrawling crawl killed with -9 and resumed with its due times.
// The three crawls are independent (a web each) and run side by side: the file costs the longest.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SyntheticWeb, WebRequest } from '../test-web/synthetic-web.js';
import { HUBS } from '../test-web/scenario-fresh.js';
import { query, runCli, signalWhen, type CliRun } from './support/cli.js';
import { assertPolite, assertRobotsFirst } from './support/crawl-checks.js';
import { crawlArgs, fewestNeverChangingFetches, neverChangingPages, testWeb } from './support/test-crawl.js';

const DELAY_MS = 100;
const RECRAWL = ['--recrawl', '--recrawl-min-interval', '2s', '--recrawl-max-interval', '60s'];
// The long run's time scale: 60 minimum intervals, of which a loaded machine may spend 15 starting
// (the ratio asserted needs about 40 of crawling: over n intervals a page that never changes is
// fetched about log1.5(n) + 1 times), a story every 4 intervals, fetched within 3 stories' time. One page of each kind: with three, the pages
// host (one request at a time, 100 ms apart) could not keep up with what falls due at this minimum
// on a loaded machine, and the always-changing pages' rate would measure the host's capacity.
const MIN_INTERVAL_MS = 1000;
const RUN_FOR_MS = 60 * MIN_INTERVAL_MS;
const STORY_EVERY_MS = 4 * MIN_INTERVAL_MS;
const STORY_WITHIN_MS = 3 * STORY_EVERY_MS;

const on = (web: SyntheticWeb, host: string) => (r: WebRequest) => r.host === new URL(web.origin(host)).host;
const count = (requests: WebRequest[], path: RegExp) => requests.filter((r) => path.test(r.path)).length;

// Side by side; the tests within each (sharing its crawl) in order, as written.
describe('recrawl', { concurrency: true }, () => {
  describe('recrawl: 60 intervals over pages that change, do not change, and appear', { concurrency: 1 }, () => {
    const t = testWeb({ scenario: 'fresh', fresh: { storyEveryMs: STORY_EVERY_MS, pages: 1 } }, 'recrawl-');
    let run: CliRun;
    let started: number;

    before(async () => {
      started = Date.now();
      run = await runCli(crawlArgs(t.web, t.dataDir, { delayMs: DELAY_MS }, ['--recrawl', '--recrawl-min-interval', `${MIN_INTERVAL_MS}ms`,
        '--recrawl-max-interval', `${30 * MIN_INTERVAL_MS}ms`, '--run-for', `${RUN_FOR_MS}ms`]));
    });

    it('should run for the time asked, then stop with everything committed and exit 0', () => {
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^stopped after \d+ pages, \d+ of them recrawls/m);
    });

    it('should stay polite and read robots.txt first on every host', () => {
      assertPolite(t.web, DELAY_MS);
      assertRobotsFirst(t.web.requests);
    });

    it('should fetch pages that change at every visit at least 3 times as often as pages that never change', () => {
      const pages = t.web.requests.filter(on(t.web, 'fresh-pages'));
      const n = t.web.fresh!.pages;
      const always = count(pages, /^\/always\//) / n;
      const never = count(pages, /^\/never\//) / n;
      assert.ok(never >= 2, `never-changing pages were recrawled too (${never} fetches each)`);
      assert.ok(always >= 3 * never, `${always} fetches per always-changing page against ${never} per never-changing one`);
      const sometimes = count(pages, /^\/sometimes\//) / n;
      assert.ok(sometimes > never && sometimes < always, `pages that change now and then fall between: ${sometimes}`);
    });

    it('should refetch every page that gave validators conditionally, and record the 304s', async () => {
      const never = neverChangingPages(t.web);
      for (const page of never.values()) {
        assert.equal(page[0].conditional, false, 'the first fetch has nothing to be conditional on');
        assert.deepEqual(page.slice(1).filter((r) => !r.conditional).map((r) => r.path), [], 'every refetch is conditional');
        assert.ok(page.slice(1).every((r) => r.status === 304));
      }
      const [row] = await query<{ n: string }>(t.dataDir, "SELECT count() AS n FROM fetches FINAL WHERE status = 304 AND url LIKE '%/never/%'");
      const served304 = [...never.values()].flat().filter((r) => r.status === 304).length;
      assert.equal(Number(row.n), served304, 'one fetches row per 304 the server sent');
    });

    it('should fetch a new front-page story within a few intervals of its appearing', () => {
      const news = t.web.requests.filter(on(t.web, 'fresh-news'));
      const fresh = t.web.fresh!;
      const end = started + RUN_FOR_MS;
      // A story listed before the crawl first read the front page (it starts slowly on a loaded
      // machine) is due from that read, not from its listing.
      const frontRead = Math.min(...news.filter((r) => r.path === '/').map((r) => r.startedAt));
      for (let i = 1; fresh.storyAt(i) < end - STORY_WITHIN_MS; i++) {
        const first = news.filter((r) => r.path === `/story/${i}`).map((r) => r.startedAt).sort((a, b) => a - b)[0];
        assert.ok(first !== undefined, `story ${i} (listed ${Math.round((fresh.storyAt(i) - started) / 1000)} s in) was fetched`);
        // Wall clocks: the server's performance-based log against Date.now() of its own story schedule.
        const delay = first - Math.max(fresh.storyAt(i), frontRead);
        assert.ok(delay < STORY_WITHIN_MS, `story ${i} was fetched ${Math.round(delay / 1000)} s after it appeared`);
      }
    });

    it('should crawl a host through its sitemaps (index, gzip, plain text) and never the URL of another host they list', () => {
      const requested = new Set(t.web.requests.map((r) => `http://${r.host}${r.path}`));
      const fresh = t.web.fresh!;
      assert.deepEqual(fresh.sitemapListed.filter((u) => !requested.has(u)), [], 'every page only a sitemap lists');
      assert.equal(requested.has(fresh.sitemapForeign), false, 'a sitemap may not list another host\'s URLs');
    });
  });

  describe('priority: a page budget spent on what matters', { concurrency: 1 }, () => {
    const t = testWeb({ scenario: 'fresh' }, 'hubs-');

    it('should fetch all 5 hubs of a host of 60 leaves with --max-pages-per-host 40', async () => {
      const { web, dataDir } = t;
      const hubsRoot = web.seeds.find((s) => s.startsWith(web.origin('fresh-hubs')))!;
      const run = await runCli(['crawl', hubsRoot, '--data-dir', dataDir, '--allow-network', '127.0.0.0/8', '--default-delay-ms', '0',
        '--max-pages-per-host', '40', '--quiet']);
      assert.equal(run.code, 0, run.stderr);
      const hubs = web.requests.filter((r) => r.path.startsWith('/hub/'));
      const pages = web.requests.filter((r) => r.path !== '/robots.txt' && r.path !== '/sitemap.xml');
      assert.equal(new Set(hubs.map((r) => r.path)).size, HUBS, `hubs fetched: ${hubs.map((r) => r.path)}`);
      assert.equal(pages.length, 40, 'the budget is spent, not exceeded');
    });
  });

  describe('recrawl across kill -9: due times survive, no burst at restart', { concurrency: 1 }, () => {
    const t = testWeb({ scenario: 'fresh' }, 'recrawl-kill-');

    it('should resume recrawling where it stood, each never-changing page no earlier than its interval', async () => {
      const { web, dataDir } = t;
      const first = runCli(crawlArgs(web, dataDir, { delayMs: DELAY_MS }, [...RECRAWL, '--run-for', '300s']));
      // Killed once every never-changing page was fetched 4 times: its interval has grown to 6.75 s,
      // longer than a restart takes, so a resume that forgot its due times would come back early.
      await signalWhen(first, () => fewestNeverChangingFetches(web) >= 4, 'SIGKILL');
      assert.equal((await first).signal, 'SIGKILL');
      const before = [...web.requests];
      // Stopped (as Ctrl-C does) once every never-changing page came back; --run-for only bounds a failure.
      const again = runCli(crawlArgs(web, dataDir, { delayMs: DELAY_MS }, [...RECRAWL, '--run-for', '60s']));
      await signalWhen(again, () => fewestNeverChangingFetches(web, web.requests.slice(before.length)) >= 1, 'SIGINT');
      const resumed = await again;
      assert.equal(resumed.code, 0, resumed.stderr);
      assertPolite(web, DELAY_MS); // across the restart too
      const after = web.requests.slice(before.length);
      const interval = (fetches: number) => Math.min(60_000, 2_000 * 1.5 ** (fetches - 1));
      const early: string[] = [];
      const resumedFetches = neverChangingPages(web, after);
      for (const [path, pre] of neverChangingPages(web, before)) {
        const next = resumedFetches.get(path)![0];
        assert.ok(next, `${path} was recrawled after the restart`);
        const gap = next.startedAt - pre[pre.length - 1].startedAt;
        if (gap >= 0.9 * interval(pre.length)) continue;
        // The one fetch in flight at the kill (or not yet committed) is redone: it is due an interval
        // after the fetch before it (the last one committed), which may be as soon as the restart.
        const committed = pre[pre.length - 2];
        const sinceCommitted = committed ? next.startedAt - committed.startedAt : -1;
        assert.ok(sinceCommitted >= 0.9 * interval(pre.length - 1),
          `${path} came back ${Math.round(gap)} ms after its last fetch and ${Math.round(sinceCommitted)} ms after the one before, before its due time`);
        early.push(path);
      }
      assert.ok(early.length <= 1, `only a fetch cut off by the kill may be redone early: ${early.join(', ')}`);
    });
  });
});
