import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostnameOf, registrableDomain } from './registrable-domain.js';

// What tldts 7 answers, pinned so that an upgrade that changes it is noticed.
const cases: [host: string, domain: string, why: string][] = [
  ['www.site.test', 'site.test', 'an unlisted TLD falls under the default rule *'],
  ['a.b.site.test:8080', 'site.test', 'the port is ignored'],
  ['site.test', 'site.test', 'the domain itself'],
  ['WWW.Site.Test', 'site.test', 'case is ignored'],
  ['www.bbc.co.uk', 'bbc.co.uk', 'a two-label ICANN suffix'],
  ['alice.github.io', 'alice.github.io', 'the private PSL section counts: github.io users are separate sites'],
  ['co.uk', 'co.uk', 'a bare public suffix is its own domain'],
  ['test', 'test', 'a bare unlisted TLD is its own domain'],
  ['localhost', 'localhost', 'a single label is its own domain'],
  ['localhost:8081', 'localhost', 'with a port'],
  ['a.localhost', 'a.localhost', 'localhost is a suffix by the default rule'],
  ['127.0.0.1', '127.0.0.1', 'an IPv4 literal is its own domain'],
  ['127.0.0.2:9000', '127.0.0.2', 'another loopback address is another domain'],
  ['[::1]:8080', '[::1]', 'an IPv6 literal keeps its brackets, loses its port'],
  ['xn--bcher-kva.test', 'xn--bcher-kva.test', 'punycode names as canonicalize spells them'],
];

for (const [host, domain, why] of cases) {
  test(`should give ${host} the registrable domain ${domain}: ${why}`, () => {
    assert.equal(registrableDomain(host), domain);
  });
}

test('should strip only the port from a hostKey', () => {
  assert.equal(hostnameOf('site.test:8080'), 'site.test');
  assert.equal(hostnameOf('[::1]:8080'), '[::1]');
  assert.equal(hostnameOf('[::1]'), '[::1]');
  assert.equal(hostnameOf('site.test'), 'site.test');
});
