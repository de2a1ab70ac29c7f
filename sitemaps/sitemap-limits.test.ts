// The limits of sitemaps.org and the parser's own bounds against hostile files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { parseInChunks } from './testing/parse-for-test.js';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_URLS, SitemapParser } from './sitemap-parser.js';
import { MAX_MARKUP_CHARS, MAX_XML_DEPTH } from './xml-reader.js';

function urlsetOf(n: number, prefix = 'p'): string {
  const parts = ['<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'];
  for (let i = 0; i < n; i++) parts.push(`<url><loc>http://site.test/${prefix}${i}</loc></url>`);
  parts.push('</urlset>');
  return parts.join('\n');
}

test(`should accept exactly ${DEFAULT_MAX_URLS} URLs and cut the file at the next one`, () => {
  const exact = parseInChunks(urlsetOf(DEFAULT_MAX_URLS), 65536);
  assert.equal(exact.summary.urls, DEFAULT_MAX_URLS);
  assert.equal(exact.summary.cutBy, undefined);
  const over = parseInChunks(urlsetOf(DEFAULT_MAX_URLS + 10), 65536);
  assert.equal(over.summary.urls, DEFAULT_MAX_URLS);
  assert.equal(over.urls.at(-1)?.loc, `http://site.test/p${DEFAULT_MAX_URLS - 1}`);
  assert.equal(over.summary.cutBy, 'max-urls');
  assert.match(over.summary.errors.join('\n'), /limit: more than 50000 entries/);
});

test('should count invalid and foreign entries toward maxUrls, and stop the download early', () => {
  const body = urlsetOf(3, 'x').replace('http://site.test/x1', 'http://other.test/x1') + urlsetOf(0);
  const r = parseInChunks(body, 1, { maxUrls: 2 });
  assert.deepEqual(r.urls.map((u) => u.loc), ['http://site.test/x0']);
  assert.equal(r.summary.ignoredCrossHost, 1);
  assert.equal(r.summary.cutBy, 'max-urls');
  const p = new SitemapParser({ sitemapUrl: 'http://site.test/s.xml', maxUrls: 1, onUrl: () => {}, onSitemap: () => {} });
  p.write(Buffer.from(urlsetOf(5)));
  assert.equal(p.done, true);
});

test('should count index entries toward maxUrls', () => {
  const index = '<sitemapindex>' + '<sitemap><loc>http://site.test/s.xml</loc></sitemap>'.repeat(4) + '</sitemapindex>';
  const r = parseInChunks(index, undefined, { maxUrls: 3 });
  assert.equal(r.sitemaps.length, 3);
  assert.equal(r.summary.cutBy, 'max-urls');
});

test('should read a file of exactly maxBytes and cut one byte longer, keeping entries before the cut', () => {
  const body = urlsetOf(20);
  const exact = parseInChunks(body, 7, { maxBytes: body.length });
  assert.equal(exact.summary.cutBy, undefined);
  assert.equal(exact.summary.urls, 20);
  const over = parseInChunks(body + ' ', 7, { maxBytes: body.length });
  assert.equal(over.summary.cutBy, 'max-bytes');
  assert.equal(over.summary.bytes, body.length);
  const half = parseInChunks(body, 7, { maxBytes: Math.floor(body.length / 2) });
  assert.ok(half.summary.urls > 5 && half.summary.urls < 15, `${half.summary.urls}`);
});

// 80 MiB of spaces after a urlset compresses to about 80 KiB.
const BOMB = gzipSync(Buffer.concat([Buffer.from(urlsetOf(3)), Buffer.alloc(80 * 1024 * 1024, 0x20)]), { level: 9 });

function feedUntilDone(maxBytes?: number): { fed: number; urls: string[]; summary: ReturnType<SitemapParser['end']> } {
  let fed = 0;
  const urls: string[] = [];
  const p = new SitemapParser({ sitemapUrl: 'http://site.test/s.xml.gz', maxBytes, onUrl: (e) => urls.push(e.loc), onSitemap: () => {} });
  for (let at = 0; at < BOMB.length && !p.done; at += 4096) {
    p.write(BOMB.subarray(at, at + 4096));
    fed = Math.min(at + 4096, BOMB.length);
  }
  return { fed, urls, summary: p.end() };
}

test('should stop inflating a gzip bomb at the default 50 MiB uncompressed', () => {
  const { fed, urls, summary } = feedUntilDone();
  assert.equal(summary.cutBy, 'max-bytes');
  assert.equal(summary.bytes, DEFAULT_MAX_BYTES);
  assert.equal(urls.length, 3);
  assert.ok(fed < BOMB.length, `read ${fed} of ${BOMB.length} compressed bytes before stopping`);
  assert.match(summary.errors.join('\n'), /limit: more than 52428800 bytes uncompressed/);
});

test('should say done after the first compressed kilobytes of a bomb when maxBytes is small', () => {
  const { fed, summary } = feedUntilDone(1024 * 1024);
  assert.equal(summary.bytes, 1024 * 1024);
  assert.equal(summary.cutBy, 'max-bytes');
  assert.ok(fed <= 8192, `read ${fed} compressed bytes`);
});

