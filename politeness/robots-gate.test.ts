import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultCrawlConfig } from '../contract/config.js';
import { MAX_CRAWL_DELAY_KEPT_MS, newRobotsState, RobotsGate, type RobotsState } from './robots-gate.js';
import { memoryTexts, outcome, robotsAnswer } from './testing/outcomes.js';

const HOST = 'a.test';
const ROBOTS = `http://${HOST}/robots.txt`;
const T = 1_000_000;
const DAY = 24 * 60 * 60 * 1000;

function gate(over = {}) {
  return new RobotsGate(memoryTexts(), defaultCrawlConfig({ defaultDelayMs: 1000, maxAttempts: 3, ...over }), () => 0);
}

describe('robots gate: robots.txt first, per RFC 9309', () => {
  it('should fetch robots.txt first, then allow the host until the cache expires', () => {
    const g = gate();
    assert.deepEqual(g.decide(HOST, 'http', newRobotsState(), T), { kind: 'fetch', url: ROBOTS, attempt: 1, hops: 0 });
    const read = g.afterFetch(HOST, 'http', newRobotsState(), robotsAnswer(ROBOTS, T, 'User-agent: *\nDisallow: /private/\n'), T);
    assert.equal(read.outcome, 'rules');
    assert.deepEqual(g.decide(HOST, 'http', read.state, T + DAY - 1), { kind: 'ready' });
    assert.equal(g.decide(HOST, 'http', read.state, T + DAY).kind, 'fetch', 'read again after a day');
    assert.equal(g.allows(HOST, read.state, `http://${HOST}/private/x`), false);
    assert.equal(g.allows(HOST, read.state, `http://${HOST}/public`), true);
  });

  const answers: { name: string; status: number; body?: string; over?: object; outcome: string; status_after: RobotsState['status'] }[] = [
    { name: 'a 404: no restrictions', status: 404, outcome: 'allow-all', status_after: 'allow-all' },
    { name: 'a 403: no restrictions', status: 403, outcome: 'allow-all', status_after: 'allow-all' },
    { name: 'a 429: unreachable', status: 429, outcome: 'unreachable', status_after: 'unreachable' },
    { name: 'a 503: unreachable', status: 503, outcome: 'unreachable', status_after: 'unreachable' },
    { name: 'no answer: unreachable', status: 0, over: { error: 'connect: refused' }, outcome: 'unreachable', status_after: 'unreachable' },
    { name: 'a 200 cut short: incomplete', status: 200, body: 'User-agent: *\n', over: { error: 'body-incomplete: reset' }, outcome: 'incomplete', status_after: 'unreachable' },
    { name: 'a Crawl-delay over the bound: the host refused', status: 200, body: 'User-agent: *\nCrawl-delay: 120\n', outcome: 'crawl-delay-too-long', status_after: 'crawl-delay' },
    { name: 'a Crawl-delay of 1e308: refused, its delay kept in bounds', status: 200, body: 'User-agent: *\nCrawl-delay: 1e308\n', outcome: 'crawl-delay-too-long', status_after: 'crawl-delay' },
  ];
  for (const a of answers) {
    it(`should read ${a.name}`, () => {
      const g = gate();
      const r = robotsAnswer(ROBOTS, T, a.body ?? '', { status: a.status, ...a.over });
      const got = g.afterFetch(HOST, 'http', newRobotsState(), r, T);
      assert.equal(got.outcome, a.outcome);
      assert.equal(got.state.status, a.status_after);
      assert.ok(Number.isSafeInteger(got.state.crawlDelayMs) && got.state.crawlDelayMs <= MAX_CRAWL_DELAY_KEPT_MS);
    });
  }

  it('should use a Crawl-delay within the bound as the host\'s delay, and never less than the default', () => {
    const g = gate();
    const slow = g.afterFetch(HOST, 'http', newRobotsState(), robotsAnswer(ROBOTS, T, 'User-agent: *\nCrawl-delay: 3\n'), T);
    assert.equal(g.delayOf(slow.state), 3000);
    const fast = g.afterFetch(HOST, 'http', newRobotsState(), robotsAnswer(ROBOTS, T, 'User-agent: *\nCrawl-delay: 0.1\n'), T);
    assert.equal(g.delayOf(fast.state), 1000);
  });

  it('should refuse a host whose Crawl-delay is too long, say why, and read robots.txt again after the cache period', () => {
    const g = gate();
    const got = g.afterFetch(HOST, 'http', newRobotsState(), robotsAnswer(ROBOTS, T, 'User-agent: *\nCrawl-delay: 1e308\n'), T);
    assert.deepEqual(g.decide(HOST, 'http', got.state, T + 1), { kind: 'refuse', reason: 'crawl-delay-too-long', until: T + DAY });
    assert.equal(g.refusalDetail(got.state, 'crawl-delay-too-long'), `Crawl-delay at least ${MAX_CRAWL_DELAY_KEPT_MS} ms > 60000 ms`);
    assert.equal(g.decide(HOST, 'http', got.state, T + DAY).kind, 'fetch');
  });

  it('should retry an unreachable robots.txt on the backoff curve, then give the host up for the cache period', () => {
    const g = gate();
    let s = newRobotsState();
    let now = T;
    const retries: number[] = [];
    for (let i = 0; i < 3; i++) {
      assert.equal(g.decide(HOST, 'http', s, now - 1).kind, i === 0 ? 'fetch' : 'wait');
      assert.deepEqual(g.decide(HOST, 'http', s, now), { kind: 'fetch', url: ROBOTS, attempt: i + 1, hops: 0 });
      s = g.afterFetch(HOST, 'http', s, outcome(ROBOTS, now, { kind: 'robots', status: 503 }), now).state;
      retries.push(s.retryAt - now);
      now = s.retryAt;
    }
    assert.deepEqual(retries.slice(0, 2), [2000, 4000], 'doubling from twice the delay');
    const gaveUpAt = now - retries[2];
    assert.equal(s.gaveUpUntil, gaveUpAt + DAY);
    assert.deepEqual(g.decide(HOST, 'http', s, now), { kind: 'refuse', reason: 'robots-unreachable', until: gaveUpAt + DAY });
    assert.equal(g.decide(HOST, 'http', s, gaveUpAt + DAY).kind, 'fetch', 'a fresh round of attempts after the give-up period');
  });

  it('should wait for the retry time between attempts, and honour a Retry-After', () => {
    const g = gate();
    const s = g.afterFetch(HOST, 'http', newRobotsState(), outcome(ROBOTS, T, { kind: 'robots', status: 503, retry_after_ms: 30_000 }), T).state;
    assert.deepEqual(g.decide(HOST, 'http', s, T + 1), { kind: 'wait', until: T + 30_000 });
  });

  it('should keep the rules it has when a daily refresh fails, for a backoff', () => {
    const g = gate();
    const read = g.afterFetch(HOST, 'http', newRobotsState(), robotsAnswer(ROBOTS, T, 'User-agent: *\nDisallow: /x\n'), T).state;
    const failed = g.afterFetch(HOST, 'http', read, outcome(ROBOTS, T + DAY, { kind: 'robots', status: 500 }), T + DAY);
    assert.equal(failed.outcome, 'refresh-failed');
    assert.deepEqual(g.decide(HOST, 'http', failed.state, T + DAY + 1), { kind: 'ready' });
    assert.equal(g.allows(HOST, failed.state, `http://${HOST}/x`), false);
  });

  it('should follow a redirect of robots.txt up to the hop limit, then read it as unavailable', () => {
    const g = gate({ maxRedirects: 1 });
    const hop = g.afterFetch(HOST, 'http', newRobotsState(), outcome(ROBOTS, T, { kind: 'robots', status: 301, final_url: `http://${HOST}/r2` }), T);
    assert.equal(hop.outcome, 'redirect');
    assert.deepEqual(g.decide(HOST, 'http', hop.state, T), { kind: 'fetch', url: `http://${HOST}/r2`, attempt: 1, hops: 1 });
    const again = g.afterFetch(HOST, 'http', hop.state, outcome(`http://${HOST}/r2`, T, { kind: 'robots', status: 301, final_url: `http://${HOST}/r3` }), T);
    assert.equal(again.outcome, 'allow-all');
  });
});
