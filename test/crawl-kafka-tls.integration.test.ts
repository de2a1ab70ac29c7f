// test-plan: e2e paced ~32s
// On Kafka with two workers: HTTPS with the test CA given to `seed` as --ca-file (carried to every
// worker as content), hosts with bad certificates, and a feed under --recrawl whose new stories must
// be fetched within twice its publishing interval. Judged from the servers' log and ClickHouse.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { STORY_EVERY_MS } from '../test-web/scenario-tls.js';
import type { SyntheticWeb, WebRequest } from '../test-web/synthetic-web.js';
import { query } from './support/cli.js';
import { assertPolite, assertRobotsFirst } from './support/crawl-checks.js';
import { kafkaCrawl, stopCrawl, type KafkaCrawl } from './support/kafka-crawl.js';

const DELAY_MS = 100;
const RUN_MS = 60_000; // from seeding, a bound: the crawl stops once the server has seen what the tests judge
/** New stories (not in the feed's backlog) judged before the crawl stops. */
const NEW_STORIES_JUDGED = 2;

const requestedUrls = (requests: WebRequest[]) => new Set(requests.map((r) => `${r.hostHeader?.startsWith('plain.') ? 'http' : 'https'}://${r.hostHeader}${r.path}`));
// shop's sitemaps take longer than the run on a loaded machine
const wwwAndPlain = (web: SyntheticWeb) => web.tls!.goodPages.filter((u) => !u.includes('//shop.'));

/**
 * Each story that appeared while the crawl read the feed and was listed by a feed fetch followed by
 * two more: whether it was fetched before the second of them (within two intervals of appearing).
 */
function storiesJudged(web: SyntheticWeb): { k: number; isNew: boolean; fetched: number | undefined; inTime: boolean }[] {
  const feed = web.requests.filter((r) => r.path === '/feed.rss').map((r) => r.startedAt).sort((a, b) => a - b);
  const first = (k: number) => web.requests.filter((r: WebRequest) => r.path === `/story/${k}`).map((r) => r.startedAt).sort((a, b) => a - b)[0];
  const judged = [];
  for (let k = 0; web.tls!.storyAt(k) < Infinity; k++) {
    const listing = feed.findIndex((t) => t >= web.tls!.storyAt(k));
    if (listing < 0 || listing + 2 >= feed.length) break; // the crawl stopped before the feed came round twice more
    const fetched = first(k);
    judged.push({ k, isNew: web.tls!.storyAt(k) > feed[0], fetched, inTime: fetched !== undefined && fetched <= feed[listing + 2] });
  }
  return judged;
}

describe('Kafka: TLS with --ca-file given to seed, and a feed under --recrawl', () => {
  let c: KafkaCrawl;
  before(async () => {
    c = await kafkaCrawl('tls', undefined, {
      scenario: 'tls',
      seedFlags: (web) => ['--default-delay-ms', String(DELAY_MS), ...web.tls!.crawlFlags, '--recrawl', '--recrawl-min-interval', `${STORY_EVERY_MS}ms`, '--recrawl-max-interval', '60s'],
      runForMs: RUN_MS,
      stopWhen: (web) => {
        const requested = requestedUrls(web.requests);
        return wwwAndPlain(web).every((u) => requested.has(u)) && storiesJudged(web).filter((j) => j.isNew).length >= NEW_STORIES_JUDGED;
      },
    });
  });
  after(() => stopCrawl(c));

  it('should fetch the trusted HTTPS hosts politely, robots.txt first, and refuse bad certificates with rows saying why', async () => {
    assertPolite(c.web, DELAY_MS);
    assertRobotsFirst(c.web.requests);
    const requested = requestedUrls(c.web.requests);
    assert.deepEqual(wwwAndPlain(c.web).filter((u) => !requested.has(u)), []);
    const rows = await query<{ reason: string }>('', "SELECT DISTINCT extract(error, '^tls: ([a-z-]+)') AS reason FROM fetches FINAL WHERE error LIKE 'tls:%' ORDER BY reason",
      ['--clickhouse-url', c.chUrl]);
    assert.deepEqual(rows.map((r) => r.reason), ['expired', 'name-mismatch', 'self-signed']);
  });

  it('should refetch the feed after its publishing interval, and fetch each new story before the feed comes round twice', async () => {
    // The decision, from the feed's own dates: its recrawl interval is how often it gains a story.
    const rows = await query<{ interval: string }>('', "SELECT recrawl_interval_ms AS interval FROM fetches FINAL WHERE url LIKE '%/feed.rss' ORDER BY started_at_ms",
      ['--clickhouse-url', c.chUrl]);
    assert.ok(rows.length >= 3, `the feed was fetched ${rows.length} times`);
    const off = rows.map((r) => Number(r.interval)).filter((ms) => Math.abs(ms - STORY_EVERY_MS) > 1000);
    assert.deepEqual(off, [], `every interval within a second of ${STORY_EVERY_MS} ms`);
    // What follows from it, told in the crawl's own events so that a loaded machine slows both alike: the
    // fetch after a story appeared lists it, and the story is fetched before the feed's next fetch
    // after that one, i.e. within two intervals of its appearing.
    const judged = storiesJudged(c.web);
    assert.ok(judged.some((j) => j.isNew), `${judged.filter((j) => j.isNew).length} stories appeared while the crawl read the feed and were judged`);
    assert.deepEqual(judged.filter((j) => !j.inTime).map((j) => `story ${j.k}: ${j.fetched === undefined ? 'never fetched' : 'fetched after the feed came round twice'}`), []);
  });
});
