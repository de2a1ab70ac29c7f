import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { parseInChunks } from './testing/parse-for-test.js';
import { MAX_SITEMAP_DEPTH, SitemapParser } from './sitemap-parser.js';

const URLSET_OPEN = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n';

function urlset(...entries: string[]): string {
  return URLSET_OPEN + entries.join('\n') + '\n</urlset>\n';
}

const FULL = urlset(
  '<url><loc>http://site.test/</loc><lastmod>2005-01-01</lastmod><changefreq>monthly</changefreq><priority>0.8</priority></url>',
  '<url>\n  <loc>\n    http://site.test/catalog?item=12&amp;desc=vacation_hawaii\n  </loc>\n  <changefreq>weekly</changefreq>\n</url>',
  '<url><loc>http://site.test/catalog?item=73&amp;desc=vacation_new_zealand</loc><lastmod>2004-12-23</lastmod></url>',
  '<url><loc>http://site.test/catalog?item=74&amp;desc=vacation_newfoundland</loc><lastmod>2004-12-23T18:00:15+00:00</lastmod><priority>0.3</priority></url>',
  '<url><loc>http://site.test/catalog?item=83&amp;desc=vacation_usa</loc><lastmod>2004-11-23</lastmod></url>',
);

test('should read every field of the sitemaps.org example urlset', () => {
  const { urls, summary } = parseInChunks(FULL);
  assert.deepEqual(urls, [
    { loc: 'http://site.test/', lastmod: Date.UTC(2005, 0, 1), changefreq: 'monthly', priority: 0.8 },
    { loc: 'http://site.test/catalog?item=12&desc=vacation_hawaii', changefreq: 'weekly' },
    { loc: 'http://site.test/catalog?item=73&desc=vacation_new_zealand', lastmod: Date.UTC(2004, 11, 23) },
    { loc: 'http://site.test/catalog?item=74&desc=vacation_newfoundland', lastmod: Date.UTC(2004, 11, 23, 18, 0, 15), priority: 0.3 },
    { loc: 'http://site.test/catalog?item=83&desc=vacation_usa', lastmod: Date.UTC(2004, 10, 23) },
  ]);
  assert.equal(summary.kind, 'urlset');
  assert.equal(summary.urls, 5);
  assert.equal(summary.bytes, Buffer.byteLength(FULL));
  assert.deepEqual(summary.errors, []);
});

test('should give the same entries and summary when fed one byte at a time, at every boundary', () => {
  const whole = parseInChunks(FULL);
  for (const size of [1, 2, 3, 5, 7, 64]) assert.deepEqual(parseInChunks(FULL, size), whole, `chunks of ${size}`);
  const bytes = Buffer.from(FULL);
  for (let cut = 1; cut < bytes.length; cut++) {
    const urls: unknown[] = [];
    const p = new SitemapParser({ sitemapUrl: 'http://site.test/sitemap.xml', onUrl: (e) => urls.push(e), onSitemap: () => {} });
    p.write(bytes.subarray(0, cut));
    p.write(bytes.subarray(cut));
    assert.deepEqual({ urls, summary: p.end() }, { urls: whole.urls, summary: whole.summary }, `split at byte ${cut}`);
  }
});

test('should keep a URL whose optional fields are malformed, dropping only those fields', () => {
  const { urls, summary } = parseInChunks(
    urlset('<url><loc>http://site.test/a</loc><lastmod>last tuesday</lastmod><changefreq>often</changefreq><priority>2</priority></url>'),
  );
  assert.deepEqual(urls, [{ loc: 'http://site.test/a' }]);
  assert.equal(summary.droppedFields, 3);
  assert.equal(summary.errors.length, 3);
  assert.match(summary.errors[0], /^entry 1: <lastmod> "last tuesday" is malformed/);
});

