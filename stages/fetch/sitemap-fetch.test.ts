import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import { createFetcher } from '../../crawl/open-services.js';
import { defaultCrawlConfig } from '../../contract/config.js';
import { PLAIN_REQUEST, type FetchRequest } from '../../schemas/records.js';
import { startHttpServer, type TestServer } from '../../fetching/testing/test-servers.js';
import { discoveredEntries, MAX_BATCH_URLS } from '../../contract/url-batch.js';
import { DEFAULT_MAX_URLS } from '../../sitemaps/sitemap-parser.js';

const LISTED = 2 * MAX_BATCH_URLS + 3;
let server: TestServer;
/** /huge.xml: 800,000 entries of fixed width (16 times the URL cap), about 40 MB, with its Content-Length. */
const HUGE_ENTRIES = 800_000;
const HUGE_HEAD = '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n';
const HUGE_TAIL = '</urlset>\n';
/** What the server of /huge.xml wrote before the connection closed, and that it closed. */
let hugeSent: Promise<{ bytes: number; total: number }>;

function urlset(n: number): string {
  const urls = Array.from({ length: n }, (_, i) =>
    `<url><loc>${server.url(`/p/${i}`)}</loc>${i === 1 ? '<priority>0.9</priority><changefreq>daily</changefreq><lastmod>2026-01-02</lastmod>' : ''}</url>`);
  return `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`;
}

/** Two entries on the sitemap's host, three on another, two naming loopback addresses the test's policy refuses, one unusable. */
function mixed(): string {
  const locs = [server.url('/ok/1'), 'http://other.test/a', server.url('/ok/2'), 'http://other.test/b', 'http://127.0.0.1:9/admin',
    'http://other.test:8080/c', 'http://[::1]/secret', 'ftp://files.test/x'];
  return `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<url><loc>${l}</loc></url>`).join('')}</urlset>`;
}

function rss(): string {
  const now = Date.now();
  const items = Array.from({ length: 5 }, (_, i) => `<item><link>${i === 4 ? 'http://elsewhere.test/story' : server.url(`/story/${i}`)}</link>` +
    `<pubDate>${new Date(now - 10_000 - i * 60_000).toUTCString()}</pubDate></item>`);
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>${items.join('')}</channel></rss>`;
}

function hugeEntry(i: number): string {
  return `<url><loc>${server.url(`/p/${String(i).padStart(7, '0')}`)}</loc></url>\n`;
}

/** Streams /huge.xml as the client reads it (backpressure), counting what left until the client hung up or it ended. */
function serveHuge(res: import('node:http').ServerResponse): void {
  const total = HUGE_HEAD.length + HUGE_ENTRIES * hugeEntry(0).length + HUGE_TAIL.length;
  let bytes = 0;
  let i = 0;
  hugeSent = new Promise((resolve) => res.on('close', () => resolve({ bytes, total })));
  res.writeHead(200, { 'content-type': 'application/xml', 'content-length': String(total) });
  const send = (text: string) => {
    bytes += text.length;
    return res.write(text);
  };
  send(HUGE_HEAD);
  const more = () => {
    while (i < HUGE_ENTRIES && !res.destroyed) {
      let block = '';
      for (const end = Math.min(i + 1000, HUGE_ENTRIES); i < end; i++) block += hugeEntry(i);
      if (!send(block)) return void res.once('drain', more);
    }
    if (!res.destroyed) res.end(HUGE_TAIL, () => (bytes += HUGE_TAIL.length));
  };
  more();
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
    return { host, discovered: d.readOutput('discovered-urls'), fetched: d.readOutput('fetched'), skipped: d.readOutput('skipped'), urls: d.counter('fetch', 'sitemap-urls'),
      dropped: (reason: string) => d.counter('fetch', `dropped.${reason}`) };
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
      if (req.url === '/mixed.xml') {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(mixed());
        return;
      }
      if (req.url === '/huge.xml') return serveHuge(res);
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

  it('should leave a skipped row, counted, for the entries it drops: off its host, on a forbidden address, unusable', async () => {
    // Only the sitemap's own address is open: 127.0.0.1 and ::1 stand for addresses a sitemap must not steer the crawler to.
    const { host, discovered, skipped, dropped } = await fetchSitemapRecord('/mixed.xml', { allowNetworks: [`${server.host}/32`] });
    assert.deepEqual(discovered.flatMap((r) => discoveredEntries(r.value).map((e) => e.url)), [server.url('/ok/1'), server.url('/ok/2')]);
    const rows = new Map(skipped.map((r) => [r.value.reason, r]));
    assert.deepEqual([...rows.keys()].sort(), ['sitemap-forbidden-address', 'sitemap-invalid-entry', 'sitemap-off-host']);
    const off = rows.get('sitemap-off-host')!;
    assert.deepEqual([off.key, off.value.host, off.value.url, off.value.url_count, off.value.source_url], [host, host, 'http://other.test/a', 3, server.url('/mixed.xml')]);
    assert.match(off.value.detail, /^3 entries of this sitemap, the first shown: host other\.test is not /);
    const forbidden = rows.get('sitemap-forbidden-address')!;
    assert.deepEqual([forbidden.value.url, forbidden.value.url_count], ['http://127.0.0.1:9/admin', 2]);
    assert.match(forbidden.value.detail, /127\.0\.0\.1 is in .*--allow-network/);
    assert.deepEqual([rows.get('sitemap-invalid-entry')!.value.url, rows.get('sitemap-invalid-entry')!.value.url_count], ['ftp://files.test/x', 1]);
    assert.ok(skipped.every((r) => r.value.depth === 1 && r.value.decided_at > 0));
    assert.deepEqual(['sitemap-off-host', 'sitemap-forbidden-address', 'sitemap-invalid-entry'].map(dropped), [3, 2, 1], 'counted for the summary line');
  });

  it('should stop downloading a sitemap at its URL cap and leave a row saying what was not read', async () => {
    const { host, discovered, fetched, skipped } = await fetchSitemapRecord('/huge.xml');
    const { bytes, total } = await hugeSent;
    assert.equal(discovered.reduce((n, r) => n + discoveredEntries(r.value).length, 0), DEFAULT_MAX_URLS, 'the entries up to the cap are passed on');
    // What left the server is the cap's share and what socket buffers held when the client hung up, not the file.
    assert.ok(bytes < total / 2, `the server wrote ${bytes} of ${total} bytes before the client stopped reading`);
    const row = fetched[0].value;
    assert.equal(row.status, 200);
    assert.match(row.error, /^sitemap-limit: stopped at max-urls after 50000 URLs/);
    assert.equal(row.truncated, true);
    assert.equal(row.truncation, 'length');
    assert.ok(row.wire_bytes < total / 2, `${row.wire_bytes} wire bytes read`);
    assert.equal(skipped.length, 1);
    const cut = skipped[0];
    assert.deepEqual([cut.key, cut.value.url, cut.value.reason, cut.value.url_count], [host, server.url('/huge.xml'), 'sitemap-limit', 1]);
    assert.match(cut.value.detail, new RegExp(`stopped at max-urls .*read 50000 entries passed on and ${row.bytes} bytes .*` +
      `at least one more entry .*the remaining ${total - row.wire_bytes} of ${total} declared bytes were not downloaded`));
  });

  it('should pass nothing on from a sitemap that is not there', async () => {
    const { discovered, fetched } = await fetchSitemapRecord('/missing.xml');
    assert.deepEqual(discovered, []);
    assert.equal(fetched[0].value.status, 404);
    assert.equal(fetched[0].value.sitemap_urls, 0);
  });
});
