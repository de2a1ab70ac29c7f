import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultCrawlConfig } from '../contract/config.js';
import { Politeness, type PolitenessRecord } from './politeness.js';
import { emptyBook, opened, type Lease } from './leases.js';
import { newRobotsState } from './robots-gate.js';
import { memoryTexts, outcome, robotsAnswer } from './testing/outcomes.js';

const T = 1_000_000;
const lease: Lease = { id: 'h#1', epoch: 0, releasedAt: T, queued: false, kind: 'urls', owed: [], count: 1, size: 1 };

function record(p: Politeness): PolitenessRecord {
  return { slot: p.newSlot(), robots: newRobotsState(), leases: emptyBook() };
}

describe('politeness: the one API the schedule asks', () => {
  it('should time a host\'s next lease from its record: the default delay, then its Crawl-delay, nothing while a lease is out', () => {
    const p = new Politeness(memoryTexts(), defaultCrawlConfig({ defaultDelayMs: 1000 }), () => 0);
    const h = record(p);
    assert.equal(p.nextAllowedStart(h), 0);
    h.robots = p.robots.afterFetch('h', 'http', h.robots, robotsAnswer('http://h/robots.txt', T, 'User-agent: *\nCrawl-delay: 4\n'), T).state;
    p.freed(h, lease, outcome('http://h/a', T + 100), T + 100);
    assert.equal(p.nextAllowedStart(h), T + 100 + 4000, 'the Crawl-delay read applies to the next request');
    h.leases = opened(h.leases, lease, T + 200);
    assert.equal(p.nextAllowedStart(h), Infinity);
    assert.equal(p.lostAt(h), T + 200 + 4000 + 60_000 + 60_000, 'the lost-lease guard counts the host\'s delay');
  });

  it('should say when the server throttled a request or it failed', () => {
    const p = new Politeness(memoryTexts(), defaultCrawlConfig(), () => 0);
    assert.deepEqual(p.freed(record(p), lease, outcome('http://h/a', T, { status: 429 }), T), { throttled: true, failed: false });
    assert.deepEqual(p.freed(record(p), lease, outcome('http://h/a', T, { status: 502 }), T), { throttled: false, failed: true });
    assert.deepEqual(p.freed(record(p), lease, outcome('http://h/a', T), T), { throttled: false, failed: false });
  });

  const sizes: { name: string; pagesLeft: number; size: number }[] = [
    { name: 'one until the loop is measured', pagesLeft: 10_000, size: 1 },
    { name: 'never more than a quarter of the page budget left', pagesLeft: 2, size: 1 },
  ];
  for (const s of sizes) {
    it(`should size a lease: ${s.name}`, () => {
      const p = new Politeness(memoryTexts(), defaultCrawlConfig({ defaultDelayMs: 0 }), () => 0);
      assert.equal(p.leaseSize(record(p), s.pagesLeft), s.size);
    });
  }

  it('should size leases from the measured loop, within the page budget', () => {
    const p = new Politeness(memoryTexts(), defaultCrawlConfig({ defaultDelayMs: 0 }), () => 0);
    const h = record(p);
    p.freed(h, lease, outcome('http://h/', T + 210, { fetch_id: 'h#1' }), T + 210); // a 200 ms loop, a 10 ms fetch
    assert.equal(p.loopMs, 200);
    assert.equal(p.leaseSize(h, 10_000), 21);
    assert.equal(p.leaseSize(h, 40), 10);
  });
});
