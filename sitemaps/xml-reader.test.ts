import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_XML_DEPTH, XmlSitemapReader, type RawEntry, type XmlSink } from './xml-reader.js';

function read(xml: string): { events: string[]; entries: RawEntry[] } {
  const events: string[] = [];
  const entries: RawEntry[] = [];
  const sink: XmlSink = {
    root: (kind, name) => events.push(`root ${kind} ${name}`),
    entry: (e) => entries.push(e),
    misplaced: (name) => events.push(`misplaced ${name}`),
    unfinished: (element) => events.push(`unfinished ${element}`),
    error: (message) => events.push(message),
    cut: (limit) => events.push(`cut ${limit}`),
  };
  const reader = new XmlSitemapReader(sink);
  reader.write(xml);
  reader.end();
  return { events, entries };
}

test('should hand over the raw trimmed text of each field, first value winning', () => {
  const { entries } = read(
    '<urlset><url><loc> http://a.test/&amp;x </loc><lastmod>\n2020-01-01\n</lastmod><lastmod>2021</lastmod>' +
      '<changefreq>Daily</changefreq><priority>0.5</priority></url></urlset>',
  );
  assert.deepEqual(entries, [
    { element: 'url', loc: 'http://a.test/&x', locTooLong: false, lastmod: '2020-01-01', changefreq: 'Daily', priority: '0.5' },
  ]);
});

test('should ignore fields that are not direct children of the entry', () => {
  const { entries } = read('<urlset><url><x><loc>http://a.test/deep</loc></x><loc>http://a.test/top</loc></url></urlset>');
  assert.deepEqual(entries.map((e) => e.loc), ['http://a.test/top']);
});

test('should mark an over-long field as empty so that it is dropped, not read from a cut prefix', () => {
  const { entries } = read(`<urlset><url><loc>http://a.test/</loc><changefreq>daily${' '.repeat(500)}x</changefreq></url></urlset>`);
  assert.equal(entries[0].changefreq, '');
});

test('should name the root kind, including feeds and other documents', () => {
  assert.deepEqual(read('<sitemapindex/>').events, ['root sitemapindex sitemapindex']);
  assert.deepEqual(read('<rdf:RDF/>').events, ['root rdf rdf:RDF']);
  assert.deepEqual(read('<rss/>').events, ['root rss rss']);
  assert.deepEqual(read('<feed/>').events, ['root atom feed']);
  assert.deepEqual(read('<svg/>').events, ['root unknown svg']);
});

test(`should cut at depth ${MAX_XML_DEPTH + 1} and report an unfinished entry at the end of input`, () => {
  assert.deepEqual(read('<a>'.repeat(MAX_XML_DEPTH + 1)).events, ['root unknown a', 'cut max-depth']);
  assert.deepEqual(read('<urlset><url><loc>http://a.test/</loc>').events, ['root urlset urlset', 'unfinished url']);
});