test('should count entries without a usable loc as invalid and say why', () => {
  const { urls, summary } = parseInChunks(
    urlset(
      '<url><lastmod>2020-01-01</lastmod></url>',
      '<url><loc>/relative</loc></url>',
      '<url><loc>mailto:someone@site.test</loc></url>',
      `<url><loc>http://site.test/${'x'.repeat(3000)}</loc></url>`,
      '<url><loc>http://site.test/ok</loc></url>',
    ),
  );
  assert.deepEqual(urls, [{ loc: 'http://site.test/ok' }]);
  assert.equal(summary.invalid, 4);
  assert.match(summary.errors.join('\n'), /entry 1: <url> without <loc>/);
  assert.match(summary.errors.join('\n'), /entry 4: URL longer than 2048 characters/);
});

test('should take prefixed elements when the root uses the same prefix, and ignore extension elements', () => {
  const xml =
    '<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">' +
    '<sm:url><sm:loc>http://site.test/p</sm:loc><image:image><image:loc>http://site.test/i.png</image:loc></image:image></sm:url>' +
    '</sm:urlset>';
  assert.deepEqual(parseInChunks(xml).urls, [{ loc: 'http://site.test/p' }]);
  const plain =
    '<urlset><url><image:loc>http://site.test/img.png</image:loc><loc>http://site.test/q</loc><loc>http://site.test/second</loc></url></urlset>';
  assert.deepEqual(parseInChunks(plain).urls, [{ loc: 'http://site.test/q' }]);
});

test('should read a sitemap index and report its sitemaps with their lastmod', () => {
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
    '<sitemap><loc>http://site.test/sitemap1.xml.gz</loc><lastmod>2004-10-01T18:23:17+00:00</lastmod></sitemap>' +
    '<sitemap><loc>http://site.test/sitemap2.xml.gz</loc></sitemap>' +
    '<sitemap><loc>http://other.test/sitemap3.xml</loc></sitemap>' +
    '<url><loc>http://site.test/misplaced</loc></url>' +
    '</sitemapindex>';
  const { urls, sitemaps, summary } = parseInChunks(xml);
  assert.deepEqual(urls, []);
  assert.deepEqual(sitemaps, [
    { loc: 'http://site.test/sitemap1.xml.gz', lastmod: Date.UTC(2004, 9, 1, 18, 23, 17) },
    { loc: 'http://site.test/sitemap2.xml.gz' },
  ]);
  assert.equal(summary.kind, 'sitemapindex');
  assert.equal(summary.ignoredCrossHost, 1);
  assert.equal(summary.invalid, 1);
});

test(`should not follow an index found at depth ${MAX_SITEMAP_DEPTH}, and say so`, () => {
  const xml = '<sitemapindex><sitemap><loc>http://site.test/a.xml</loc></sitemap><sitemap><loc>http://site.test/b.xml</loc></sitemap></sitemapindex>';
  const { sitemaps, summary } = parseInChunks(xml, undefined, { depth: MAX_SITEMAP_DEPTH });
  assert.deepEqual(sitemaps, []);
  assert.equal(summary.ignoredTooDeep, 2);
  assert.match(summary.errors[0], /^format: this index is at depth 2/);
});

test('should ignore URLs of other hosts and outside the sitemap directory, counting each', () => {
  const xml = urlset(
    '<url><loc>http://site.test/dir/a</loc></url>',
    '<url><loc>http://other.test/dir/b</loc></url>',
    '<url><loc>http://site.test/elsewhere</loc></url>',
    '<url><loc>https://site.test/dir/c</loc></url>',
  );
  const found = parseInChunks(xml, undefined, { sitemapUrl: 'http://site.test/dir/sitemap.xml' });
  assert.deepEqual(found.urls.map((u) => u.loc), ['http://site.test/dir/a']);
  assert.equal(found.summary.ignoredCrossHost, 1);
  assert.equal(found.summary.ignoredOutOfPath, 2);
  const named = parseInChunks(xml, undefined, { sitemapUrl: 'http://site.test/dir/sitemap.xml', fromRobots: true });
  assert.deepEqual(named.urls.map((u) => u.loc), ['http://site.test/dir/a', 'http://site.test/elsewhere', 'https://site.test/dir/c']);
  assert.equal(named.summary.ignoredCrossHost, 1);
});

