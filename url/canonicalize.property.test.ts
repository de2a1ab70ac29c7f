// Properties of canonicalize over generated URLs: it never throws, its output is bounded ASCII, a
// canonical URL is its own canonical form, and spellings of one resource give one canonical form.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalize } from './canonicalize.js';

const RUNS = { numRuns: 400 };
const UNRESERVED = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~';
// Characters that make canonicalization work: reserved, unsafe, escapes, non-ASCII, session markers.
const AWKWARD = [...UNRESERVED, ...'!$&\'()*+,;=:@/?#[]% "<>\\^`{|}\t', '%2e', '%2E', '%7e', '%41', '%zz', '%', '.', '..',
  ';jsessionid=1', ';sid=2', '(S(abc123))', 'é', '日本', '\u{1F600}', '\ud800', '\u0000', '\u00a0'];

const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);
const host = fc.oneof(
  fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => [...labels, 'test'].join('.')),
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `127.${a}.${b}.${c}`),
  fc.constantFrom('[::1]', 'bücher.test', 'xn--bcher-kva.test', 'WWW.Site.TEST', 'site.test.'),
);
const segment = fc.array(fc.constantFrom(...AWKWARD), { maxLength: 6 }).map((parts) => parts.join(''));
const path = fc.array(segment, { maxLength: 5 }).map((s) => '/' + s.join('/'));
const paramName = fc.oneof(fc.constantFrom('a', 'b', 'id', 'utm_source', 'UTM_Medium', 'gclid', 'sid', 'PHPSESSID', 'q', 'utm%5Fsource'), segment);
const query = fc.array(fc.tuple(paramName, fc.option(segment)), { maxLength: 5 })
  .map((ps) => (ps.length ? '?' + ps.map(([n, v]) => (v === null ? n : `${n}=${v}`)).join('&') : ''));

interface Parts { scheme: 'http' | 'https'; host: string; port: string; path: string; query: string; fragment: string }
const parts: fc.Arbitrary<Parts> = fc.record({
  scheme: fc.constantFrom('http' as const, 'https' as const),
  host,
  port: fc.constantFrom('', '', ':8080', ':1', ':65535'),
  path,
  query,
  fragment: fc.constantFrom('', '#', '#top', '#a?b'),
});
const build = (p: Parts) => `${p.scheme}://${p.host}${p.port}${p.path}${p.query}${p.fragment}`;

/** Any string, biased toward near-URLs. */
const anyInput = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  parts.map(build),
  fc.tuple(parts.map(build), fc.nat(), fc.string({ unit: 'binary', maxLength: 8 }))
    .map(([u, at, junk]) => u.slice(0, at % (u.length + 1)) + junk + u.slice(at % (u.length + 1))),
);

describe('canonicalize properties', () => {
  it('should never throw nor fall back to its internal-error answer', () => {
    fc.assert(fc.property(anyInput, fc.option(fc.constantFrom('http://base.test/a/b?c', 'https://[::1]:9/x')), (raw, base) => {
      const c = canonicalize(raw, base === null ? undefined : { base });
      if (!c.ok) assert.doesNotMatch(c.detail, /^unexpected error/, c.detail);
    }), RUNS);
  });

  it('should keep every canonical URL ASCII and within maxLength', () => {
    fc.assert(fc.property(anyInput, fc.integer({ min: 16, max: 4096 }), (raw, maxLength) => {
      const c = canonicalize(raw, { maxLength });
      if (!c.ok) return;
      assert.ok(c.url.length <= maxLength, `${c.url.length} > ${maxLength}`);
      assert.match(c.url, /^https?:\/\/[\x21-\x7e]+$/);
    }), RUNS);
  });

  it('should give a canonical URL back unchanged, with the same host', () => {
    fc.assert(fc.property(anyInput, (raw) => {
      const c = canonicalize(raw);
      if (!c.ok) return;
      const again = canonicalize(c.url);
      assert.ok(again.ok, `${c.url} rejected: ${again.ok ? '' : again.detail}`);
      assert.equal(again.url, c.url);
      assert.equal(again.host, c.host);
    }), RUNS);
  });

  it('should give one canonical form for any case of scheme and host, default ports and escaped unreserved characters', () => {
    const respell = fc.record({
      schemeCase: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
      hostCase: fc.array(fc.boolean(), { minLength: 1, maxLength: 64 }),
      defaultPort: fc.boolean(),
      escape: fc.array(fc.boolean(), { minLength: 1, maxLength: 64 }),
      lowerHex: fc.boolean(),
    });
    fc.assert(fc.property(parts, respell, (p, r) => {
      const plain = canonicalize(build(p));
      const flip = (s: string, mask: boolean[]) => [...s].map((ch, i) => (mask[i % mask.length] ? ch.toUpperCase() : ch)).join('');
      // Escape some unreserved characters outside existing escapes ('%' and two hex digits; a stray
      // '%' is a character of its own).
      const escapeSome = (s: string) => {
        let out = '';
        for (let i = 0; i < s.length; i++) {
          if (/^%[0-9a-f]{2}/i.test(s.slice(i, i + 3))) {
            out += s.slice(i, i + 3);
            i += 2;
          } else if (UNRESERVED.includes(s[i]) && r.escape[i % r.escape.length]) {
            const hex = s.charCodeAt(i).toString(16).toUpperCase().padStart(2, '0');
            out += '%' + (r.lowerHex ? hex.toLowerCase() : hex);
          } else out += s[i];
        }
        return out;
      };
      const port = p.port === '' && r.defaultPort ? (p.scheme === 'http' ? ':80' : ':443') : p.port;
      const respelled = `${flip(p.scheme, r.schemeCase)}://${flip(p.host, r.hostCase)}${port}${escapeSome(p.path)}${escapeSome(p.query)}${p.fragment}`;
      const other = canonicalize(respelled);
      assert.deepEqual(other, plain, `${build(p)} vs ${respelled}`);
    }), RUNS);
  });
});
