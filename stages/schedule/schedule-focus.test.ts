// The frontier of a focused crawl: a host's URLs by score, a URL raised by a better link, and the
// gate that orders hosts by their best URL — which may hold a host back but never bring one forward.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlTestDriver, type CrawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import { NO_HINTS, PLAIN_RESULT, type CanonicalEntry, type CanonicalUrl, type FetchRequest, type FetchResult } from '../../schemas/records.js';
import { FocusGate, focusGateFor } from '../../focus/focus-gate.js';

const DELAY = 1000;

function url(host: string, path: string, score: number, more: CanonicalEntry[] = []): CanonicalUrl {
  return { url: `http://${host}${path}`, host, depth: 1, source_url: '', via: 'link', redirect_hops: 0, discovered_at: 0, ...NO_HINTS, inlinks: 1, score, more };
}

/** Another URL of the same batch. */
const entry = (host: string, path: string, score: number): CanonicalEntry => ({ url: `http://${host}${path}`, ...NO_HINTS, inlinks: 1, score });

function done(req: FetchRequest, d: CrawlTestDriver, body = ''): FetchResult {
  return {
    ...PLAIN_RESULT, fetch_id: req.fetch_id, url: req.url, host: req.host, kind: req.kind, depth: req.depth, attempt: req.attempt, via: req.via,
    source_url: req.source_url, redirect_hops: req.redirect_hops, status: 200, error: '', final_url: req.url, redirect_chain: [], headers: {},
    started_at: d.now - 10, elapsed_ms: 10, ttfb_ms: 5, bytes: body.length, wire_bytes: body.length, content_type: 'text/plain', charset: '',
    truncated: false, retry_after_ms: 0, conditional: false, remote_address: '', body_encoding: 'identity', body: Buffer.from(body),
  };
}

async function driver(gate?: FocusGate) {
  return crawlTestDriver({ processors: ['schedule'], config: { defaultDelayMs: DELAY, sitemaps: false }, services: gate ? { focusGate: gate } : {} });
}

/** Answers every request released now (robots.txt allows all) and returns the page URLs released, by host. */
async function answerAll(d: CrawlTestDriver): Promise<string[]> {
  const pages: string[] = [];
  for (const r of d.readOutput('scheduled')) {
    if (r.value.kind === 'page') pages.push(r.value.url);
    await d.pipe('fetch-reports', r.value.host, done(r.value, d, r.value.kind === 'robots' ? 'User-agent: *\nAllow: /\n' : ''));
  }
  return pages;
}

describe('schedule in a focused crawl', () => {
  it('should release a host\'s URLs by score, a URL raised by a better link moving up', async () => {
    const d = await driver();
    await d.pipe('deduped', 'a.test', url('a.test', '/low', 0.1, [entry('a.test', '/high', 0.9), entry('a.test', '/mid', 0.5)]));
    await answerAll(d); // robots.txt
    // Found again through a better link: /low now scores 0.95, though it has no more in-links than before.
    await d.pipe('deduped', 'a.test', url('a.test', '/low', 0.95));
    const order: string[] = [];
    for (let i = 0; i < 3; i++) {
      await d.advanceTime(DELAY);
      order.push(...await answerAll(d));
    }
    assert.deepEqual(order, ['http://a.test/low', 'http://a.test/high', 'http://a.test/mid']);
    assert.equal(d.counter('schedule', 'raised'), 1);
    await d.close();
  });

  it('should hold a host back while two hosts offer clearly better URLs, and release it when they run dry', async () => {
    const d = await driver(focusGateFor(DELAY, 2));
    for (const host of ['a.test', 'b.test']) {
      await d.pipe('deduped', host, url(host, '/1', 0.9, [entry(host, '/2', 0.9)]));
    }
    await answerAll(d); // robots.txt of a and b
    await d.advanceTime(DELAY);
    assert.deepEqual((await answerAll(d)).sort(), ['http://a.test/1', 'http://b.test/1']);
    // The gate knows a host by what it offered last: c arrives once a and b have shown their best.
    await d.pipe('deduped', 'c.test', url('c.test', '/plain', 0.05));
    await answerAll(d); // robots.txt of c
    const released: string[][] = [];
    for (let i = 0; i < 3; i++) {
      await d.advanceTime(DELAY);
      released.push((await answerAll(d)).sort());
    }
    // c.test's timer has passed too, but two hosts offer better; once they have nothing left it goes
    // (a held host asks again a delay later: it may wait one round more).
    assert.deepEqual(released[0], ['http://a.test/2', 'http://b.test/2']);
    assert.deepEqual([...released[1], ...released[2]], ['http://c.test/plain']);
    assert.ok(d.counter('schedule', 'focus.held') >= 1);
    await d.close();
  });

  it('should never release a host sooner than without the gate: politeness first', async () => {
    const times = async (gate?: FocusGate) => {
      const d = await driver(gate);
      await d.pipe('deduped', 'a.test', url('a.test', '/1', 0.2, [entry('a.test', '/2', 0.3), entry('a.test', '/3', 0.9)]));
      const at: number[] = [];
      for (let i = 0; i < 8; i++) {
        const pages = await answerAll(d);
        for (const _ of pages) at.push(d.now);
        await d.advanceTime(DELAY / 2);
      }
      await d.close();
      return at;
    };
    const plain = await times();
    assert.equal(plain.length, 3);
    assert.deepEqual(await times(focusGateFor(DELAY, 1)), plain, 'one host alone is never held');
  });
});
