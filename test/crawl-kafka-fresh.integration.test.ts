// test-plan: e2e paced ~70s
// On Kafka with two workers: a recrawling crawl with one worker killed -9 midway, and eight host names
// on one address. Judged from the test server's own log, with margins that do not depend on timing.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SHARED_NAMES, sharedName } from '../test-web/scenario-shared.js';
import { now, type SyntheticWeb, type WebRequest } from '../test-web/synthetic-web.js';
import { assertPolite, assertRobotsFirst, peakConcurrency } from './support/crawl-checks.js';
import { kafkaCrawl, stopCrawl, type KafkaCrawl } from './support/kafka-crawl.js';

const DELAY_MS = 100;
const on = (web: SyntheticWeb, host: string) => (r: WebRequest) => r.host === new URL(web.origin(host)).host;
const count = (requests: WebRequest[], path: RegExp) => requests.filter((r) => path.test(r.path)).length;

/**
 * What the recrawl test needs to have seen, on the server's clock, once a worker was killed at
 * `killedAt`: both kinds of page fetched again since, changing ones at least three times as often
 * with a fetch to spare (one may still land while the workers stop), and every page only a sitemap lists.
 */
function recrawlShown(web: SyntheticWeb, killedAt: number): boolean {
  const pages = web.requests.filter(on(web, 'fresh-pages'));
  const since = pages.filter((r) => r.startedAt > killedAt);
  const requested = new Set(web.requests.map((r) => `http://${r.host}${r.path}`));
  return count(since, /^\/never\//) >= web.fresh!.pages && count(since, /^\/always\//) >= 3 * web.fresh!.pages &&
    count(pages, /^\/always\//) >= 3 * (count(pages, /^\/never\//) + 1) && web.fresh!.sitemapListed.every((u) => requested.has(u));
}

describe('Kafka: recrawl with a worker killed -9, and politeness per server address', () => {
  let fresh: KafkaCrawl | undefined;
  let shared: KafkaCrawl | undefined;
  after(async () => {
    await stopCrawl(fresh);
    await stopCrawl(shared);
  });

  it('should keep recrawling politely after a worker dies, changing pages more often than unchanging ones', async () => {
    let killedAt = Infinity;
    const kill = (c: KafkaCrawl) => {
      killedAt = now();
      c.workers[0].child.kill('SIGKILL');
    };
    // Until the server has seen what the assertions need, at most 90 s: a minimum interval of 1 s
    // gives the ~30 intervals the ratio needs (a never-changing page's interval grows 1.5-fold).
    fresh = await kafkaCrawl('fresh', { after: 80, act: kill }, {
      // One page of each kind: with three, a pages host at 100 ms delay could not keep up under load
      // (two cores shared with other crawls) and the changing pages waited behind the others.
      scenario: 'fresh',
      fresh: { pages: 1 },
      seedFlags: ['--default-delay-ms', String(DELAY_MS), '--recrawl', '--recrawl-min-interval', '1s', '--recrawl-max-interval', '30s'],
      runForMs: 90_000,
      stopWhen: (web) => recrawlShown(web, killedAt),
    });
    const { web } = fresh;
    assertPolite(web, DELAY_MS);
    assertRobotsFirst(web.requests);
    const pages = web.requests.filter(on(web, 'fresh-pages'));
    const n = web.fresh!.pages;
    const always = pages.filter((r) => r.path.startsWith('/always/')).length / n;
    const never = pages.filter((r) => r.path.startsWith('/never/'));
    assert.ok(always >= 3 * (never.length / n), `${always} fetches per always-changing page, ${never.length / n} per never-changing one`);
    assert.ok(pages.some((r) => r.startedAt > killedAt && r.path.startsWith('/never/')), 'never-changing pages were recrawled after the kill');
    for (let i = 1; i <= n; i++) {
      const page = never.filter((r) => r.path === `/never/${i}`).sort((a, b) => a.startedAt - b.startedAt);
      assert.ok(page.length >= 2, `/never/${i} was recrawled`);
      assert.deepEqual(page.slice(1).filter((r) => !r.conditional).length, 0, `every refetch of /never/${i} is conditional`);
    }
    const requested = new Set(web.requests.map((r) => `http://${r.host}${r.path}`));
    assert.deepEqual(web.fresh!.sitemapListed.filter((u) => !requested.has(u)), [], 'every page only a sitemap lists');
    assert.equal(requested.has(web.fresh!.sitemapForeign), false);
  });

  it('should never have more than 2 requests in flight to one address shared by eight names, across two workers', async () => {
    shared = await kafkaCrawl('shared', undefined, {
      scenario: 'shared',
      seedFlags: (web) => [
        '--default-delay-ms', '0', '--no-sitemaps',
        ...Array.from({ length: SHARED_NAMES }, (_, i) => ['--resolve', `${sharedName(i + 1)}=${web.endpoints.address}`]).flat(),
      ],
    });
    assert.equal(shared.idle.code, 0, shared.idle.stderr);
    assert.ok(peakConcurrency(shared.web.requests) <= 2, `${peakConcurrency(shared.web.requests)} in flight to one address`);
  });
});