test('should read a plain-text sitemap with any line ending, skipping blank lines', () => {
  const text = '\uFEFFhttp://site.test/a\r\nhttp://site.test/b\n\n   \rhttp://site.test/c  \nnot a url\nhttp://other.test/d';
  const whole = parseInChunks(text);
  assert.deepEqual(whole.urls.map((u) => u.loc), ['http://site.test/a', 'http://site.test/b', 'http://site.test/c']);
  assert.equal(whole.summary.kind, 'text');
  assert.equal(whole.summary.invalid, 1);
  assert.equal(whole.summary.ignoredCrossHost, 1);
  assert.deepEqual(parseInChunks(text, 1), whole);
});

test('should cut an over-long text line at the cap without keeping it, and go on with the next line', () => {
  const text = `http://site.test/${'y'.repeat(100_000)}\nhttp://site.test/next\n`;
  const { urls, summary } = parseInChunks(text, 4096);
  assert.deepEqual(urls, [{ loc: 'http://site.test/next' }]);
  assert.equal(summary.invalid, 1);
});

test('should inflate a gzip sitemap detected by its magic bytes, in any chunking', () => {
  const gz = gzipSync(Buffer.from(FULL));
  const plain = parseInChunks(FULL);
  for (const size of [1, 2, 3, 100, gz.length]) {
    const r = parseInChunks(gz, size);
    assert.deepEqual(r.urls, plain.urls, `chunks of ${size}`);
    assert.equal(r.summary.compressed, true);
    assert.equal(r.summary.bytes, Buffer.byteLength(FULL));
    assert.deepEqual(r.summary.errors, []);
  }
  assert.deepEqual(parseInChunks(gzipSync('http://site.test/t\n')).urls, [{ loc: 'http://site.test/t' }]);
});

test('should keep the entries before a truncation or corruption of a gzip file and report it', () => {
  const body = urlset(...Array.from({ length: 2000 }, (_, i) => `<url><loc>http://site.test/p${(i * 7919) % 10007}</loc></url>`));
  const gz = gzipSync(Buffer.from(body));
  const truncated = parseInChunks(gz.subarray(0, Math.floor(gz.length / 2)), 1000);
  assert.ok(truncated.urls.length > 100 && truncated.urls.length < 2000, `${truncated.urls.length} URLs`);
  assert.match(truncated.summary.errors.join('\n'), /gzip: unexpected EOF/);
  const junk = parseInChunks(Buffer.concat([gz, Buffer.from('junk after the end')]));
  assert.equal(junk.urls.length, 2000);
  assert.match(junk.summary.errors.join('\n'), /^gzip: /m);
  assert.match(parseInChunks(gz.subarray(0, 5)).summary.errors.join('\n'), /gzip: only 5 bytes/);
});

test('should read concatenated gzip members as one file', () => {
  const a = gzipSync('http://site.test/a\n');
  const b = gzipSync('http://site.test/b\n');
  const r = parseInChunks(Buffer.concat([a, b]), 3);
  assert.deepEqual(r.urls.map((u) => u.loc), ['http://site.test/a', 'http://site.test/b']);
});

test('should report RSS 1.0 and HTML documents as not sitemaps and stop reading', () => {
  const cases: [string, string, RegExp][] = [
    ['<rdf:RDF xmlns="http://purl.org/rss/1.0/"><item><link>http://site.test/a</link></item></rdf:RDF>', 'rdf', /RSS 1\.0 \(RDF\) feeds are not read/],
    ['<!DOCTYPE html><html><body><a href="http://site.test/a">x</a></body></html>', 'unknown', /root element <html> is none of/],
  ];
  for (const [body, kind, message] of cases) {
    const p = new SitemapParser({ sitemapUrl: 'http://site.test/s.xml', onUrl: () => assert.fail('no URL expected'), onSitemap: () => {} });
    p.write(Buffer.from(body));
    assert.equal(p.done, true, kind);
    const summary = p.end();
    assert.equal(summary.kind, kind);
    assert.match(summary.errors.join('\n'), message);
  }
});

