// Properties of SitemapParser over generated input: it never throws on any bytes, and the result does
// not depend on how the body was chunked by the network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { SitemapParser } from './sitemap-parser.js';
import type { SitemapEntry } from './entry-fields.js';
import { parseInChunks, type ParseResult } from './testing/parse-for-test.js';

function parseWithSizes(bytes: Uint8Array, sizes: number[], maxUrls?: number): ParseResult {
  const urls: SitemapEntry[] = [];
  const sitemaps: { loc: string; lastmod?: number }[] = [];
  const p = new SitemapParser({
    sitemapUrl: 'http://site.test/sitemap.xml',
    maxUrls,
    onUrl: (e) => urls.push(e),
    onSitemap: (loc, lastmod) => sitemaps.push(lastmod === undefined ? { loc } : { loc, lastmod }),
  });
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length];
    p.write(bytes.subarray(at, at + size));
    at += size;
  }
  return { urls, sitemaps, summary: p.end() };
}

/** Bytes read depend on chunking once the parser stops mid-chunk; everything else must not. */
function comparable(r: ParseResult): unknown {
  return r.summary.complete ? r : { ...r, summary: { ...r.summary, bytes: 0 } };
}

// Pieces of sitemap-like text, hostile ones included: the parser's states are reached far more often
// than by random bytes.
const PIECES = [
  '<?xml version="1.0"?>', '<urlset>', '</urlset>', '<sitemapindex>', '</sitemapindex>', '<url>', '</url>',
  '<sitemap>', '</sitemap>', '<loc>', '</loc>', '<lastmod>', '</lastmod>', '<changefreq>', '</changefreq>',
  '<priority>', '</priority>', 'http://site.test/', 'https://site.test/a?b=1', 'http://other.test/', '&amp;',
  '&lt;', '&#x41;', '&#65;', '&bogus;', '&', '<![CDATA[', ']]>', '<!--', '-->', '<!DOCTYPE x [<!ENTITY e "v">]>',
  '&e;', '2024-02-29', 'T10:00:00Z', '+01:00', 'daily', '0.5', ' ', '\n', '\r\n', '\t', 'é', '日本', '😀',
  '<x:url>', '</x:url>', '<image:image>', '</image:image>', '<a b="c">', '</a>', '<br/>', '/', '>', '<', '"',
];
const soup = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((parts) => Buffer.from(parts.join('')));
// Splitting a multi-byte UTF-8 character or a gzip header is part of what chunking must survive.
const invalidUtf8 = fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b));
const body = fc.oneof(
  soup,
  fc.tuple(soup, invalidUtf8, soup).map(([a, b, c]) => Buffer.concat([a, b, c])),
  fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b)),
  fc.array(fc.oneof(fc.webUrl(), fc.string({ maxLength: 20 })), { maxLength: 20 }).map((lines) => Buffer.from(lines.join('\n'))),
);
const sizes = fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 });

test('should never throw on arbitrary bytes, plain or gzipped, and keep its counters consistent', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 2000 }), fc.boolean(), sizes, (bytes, gzip, chunking) => {
      const input = gzip ? gzipSync(bytes) : bytes;
      const r = parseWithSizes(input, chunking);
      assert.equal(r.urls.length, r.summary.urls);
      assert.equal(r.sitemaps.length, r.summary.sitemaps);
      assert.ok(r.summary.bytes <= (gzip ? bytes.length : input.length));
      for (const e of r.urls) assert.ok(e.loc.length <= 2048 && /^https?:/i.test(e.loc));
    }),
    { numRuns: 400 },
  );
});

test('should give the same result for any chunking of the same body', () => {
  fc.assert(
    fc.property(body, sizes, (bytes, chunking) => {
      assert.deepEqual(comparable(parseWithSizes(bytes, chunking)), comparable(parseInChunks(bytes)));
    }),
    { numRuns: 600 },
  );
});

test('should give the same result for any chunking when a small maxUrls cuts the file', () => {
  fc.assert(
    fc.property(body, sizes, fc.integer({ min: 1, max: 3 }), (bytes, chunking, maxUrls) => {
      assert.deepEqual(comparable(parseWithSizes(bytes, chunking, maxUrls)), comparable(parseWithSizes(bytes, [bytes.length || 1], maxUrls)));
    }),
    { numRuns: 300 },
  );
});

test('should read a gzipped body exactly like the plain one, in any chunking', () => {
  fc.assert(
    fc.property(body, sizes, (bytes, chunking) => {
      // A body that itself starts with the gzip magic would be inflated twice over; not this property.
      fc.pre(!(bytes[0] === 0x1f && bytes[1] === 0x8b));
      const plain = parseInChunks(bytes);
      const zipped = parseWithSizes(gzipSync(bytes), chunking);
      assert.deepEqual(zipped.urls, plain.urls);
      assert.deepEqual(comparable({ ...zipped, summary: { ...zipped.summary, compressed: false } }), comparable(plain));
    }),
    { numRuns: 300 },
  );
});

const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

test('should return every valid same-host URL of a generated urlset, in order', () => {
  const path = fc.webPath().filter((p) => !/\s/.test(p));
  const query = fc.webQueryParameters();
  const url = fc.tuple(path, query).map(([p, q]) => `http://site.test/${p.replace(/^\/+/, '')}${q === '' ? '' : '?' + q}`);
  fc.assert(
    fc.property(fc.array(url, { maxLength: 30 }), sizes, (urls, chunking) => {
      fc.pre(urls.every((u) => u.length <= 2048));
      const xml = `<urlset>${urls.map((u) => `<url>\n <loc> ${escapeXml(u)} </loc>\n</url>`).join('')}</urlset>`;
      const r = parseWithSizes(Buffer.from(xml), chunking);
      assert.deepEqual(r.urls.map((e) => e.loc), urls);
      assert.equal(r.summary.invalid, 0);
    }),
    { numRuns: 300 },
  );
});