const XXE = `<?xml version="1.0"?>
<!DOCTYPE urlset [
  <!ENTITY xxe SYSTEM "file:///etc/passwd">
  <!ENTITY remote SYSTEM "http://127.0.0.1:9/evil.dtd">
  <!ENTITY % pe SYSTEM "http://127.0.0.1:9/pe.dtd"> %pe;
]>
<urlset><url><loc>&xxe;</loc></url><url><loc>http://site.test/&remote;</loc></url><url><loc>http://site.test/ok</loc></url></urlset>`;

test('should never expand external entities (XXE)', () => {
  const { urls, summary } = parseInChunks(XXE);
  assert.deepEqual(urls.map((u) => u.loc), ['http://site.test/&remote;', 'http://site.test/ok']);
  assert.equal(summary.invalid, 1);
  assert.match(summary.errors.join('\n'), /invalid URL: not an absolute URL: "&xxe;"/);
  assert.match(summary.errors.join('\n'), /DOCTYPE ignored/);
  assert.doesNotMatch(JSON.stringify(urls), /root:/);
});

// The classic "billion laughs" payload (https://en.wikipedia.org/wiki/Billion_laughs_attack).
const LOLS = ['<!ENTITY lol "lol">'];
for (let i = 1; i <= 9; i++) LOLS.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
const BILLION_LAUGHS = `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n${LOLS.join('\n')}\n]>\n<urlset><url><loc>http://site.test/&lol9;</loc></url></urlset>`;

test('should leave user entities unexpanded (billion laughs)', () => {
  const { urls, summary } = parseInChunks(BILLION_LAUGHS, 1);
  assert.deepEqual(urls, [{ loc: 'http://site.test/&lol9;' }]);
  assert.ok(summary.bytes < 2000);
});

test('should cut a giant text <loc> at the cap, count it invalid and go on', () => {
  const giant = '<urlset><url><loc>http://site.test/' + 'z'.repeat(5_000_000) + '</loc></url><url><loc>http://site.test/after</loc></url></urlset>';
  const { urls, summary } = parseInChunks(giant, 65536);
  assert.deepEqual(urls, [{ loc: 'http://site.test/after' }]);
  assert.equal(summary.invalid, 1);
  assert.equal(summary.cutBy, undefined);
});

const oversized: [string, string][] = [
  ['comment', `<!--${'c'.repeat(MAX_MARKUP_CHARS)}-->`],
  ['CDATA <loc>', `<url><loc><![CDATA[http://site.test/${'d'.repeat(MAX_MARKUP_CHARS)}]]></loc></url>`],
  ['attribute value', `<url a="${'v'.repeat(MAX_MARKUP_CHARS)}"><loc>http://site.test/x</loc></url>`],
  ['tag name', `<${'t'.repeat(MAX_MARKUP_CHARS + 1)}>`],
  ['declaration', `<!ENTITY ${'e'.repeat(MAX_MARKUP_CHARS)}>`],
];
for (const [what, node] of oversized) {
  test(`should stop at a ${what} longer than ${MAX_MARKUP_CHARS} characters, in any chunking`, () => {
    const body = '<urlset><url><loc>http://site.test/before</loc></url>' + node + '<url><loc>http://site.test/after</loc></url></urlset>';
    const whole = parseInChunks(body);
    assert.deepEqual(whole.urls, [{ loc: 'http://site.test/before' }]);
    assert.equal(whole.summary.cutBy, 'max-markup');
    const bytewise = parseInChunks(body, 1);
    assert.deepEqual(bytewise.urls, whole.urls);
    assert.deepEqual(bytewise.summary.errors, whole.summary.errors);
  });
}

test('should accept a CDATA <loc> and a comment below the markup bound', () => {
  const body = `<urlset><!--${'c'.repeat(MAX_MARKUP_CHARS - 100)}--><url><loc><![CDATA[http://site.test/a?b=1&c=2]]></loc></url></urlset>`;
  const { urls, summary } = parseInChunks(body, 1000);
  assert.deepEqual(urls, [{ loc: 'http://site.test/a?b=1&c=2' }]);
  assert.equal(summary.cutBy, undefined);
});

test(`should stop at nesting deeper than ${MAX_XML_DEPTH} elements`, () => {
  const body = '<urlset><url><loc>http://site.test/a</loc></url>' + '<x>'.repeat(1_000_000) + '<url><loc>http://site.test/b</loc></url>';
  const { urls, summary } = parseInChunks(body, 65536);
  assert.deepEqual(urls, [{ loc: 'http://site.test/a' }]);
  assert.equal(summary.cutBy, 'max-depth');
  const fine = '<urlset><url><loc>http://site.test/a</loc>' + '<x>'.repeat(MAX_XML_DEPTH - 2) + '</url></urlset>';
  assert.equal(parseInChunks(fine).summary.cutBy, undefined);
});