test('should report an empty file, a file of only whitespace and an XML file without elements', () => {
  for (const body of ['', ' \n\t ']) {
    const { summary } = parseInChunks(body);
    assert.equal(summary.kind, 'empty');
    assert.deepEqual(summary.errors, ['format: the file is empty']);
  }
  const prolog = parseInChunks('<?xml version="1.0"?><!-- nothing -->');
  assert.equal(prolog.summary.kind, 'unknown');
  assert.match(prolog.summary.errors.join('\n'), /no root element/);
});

test('should drop an entry cut by the end of the file and say the file was truncated', () => {
  const { urls, summary } = parseInChunks(URLSET_OPEN + '<url><loc>http://site.test/a</loc></url><url><loc>http://site.test/b</loc>');
  assert.deepEqual(urls, [{ loc: 'http://site.test/a' }]);
  assert.equal(summary.invalid, 1);
  assert.match(summary.errors.join('\n'), /ended inside a <url> entry/);
  const unclosed = parseInChunks(URLSET_OPEN + '<url><loc>http://site.test/a</loc></url>');
  assert.match(unclosed.summary.errors.join('\n'), /ended before <\/urlset>/);
});

test('should ignore elements after the root element closes', () => {
  const { urls, summary } = parseInChunks(urlset('<url><loc>http://site.test/a</loc></url>') + '<urlset><url><loc>http://site.test/b</loc></url></urlset>');
  assert.deepEqual(urls, [{ loc: 'http://site.test/a' }]);
  assert.match(summary.errors.join('\n'), /content after the root element/);
});

test('should reject writes after end and invalid limits', () => {
  const p = new SitemapParser({ sitemapUrl: 'http://site.test/s.xml', onUrl: () => {}, onSitemap: () => {} });
  p.end();
  assert.throws(() => p.write(Buffer.from('x')), /after end/);
  assert.throws(() => new SitemapParser({ sitemapUrl: 'http://site.test/s.xml', maxUrls: 0, onUrl: () => {}, onSitemap: () => {} }), RangeError);
});

test('should tell onIgnored of every entry it does not pass on, with the reason, as many as the summary counts', () => {
  const ignored: [string, string][] = [];
  const onIgnored = (loc: string, reason: string) => void ignored.push([loc, reason]);
  const { summary } = parseInChunks(urlset(
    '<url><loc>http://site.test/a</loc></url>',
    '<url><loc>http://other.test/b</loc></url>',
    '<url><loc>http://site.test/elsewhere/c</loc></url>',
    '<url><loc>mailto:x@site.test</loc></url>',
    '<url></url>',
  ), 7, { sitemapUrl: 'http://site.test/dir/sitemap.xml', onIgnored });
  assert.deepEqual(ignored, [
    ['http://site.test/a', 'out-of-path'], ['http://other.test/b', 'cross-host'], ['http://site.test/elsewhere/c', 'out-of-path'],
    ['mailto:x@site.test', 'invalid'], ['', 'invalid'],
  ]);
  assert.equal(ignored.length, summary.ignoredCrossHost + summary.ignoredOutOfPath + summary.invalid);
  const deep: string[] = [];
  parseInChunks('<sitemapindex><sitemap><loc>http://site.test/s1.xml</loc></sitemap><sitemap><loc>http://site.test/s2.xml</loc></sitemap></sitemapindex>',
    Number.MAX_SAFE_INTEGER, { depth: MAX_SITEMAP_DEPTH, onIgnored: (loc, reason) => void deep.push(`${reason} ${loc}`) });
  assert.deepEqual(deep, ['too-deep http://site.test/s1.xml', 'too-deep http://site.test/s2.xml']);
});

test('should say it was cut by a limit as soon as it was, before end()', () => {
  const p = new SitemapParser({ sitemapUrl: 'http://site.test/sitemap.xml', maxUrls: 2, onUrl: () => {}, onSitemap: () => {} });
  p.write(Buffer.from(urlset('<url><loc>http://site.test/1</loc></url>', '<url><loc>http://site.test/2</loc></url>').replace('</urlset>\n', '')));
  assert.equal(p.cutBy, undefined);
  p.write(Buffer.from('<url><loc>http://site.test/3</loc></url>'));
  assert.equal(p.cutBy, 'max-urls');
  assert.equal(p.end().urls, 2);
});
