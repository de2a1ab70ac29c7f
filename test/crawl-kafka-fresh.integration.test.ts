// test-plan: e2e paced ~115s
// On Kafka with two workers: a recrawling crawl with one worker killed -9 midway, and eight host names
// on one address. Judged from the test server's own log, with margins that do not depend on timing.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SHARED_NAMES, sharedName } from '../test-web/scenario-shared.js';
import type { SyntheticWeb, WebRequest } from '../test-web/synthetic-web.js';
import { assertPolite, assertRobotsFirst, peakConcurrency } from './support/crawl-checks.js';
import { kafkaCrawl, stopCrawl, type KafkaCrawl } from './support/kafka-crawl.js';

const DELAY_MS = 100;
const on = (web: SyntheticWeb, host: string) => (r: WebRequest) => r.host === new URL(web.origin(host)).host;

describe('Kafka: recrawl with a worker killed -9, and politeness per server address', () => {
  let fresh: KafkaCrawl | undefined;
  let shared: KafkaCrawl | undefined;
  after(async () => {
    await stopCrawl(fresh);
    await stopCrawl(shared);
  });

  it('should keep recrawling politely after a worker dies, changing pages more often than unchanging ones', async () => {
    fresh = await kafkaCrawl('fresh', { after: 80, act: (c) => c.workers[0].child.kill('SIGKILL') }, {
      // One page of each kind: with three, a pages host at 100 ms delay could not keep up under load
      // (two cores shared with other crawls) and the changing pages waited behind the others.
      scenario: 'fresh',
      fresh: { pages: 1 },
      seedFlags: ['--default-delay-ms', String(DELAY_MS), '--recrawl', '--recrawl-min-interval', '2s', '--recrawl-max-interval', '60s'],
      runForMs: 90_000,
    });
    const { web } = fresh;
    assertPolite(web, DELAY_MS);
    assertRobotsFirst(web.requests);
    const pages = web.requests.filter(on(web, 'fresh-pages'));
    const n = web.fresh!.pages;
    const always = pages.filter((r) => r.path.startsWith('/always/')).length / n;
    const never = pages.filter((r) => r.path.startsWith('/never/'));
    assert.ok(always >= 3 * (never.length / n), `${always} fetches per always-changing page, ${never.length / n} per never-changing one`);
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
