// RSS 2.0 and Atom feeds through the sitemap parser: their entries' links and dates, on any host,
// with the sitemap's bounds (entries, bytes, gzip, entities never expanded).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { parseInChunks } from './testing/parse-for-test.js';
import { parseRfc822Date } from './entry-fields.js';

const RSS = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
  <title>News</title><link>http://site.test/</link>
  <atom:link href="http://site.test/feed.rss" rel="self" type="application/rss+xml"/>
  <item><title>One</title><link>http://site.test/story/1</link><pubDate>Tue, 10 Jun 2025 04:00:00 GMT</pubDate></item>
  <item><title>Two</title><link> https://cdn.other.test/story/2?a=1&amp;b=2 </link><pubDate>Tue, 10 Jun 2025 06:30:00 +0200</pubDate></item>
  <item><title>Three</title><guid>http://site.test/story/3</guid><pubDate>10 Jun 2025 08:00 EST</pubDate></item>
  <item><title>Four</title><guid isPermaLink="false">tag:site.test,2025:4</guid></item>
  <item><title>Five</title><link>http://site.test/story/5</link><pubDate>yesterday</pubDate></item>
</channel>
</rss>`;

const ATOM = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Example</title><link href="http://site.test/"/><updated>2025-06-10T18:30:02Z</updated>
  <entry><title>A</title><link rel="edit" href="http://site.test/edit/a"/><link href="http://site.test/a"/><id>urn:a</id><updated>2025-06-10T18:30:02Z</updated></entry>
  <entry><title>B</title><link rel="alternate" type="text/html" href="http://site.test/b"/><published>2025-06-09T10:00:00+01:00</published></entry>
  <entry><title>C</title><id>urn:c</id></entry>
</feed>`;

test('should read an RSS 2.0 feed\'s items: <link> (else a permalink <guid>) and <pubDate>, on any host', () => {
  const { urls, summary } = parseInChunks(RSS, 7);
  assert.deepEqual(urls, [
    { loc: 'http://site.test/story/1', lastmod: Date.UTC(2025, 5, 10, 4) },
    { loc: 'https://cdn.other.test/story/2?a=1&b=2', lastmod: Date.UTC(2025, 5, 10, 4, 30) },
    { loc: 'http://site.test/story/3', lastmod: Date.UTC(2025, 5, 10, 13) },
    { loc: 'http://site.test/story/5' },
  ]);
  assert.equal(summary.kind, 'rss');
  assert.equal(summary.complete, true);
  assert.equal(summary.invalid, 1, 'the item with neither link nor permalink');
  assert.equal(summary.droppedFields, 1, 'a pubDate that is no date');
  assert.equal(summary.ignoredCrossHost, 0);
});

test('should read an Atom feed\'s entries: the alternate <link href> and <updated>, else <published>', () => {
  const { urls, summary } = parseInChunks(ATOM, 5);
  assert.deepEqual(urls, [
    { loc: 'http://site.test/a', lastmod: Date.UTC(2025, 5, 10, 18, 30, 2) },
    { loc: 'http://site.test/b', lastmod: Date.UTC(2025, 5, 9, 9) },
  ]);
  assert.equal(summary.kind, 'atom');
  assert.equal(summary.invalid, 1);
  assert.match(summary.errors.join('\n'), /<entry> without <link href>/);
});

test('should bound a feed as a sitemap: entries, gzip, and entities never expanded', () => {
  const items = Array.from({ length: 30 }, (_, i) => `<item><link>http://site.test/${i}</link></item>`).join('');
  const many = parseInChunks(gzipSync(`<rss><channel>${items}</channel></rss>`), 100, { maxUrls: 10 });
  assert.equal(many.urls.length, 10);
  assert.equal(many.summary.cutBy, 'max-urls');
  assert.equal(many.summary.compressed, true);
  const laughs = `<!DOCTYPE rss [<!ENTITY a "http://site.test/x"><!ENTITY b "&a;&a;&a;&a;">]><rss><channel><item><link>&b;</link></item></channel></rss>`;
  const entity = parseInChunks(laughs);
  assert.deepEqual(entity.urls, []);
  assert.equal(entity.summary.invalid, 1, 'the literal "&b;" is no URL');
  assert.match(entity.summary.errors.join('\n'), /DOCTYPE ignored/);
});

test('should ignore items outside <channel> and links deeper than an item\'s own', () => {
  const { urls } = parseInChunks('<rss><item><link>http://site.test/stray</link></item><channel><item><x><link>http://site.test/deep</link></x>' +
    '<link>http://site.test/ok</link></item></channel></rss>');
  assert.deepEqual(urls.map((u) => u.loc), ['http://site.test/ok']);
});

test('should parse RFC 822 dates as RSS writes them, and refuse others', () => {
  assert.equal(parseRfc822Date('Sat, 07 Sep 2002 00:00:01 GMT'), Date.UTC(2002, 8, 7, 0, 0, 1));
  assert.equal(parseRfc822Date('7 Sep 02 09:30 -0130'), Date.UTC(2002, 8, 7, 11, 0));
  assert.equal(parseRfc822Date('Mon, 31 Feb 2025 10:00:00 GMT'), undefined);
  assert.equal(parseRfc822Date('2025-06-10T10:00:00Z'), undefined);
});
