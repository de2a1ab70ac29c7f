import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseContentType, parseResponseHead, resolveLocation } from './response-head.js';

test('should lowercase names, join repeated headers and keep cookies one per line', () => {
  const head = parseResponseHead(['Vary', 'Accept', 'VARY', 'Cookie', 'Set-Cookie', 'a=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT',
    'set-cookie', 'b=2']);
  assert.equal(head.headers.vary, 'Accept, Cookie');
  assert.equal(head.headers['set-cookie'], 'a=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT\nb=2');
  assert.equal(head.first('vary'), 'Accept');
});

test('should decode UTF-8 header bytes and keep other bytes as latin1', () => {
  const head = parseResponseHead([Buffer.from('Location'), Buffer.from('/café'), Buffer.from('X-Old'), Buffer.from([0x63, 0xe9])]);
  assert.equal(head.first('location'), '/café');
  assert.equal(head.headers['x-old'], 'cé');
});

test('should cap the record at 64 headers of 2 KB, keeping the ones the crawler needs', () => {
  const raw: string[] = [];
  for (let i = 0; i < 200; i++) raw.push(`x-${i}`, 'v'.repeat(i === 0 ? 10_000 : 1));
  raw.push('ETag', '"abc"', 'Location', '/next');
  const head = parseResponseHead(raw);
  assert.equal(Object.keys(head.headers).length, 64);
  assert.equal(head.headers.etag, '"abc"');
  assert.equal(head.headers.location, '/next');
  assert.equal(head.headers['x-0'].length, 2048);
  assert.equal(head.first('x-0')!.length, 10_000);
});

test('should extract media type and charset from Content-Type only', () => {
  assert.deepEqual(parseContentType('Text/HTML; charset="UTF-8"'), { contentType: 'text/html', charset: 'utf-8' });
  assert.deepEqual(parseContentType('application/xhtml+xml;foo=bar; Charset=windows-1252 '),
    { contentType: 'application/xhtml+xml', charset: 'windows-1252' });
  assert.deepEqual(parseContentType('text/html; charset=<script>'), { contentType: 'text/html', charset: '' });
  assert.deepEqual(parseContentType('garbage'), { contentType: '', charset: '' });
  assert.deepEqual(parseContentType(undefined), { contentType: '', charset: '' });
});

test('should resolve Location against the request URL', () => {
  const base = new URL('http://site.test/a/b?q=1');
  assert.equal(resolveLocation('../c', base), 'http://site.test/c');
  assert.equal(resolveLocation('//other.test/x', base), 'http://other.test/x');
  assert.equal(resolveLocation('http://[bad', base), '');
  assert.equal(resolveLocation(undefined, base), '');
});
