import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mimeEssence, sniffContentType } from './sniff-content-type.js';

const sniff = (type: string | undefined, body: string | Uint8Array) =>
  sniffContentType(type, typeof body === 'string' ? Buffer.from(body, 'latin1') : body);

test('should route by a trustworthy Content-Type', () => {
  assert.equal(sniff('text/html; charset=utf-8', '<!doctype html><p>hi'), 'html');
  assert.equal(sniff('TEXT/HTML', 'plain words'), 'html');
  assert.equal(sniff('application/xhtml+xml', '<?xml version="1.0"?><html xmlns="x">'), 'html');
  assert.equal(sniff('application/pdf', '%PDF-1.7\n'), 'pdf');
  assert.equal(sniff('application/xml', '<?xml version="1.0"?><urlset>'), 'xml');
  assert.equal(sniff('application/rss+xml', '<rss version="2.0">'), 'xml');
  assert.equal(sniff('text/plain', 'hello world'), 'text');
  assert.equal(sniff('text/csv', 'a,b\n1,2'), 'text');
  assert.equal(sniff('image/png', '\x89PNG\r\n\x1a\n'), 'other');
  assert.equal(sniff('application/json', '{"a":1}'), 'other');
});

test('should treat %PDF- at offset 0 as PDF whatever the header says', () => {
  for (const type of [undefined, 'application/octet-stream', 'text/html', 'text/plain', 'application/x-download'])
    assert.equal(sniff(type, '%PDF-1.4\n%\xE2\xE3\xCF\xD3\n1 0 obj'), 'pdf', String(type));
  // only at offset 0, as the spec's pattern says
  assert.equal(sniff(undefined, '  %PDF-1.4'), 'text');
});

test('should sniff HTML when the type is missing, unknown or octet-stream', () => {
  for (const type of [undefined, '', 'unknown/unknown', 'application/unknown', '*/*', 'application/octet-stream', 'garbage'])
    assert.equal(sniff(type, '\xEF\xBB\xBF \n\t<!DOCTYPE HTML><html>'), 'html', String(type));
  for (const start of ['<html>', '<HEAD>', '<script ', '<div>', '<p>', '<a ', '<b>', '<br>', '<table>', '<!-- c -->', '<title>'])
    assert.equal(sniff(undefined, start), 'html', start);
  // a pattern must end in a tag-terminating byte: '<a' is not '<abbr>', '<p' is not '<pre>'
  assert.equal(sniff(undefined, '<abbr>x</abbr>'), 'text');
  assert.equal(sniff(undefined, '<pre>x</pre>'), 'text');
});

test('should sniff XML and tell XHTML from sitemaps and feeds', () => {
  assert.equal(sniff(undefined, '<?xml version="1.0"?>\n<urlset xmlns="s">'), 'xml');
  assert.equal(sniff(undefined, '<urlset xmlns="s">'), 'xml');
  assert.equal(sniff(undefined, '<?xml version="1.0"?><!-- c --><?xml-stylesheet href="a"?><sitemapindex>'), 'xml');
  assert.equal(sniff(undefined, '<?xml version="1.0"?><!DOCTYPE html PUBLIC "x" "y"><html xmlns="x">'), 'html');
  assert.equal(sniff('text/xml', '<?xml version="1.0"?><html>'), 'html');
  assert.equal(sniff(undefined, '<?xml version="1.0"?><catalog>'), 'xml');
});

test('should route a sitemap or feed mislabelled as HTML or plain text as XML', () => {
  assert.equal(sniff('text/html', '<?xml version="1.0"?><urlset>'), 'xml');
  assert.equal(sniff('text/plain', '<?xml version="1.0" encoding="UTF-8"?>\n<rss>'), 'xml');
  assert.equal(sniff('text/plain', '<feed xmlns="http://www.w3.org/2005/Atom">'), 'xml');
});

test('should never promote text/plain to HTML, and call binary text/plain other', () => {
  assert.equal(sniff('text/plain', '<html><a href="/x">x</a>'), 'text');
  assert.equal(sniff('text/plain', 'PK\x03\x04\x14\x00'), 'other');
  assert.equal(sniff('text/plain', '\xFF\xFEh\x00i\x00'), 'text');
});

test('should call an HTML body served as PDF HTML (an error or login page), not PDF', () => {
  assert.equal(sniff('application/pdf', '<!DOCTYPE html><title>Sign in</title>'), 'html');
  assert.equal(sniff('application/pdf', 'garbage'), 'pdf');
});

test('should tell binary from text when nothing else matches', () => {
  assert.equal(sniff(undefined, new Uint8Array([0x1f, 0x8b, 0x08, 0x00])), 'other');
  assert.equal(sniff(undefined, 'GIF89a\x01\x00'), 'other');
  assert.equal(sniff(undefined, '%!PS-Adobe-3.0'), 'other');
  assert.equal(sniff(undefined, 'just words, café\r\n'), 'text');
  assert.equal(sniff(undefined, ''), 'text');
  // only the spec's resource header (1445 bytes) is examined
  assert.equal(sniff(undefined, 'a'.repeat(1445) + '\x00'), 'text');
});

test('should parse the essence of a Content-Type value', () => {
  assert.equal(mimeEssence(' Text/HTML ; charset=utf-8'), 'text/html');
  assert.equal(mimeEssence('text'), undefined);
  assert.equal(mimeEssence(null), undefined);
  assert.equal(mimeEssence('text/ html'), undefined);
});
