// Cases from the "Sitemap file location" and "Sitemaps & Cross Submits" sections of
// https://www.sitemaps.org/protocol.html, with the hosts moved to .test names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LocationRule, MAX_URL_LENGTH } from './location-rule.js';

function reason(rule: LocationRule, loc: string): string {
  const v = rule.checkUrl(loc);
  return v.ok ? 'ok' : v.reason;
}

test('should allow only URLs under the directory of a sitemap found without robots.txt', () => {
  const rule = new LocationRule('http://site.test/catalog/sitemap.xml', undefined, false);
  assert.equal(reason(rule, 'http://site.test/catalog/show?item=23'), 'ok');
  assert.equal(reason(rule, 'http://site.test/catalog/'), 'ok');
  assert.equal(reason(rule, 'http://site.test/images/'), 'out-of-path');
  assert.equal(reason(rule, 'http://site.test/catalog'), 'out-of-path');
  assert.equal(reason(rule, 'https://site.test/catalog/a'), 'out-of-path');
  assert.equal(reason(rule, 'http://www.site.test/catalog/a'), 'cross-host');
  assert.equal(reason(rule, 'http://site.test:8080/catalog/a'), 'cross-host');
});

test('should allow the whole host to a root sitemap and compare hosts case- and port-insensitively', () => {
  const rule = new LocationRule('http://site.test/sitemap.xml', undefined, false);
  assert.equal(reason(rule, 'http://SITE.test:80/any/path'), 'ok');
  assert.equal(reason(rule, 'http://site.test./x'), 'ok');
});

test('should allow any path and either scheme of the robots.txt host to a sitemap named there', () => {
  const rule = new LocationRule('http://site.test/deep/dir/sitemap.xml', 'site.test', true);
  assert.equal(reason(rule, 'http://site.test/elsewhere'), 'ok');
  assert.equal(reason(rule, 'https://site.test/elsewhere'), 'ok');
  assert.equal(reason(rule, 'http://other.test/'), 'cross-host');
});

test('should let a sitemap hosted elsewhere list URLs of the host whose robots.txt named it', () => {
  const rule = new LocationRule('http://sitemaps.cdn.test/site/sitemap.xml', 'www.site.test', true);
  assert.equal(reason(rule, 'http://www.site.test/page'), 'ok');
  assert.equal(reason(rule, 'http://sitemaps.cdn.test/site/page'), 'cross-host');
});

test('should refuse malformed, non-http(s) and over-long locations as invalid', () => {
  const rule = new LocationRule('http://site.test/sitemap.xml', undefined, true);
  assert.equal(reason(rule, '/relative/path'), 'invalid');
  assert.equal(reason(rule, 'http://'), 'invalid');
  assert.equal(reason(rule, 'ftp://site.test/file'), 'invalid');
  assert.equal(reason(rule, 'javascript:alert(1)'), 'invalid');
  const base = 'http://site.test/';
  assert.equal(reason(rule, base + 'a'.repeat(MAX_URL_LENGTH - base.length)), 'ok');
  assert.equal(reason(rule, base + 'a'.repeat(MAX_URL_LENGTH - base.length + 1)), 'invalid');
});

test('should let an index name sitemaps on its own host or on the robots.txt host, any path', () => {
  const rule = new LocationRule('http://cdn.test/maps/index.xml', 'site.test', false);
  assert.equal(rule.checkSitemap('http://cdn.test/other/s1.xml').ok, true);
  assert.equal(rule.checkSitemap('https://site.test/s2.xml').ok, true);
  assert.equal(rule.checkSitemap('http://third.test/s3.xml').ok, false);
  assert.equal(rule.checkSitemap('file:///etc/passwd').ok, false);
});

test('should throw when the sitemap URL itself is not http(s), since that is a caller bug', () => {
  assert.throws(() => new LocationRule('file:///tmp/sitemap.xml', undefined, false), TypeError);
  assert.throws(() => new LocationRule('not a url', undefined, false), TypeError);
});
