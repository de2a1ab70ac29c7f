import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPlainPath, plainAbsolute, resolver } from './resolve-links.js';
import { seededRng } from './sample-pages.js';

const PIECES = ['/', '/', 'a', 'B', 'p', '9', '0', '01', '-', '--', '_', '~', '.', '..', '/.', '/..', '%', '%2e', '%7E', '?', '#',
  ':', '@', '\\', '\t', ' ', '\n', 'é', 'ß', 'xn--', 'xn--nxasmq6b', '80', '443', '8080', '65535', '65536', '0x7f', '255', '256',
  '127.0.0.1', '1.2.3', 'example', '.test', 'EXAMPLE', '&', '=', '+', ',', ';', '!', '$', "'", '(', '"', '<', '`', '{', '|', '^'];
const PREFIXES = ['', '/', '/', '//', 'http://', 'https://', 'HTTP://', 'http://a.test', 'https://b.test:', 'http://127.0.0.1:8080/',
  'http://host.example/', 'https://x-y.test/p/', 'http:/', 'http://a..b/', 'http://a.b./'];

/** What the URL parser makes of `href` against `base`: the href of an http(s) URL, or null. */
function parsed(href: string, base: URL): string | null {
  try {
    const url = new URL(href, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

test('should resolve every href exactly as the URL parser does', () => {
  const rng = seededRng(19);
  const bases = ['http://site.test/dir/page.html', 'https://127.20.0.1:41234/p/3', 'http://h.test:8080/', 'https://u:p@cred.test/a/'].map((b) => new URL(b));
  let plain = 0;
  for (let i = 0; i < 40_000; i++) {
    let href = PREFIXES[Math.floor(rng() * PREFIXES.length)];
    for (let n = Math.floor(rng() * 8); n > 0; n--) href += PIECES[Math.floor(rng() * PIECES.length)];
    const base = bases[i % bases.length];
    assert.equal(resolver(base)(href), parsed(href, base), `${JSON.stringify(href)} against ${base.href}`);
    if (plainAbsolute(href) || isPlainPath(href, 0)) plain++;
  }
  assert.ok(plain > 2_000, `only ${plain} hrefs took the unparsed path: the test would not test it`);
});

test('should take the commonest hrefs unparsed, and leave the rest to the parser', () => {
  assert.ok(isPlainPath('/p/9', 0));
  assert.ok(plainAbsolute('http://127.20.0.6:41234/p/5'));
  assert.ok(plainAbsolute('https://www.example.test/a/b-c_d~e.html'));
  for (const href of ['http://0.0.0.0/', 'http://255.255.255.255/x', 'http://10.20.30.40:1/']) assert.ok(plainAbsolute(href), href);
  for (const href of ['/a/./b', '/a/../b', '/a%41', '/a?q', '/a#f', '/a b', '/é']) assert.ok(!isPlainPath(href, 0), href);
  for (const href of ['HTTP://a.test/', 'http://A.test/', 'http://a.test:80/', 'https://a.test:443/', 'http://a.test:080/',
    'http://1.2.3/', 'http://01.2.3.4/', 'http://256.1.1.1/', 'http://1.2.3.04/', 'http://1.2.3.4.5/', 'http://1.2.3.4a/', 'http://a..b/', 'http://a.b./', 'http://xn--nxasmq6b.test/', 'http://a.test', 'http://a.test?x']) {
    assert.ok(!plainAbsolute(href), href);
  }
});
