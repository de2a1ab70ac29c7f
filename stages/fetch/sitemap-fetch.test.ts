import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import { createFetcher } from '../../crawl/open-services.js';
import { defaultCrawlConfig } from '../../contract/config.js';
import { PLAIN_REQUEST, type FetchRequest } from '../../schemas/records.js';
import { startHttpServer, type TestServer } from '../../fetching/testing/test-servers.js';
import { discoveredEntries, MAX_BATCH_URLS } from '../../contract/url-batch.js';

const LISTED = 2 * MAX_BATCH_URLS + 3;
let server: TestServer;

function urlset(n: number): string {
  const urls = Array.from({ length: n }, (_, i) =>
    `<url><loc>${server.url(`/p/${i}`)}</loc>${i === 1 ? '<priority>0.9</priority><changefreq>daily</changefreq><lastmod>2026-01-02</lastmod>' : ''}</url>`);
  return `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`;
}

function rss(): string {
  const now = Date.now();
  const items = Array.from({ length: 5 }, (_, i) => `<item><link>${i === 4 ? 'http://elsewhere.test/story' : server.url(`/story/${i}`)}</link>` +
    `<pubDate>${new Date(now - 10_000 - i * 60_000).toUTCString()}</pubDate></item>`);
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>${items.join('')}</channel></rss>`;
}

async function fetchSitemapRecord(path: string, overrides: Partial<import('../../contract/config.js').CrawlConfig> = {}) {
  const config = defaultCrawlConfig({ allowNetworks: ['127.0.0.0/8'], fetchTimeoutMs: 5000, ...overrides });
  const fetcher = createFetcher(config);
  const d = await crawlTestDriver({ processors: ['resolve', 'fetch'], config, services: { fetcher } });
  const host = `${server.host}:${server.port}`;
  const request: FetchRequest = {
    ...PLAIN_REQUEST, fetch_id: `${host}#sm`, url: server.url(path), host, kind: 'sitemap', depth: 0, attempt: 1, via: 'sitemap',
    source_url: server.url('/robots.txt'), redirect_hops: 0, delay_ms: 0, released_at: 0, if_none_match: '', if_modified_since: '', sitemap_depth: 1,
  };
  try {
    await d.pipe('scheduled', host, request);
    return { host, discovered: d.readOutput('discovered-urls'), fetched: d.readOutput('fetched'), urls: d.counter('fetch', 'sitemap-urls') };
  } finally {
    await d.close();
    await fetcher.close();
  }
}

describe('sitemap fetch', () => {
  before(async () => {
    server = await startHttpServer('127.0.0.24', (req, res) => {
      if (req.url === '/feed.rss') {
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        res.end(rss());
        return;
      }
      if (req.url === '/sitemap.xml') {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(urlset(LISTED));
        return;
      }
      res.writeHead(404);
      res.end();
    });
  });
  after(async () => {
    await server.close();
  });

  it('should pass a sitemap\'s URLs on in batches of at most the bound, all of them, keyed by the sitemap\'s host', async () => {
    const { host, discovered, fetched, urls } = await fetchSitemapRecord('/sitemap.xml');
    assert.deepEqual(discovered.map((r) => discoveredEntries(r.value).length), [MAX_BATCH_URLS, MAX_BATCH_URLS, 3]);
    assert.ok(discovered.every((r) => r.key === host && r.value.via === 'sitemap' && r.value.depth === 1));
    const entries = discovered.flatMap((r) => discoveredEntries(r.value));
    assert.deepEqual(entries.map((e) => e.url), Array.from({ length: LISTED }, (_, i) => server.url(`/p/${i}`)));
    assert.deepEqual([entries[1].priority_hint, entries[1].changefreq, entries[1].lastmod], [0.9, 'daily', Date.UTC(2026, 0, 2)], 'hints stay with their URL');
    assert.deepEqual([entries[2].priority_hint, entries[2].changefreq], [-1, '']);
    assert.equal(urls, LISTED, 'sitemap-urls counts URLs, not records');
    assert.equal(fetched[0].value.sitemap_urls, LISTED);
  });

  it('should pass a feed\'s entries on keyed by their own hosts, dated, and refetch it after its publishing interval under --recrawl', async () => {
    const { host, discovered, fetched } = await fetchSitemapRecord('/feed.rss', { recrawl: true, recrawlMinIntervalMs: 1000, recrawlMaxIntervalMs: 3_600_000 });
    assert.deepEqual(discovered.map((r) => [r.key, discoveredEntries(r.value).length]), [[host, 4], ['elsewhere.test', 1]]);
    const first = discovered[0].value;
    assert.equal(first.url, server.url('/story/0'));
    assert.ok(first.lastmod > 0 && first.via === 'sitemap' && first.sitemap_depth === 0, 'a dated link to a page');
    const r = fetched[0].value;
    assert.equal(r.sitemap_urls, 5);
    assert.equal(r.recrawl_interval_ms, 60_000, 'one story a minute');
    assert.equal(r.next_due_at, r.started_at + 60_000);
    const once = await fetchSitemapRecord('/feed.rss');
    assert.equal(once.fetched[0].value.next_due_at, 0, 'without --recrawl a feed is read once');
  });

  it('should pass nothing on from a sitemap that is not there', async () => {
    const { discovered, fetched } = await fetchSitemapRecord('/missing.xml');
    assert.deepEqual(discovered, []);
    assert.equal(fetched[0].value.status, 404);
    assert.equal(fetched[0].value.sitemap_urls, 0);
  });
});
