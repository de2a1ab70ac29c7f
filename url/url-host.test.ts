// plainHost answers exactly as the WHATWG parser's host, or not at all: checked on generated URLs
// built to land near every edge (ports, dotted numbers, case, userinfo, separators).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { plainHost } from './url-host.js';

const whatwgHost = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
};

test('should give the WHATWG parser\'s host for plain http(s) URLs, and nothing it could get wrong', () => {
  const label = fc.oneof(fc.stringMatching(/^[a-z][a-z0-9-]{0,5}$/), fc.stringMatching(/^[a-zA-Z0-9-]{1,6}$/));
  const number = fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), fc.constantFrom('00', '010', '0x7f', '1e3', '4294967295'));
  const host = fc.oneof(
    fc.array(label, { minLength: 1, maxLength: 4 }).map((l) => l.join('.')),
    fc.array(number, { minLength: 1, maxLength: 5 }).map((l) => l.join('.')),
    fc.constantFrom('example.com.', 'Example.COM', 'ex_ample.com', 'user@host.org', '[::1]', 'xn--bcher-kva.de', 'bücher.de', 'a..b', ''),
  );
  const port = fc.oneof(fc.constant(''), fc.integer({ min: 0, max: 70000 }).map((p) => `:${p}`), fc.constantFrom(':', ':080', ':80', ':443', ':0'));
  const rest = fc.constantFrom('', '/', '/p/1', '?q=1', '#x', '/a?b#c', '\\x');
  const scheme = fc.constantFrom('http://', 'https://', 'http://', 'https://', 'HTTP://', 'ftp://', 'http:/', '');
  let taken = 0;
  fc.assert(fc.property(scheme, host, port, rest, (s, h, p, r) => {
    const url = `${s}${h}${p}${r}`;
    const fast = plainHost(url);
    if (fast !== undefined) {
      taken++;
      assert.equal(fast, whatwgHost(url), url);
    }
  }), { numRuns: 20_000 });
  assert.ok(taken > 500, `the fast path was tried on ${taken} URLs only`);
});

test('should take the plain forms the crawl writes', () => {
  assert.equal(plainHost('http://127.30.0.1:8080/p/1'), '127.30.0.1:8080');
  assert.equal(plainHost('https://news.example.org/a?b'), 'news.example.org');
  assert.equal(plainHost('http://example.com'), 'example.com');
  assert.equal(plainHost('http://example.com:80/'), undefined, 'a default port is the parser\'s to drop');
  assert.equal(plainHost('http://127.030.0.1/'), undefined, 'a dotted number the parser would rewrite');
});
