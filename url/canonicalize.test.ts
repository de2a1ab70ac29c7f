import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalize, hostKey, type RejectReason } from './canonicalize.js';

const accepted: [name: string, raw: string, url: string, host: string][] = [
  ['lowercases scheme and host', 'HTTP://Www.Site.EXAMPLE/Path', 'http://www.site.example/Path', 'www.site.example'],
  ['converts an IDN host to punycode', 'http://bücher.example/', 'http://xn--bcher-kva.example/', 'xn--bcher-kva.example'],
  ['maps full-width host characters', 'http://ｓｉｔｅ.test/', 'http://site.test/', 'site.test'],
  ['removes the trailing dot of the host', 'http://site.example./a', 'http://site.example/a', 'site.example'],
  ['removes the default http port', 'http://site.example:80/a', 'http://site.example/a', 'site.example'],
  ['removes the default https port', 'https://site.example:443/a', 'https://site.example/a', 'site.example'],
  ['keeps a non-default port in url and host', 'http://127.0.0.5:8080/a', 'http://127.0.0.5:8080/a', '127.0.0.5:8080'],
  ['keeps port 80 on https', 'https://site.example:80/', 'https://site.example:80/', 'site.example:80'],
  ['keeps a port after removing the trailing dot', 'http://site.example.:8080/', 'http://site.example:8080/', 'site.example:8080'],
  ['keeps an IPv6 literal with its brackets', 'http://[::1]:8081/x', 'http://[::1]:8081/x', '[::1]:8081'],
  ['normalizes numeric IPv4 forms', 'http://0x7f.0.0.1/', 'http://127.0.0.1/', '127.0.0.1'],
  ['removes the fragment', 'http://site.example/a#section-2', 'http://site.example/a', 'site.example'],
  ['resolves dot segments', 'http://site.example/a/./b/../c/', 'http://site.example/a/c/', 'site.example'],
  ['resolves encoded dot segments', 'http://site.example/a/%2e%2E/b', 'http://site.example/b', 'site.example'],
  ['turns an empty path into /', 'http://site.example', 'http://site.example/', 'site.example'],
  ['drops an empty query', 'http://site.example/a?', 'http://site.example/a', 'site.example'],
  ['drops empty query pieces', 'http://site.example/a?&&b=1&', 'http://site.example/a?b=1', 'site.example'],
  ['decodes escaped unreserved characters', 'http://site.example/%7Euser/%41%62%2D%5F%2E', 'http://site.example/~user/Ab-_.', 'site.example'],
  ['uppercases the hex digits of other escapes', 'http://site.example/a%2fb%c3%a9?q=%3d', 'http://site.example/a%2Fb%C3%A9?q=%3D', 'site.example'],
  ['does not decode reserved characters', 'http://site.example/a%2Fb%3Fc%23d%26', 'http://site.example/a%2Fb%3Fc%23d%26', 'site.example'],
  ['encodes a stray percent sign', 'http://site.example/100%/x%zz', 'http://site.example/100%25/x%25zz', 'site.example'],
  ['encodes non-ASCII path characters', 'http://site.example/café', 'http://site.example/caf%C3%A9', 'site.example'],
  ['encodes characters the parser leaves raw', 'http://site.example/a|b^c?x=`{|}', 'http://site.example/a%7Cb%5Ec?x=%60%7B%7C%7D', 'site.example'],
  ['encodes spaces', 'http://site.example/a b?c d', 'http://site.example/a%20b?c%20d', 'site.example'],
  ['ignores surrounding whitespace and embedded newlines', '  http://site.example/a\n/b\t ', 'http://site.example/a/b', 'site.example'],
  ['sorts query parameters by name', 'http://site.example/s?z=1&a=2&m=3', 'http://site.example/s?a=2&m=3&z=1', 'site.example'],
  ['keeps the order of repeated names', 'http://site.example/s?b=1&a=9&b=0&a=1', 'http://site.example/s?a=9&a=1&b=1&b=0', 'site.example'],
  ['keeps valueless parameters', 'http://site.example/s?flag&a=1', 'http://site.example/s?a=1&flag', 'site.example'],
  ['removes utm parameters', 'http://site.example/p?utm_source=x&id=7&UTM_Medium=y&utm_campaign=z', 'http://site.example/p?id=7', 'site.example'],
  ['removes click ids', 'http://site.example/p?gclid=1&fbclid=2&msclkid=3&dclid=4&yclid=5&id=1', 'http://site.example/p?id=1', 'site.example'],
  ['removes mailchimp, GA and instagram ids', 'http://site.example/p?mc_cid=1&mc_eid=2&_ga=3&_gl=4&igshid=5', 'http://site.example/p', 'site.example'],
  ['removes an escaped tracking name', 'http://site.example/p?utm%5Fsource=x&q=1', 'http://site.example/p?q=1', 'site.example'],
  ['removes session query parameters whatever their case', 'http://site.example/p?PHPSESSID=a&sid=b&SessionId=c&session_id=d&JSESSIONID=e&q=1', 'http://site.example/p?q=1', 'site.example'],
  ['removes classic ASP session cookies', 'http://site.example/p?ASPSESSIONIDQQGGGNCU=abc&q=1', 'http://site.example/p?q=1', 'site.example'],
  ['removes a jsessionid path parameter', 'http://site.example/shop/item.jsp;jsessionid=0AB12?id=3', 'http://site.example/shop/item.jsp?id=3', 'site.example'],
  // Both once changed when canonicalized a second time (found by canonicalize.property.test.ts).
  ['drops an ASP.NET session segment that carried a session parameter', 'http://site.example/(S(abc123));jsessionid=1/p', 'http://site.example/p', 'site.example'],
  ['keeps the session parameter of a segment that would become a dot segment', 'http://site.example/a/..;sid=2', 'http://site.example/a/..;sid=2', 'site.example'],
  ['removes an uppercase jsessionid path parameter and keeps others', 'http://site.example/a;JSESSIONID=1;v=2/b', 'http://site.example/a;v=2/b', 'site.example'],
  ['removes an ASP.NET cookieless session segment', 'http://site.example/(S(lit3py55t21z5v55vlm25s55))/order.aspx', 'http://site.example/order.aspx', 'site.example'],
  ['keeps parameters that merely resemble tracking ones', 'http://site.example/p?utm=1&sidebar=2&gclid_x=3', 'http://site.example/p?gclid_x=3&sidebar=2&utm=1', 'site.example'],
  ['keeps + and reserved characters in the query', "http://site.example/p?q=a+b&r=x:y@z!$'()*,;", "http://site.example/p?q=a+b&r=x:y@z!$%27()*,;", 'site.example'],
];

for (const [name, raw, url, host] of accepted) {
  test(`should canonicalize: ${name}`, () => {
    assert.deepEqual(canonicalize(raw), { ok: true, url, host });
  });
}

const rejected: [name: string, raw: string, reason: RejectReason][] = [
  ['a relative reference without base', '/just/a/path', 'malformed'],
  ['an empty string', '', 'malformed'],
  ['garbage', '::::', 'malformed'],
  ['a host-less URL', 'http://', 'malformed'],
  ['an unclosed IPv6 literal', 'http://[::1', 'malformed'],
  ['a bad IPv6 literal', 'http://[zz::1]/', 'malformed'],
  ['an out-of-range port', 'http://site.example:65536/', 'malformed'],
  ['an invalid dotted-quad host', 'http://1.2.3.999/', 'malformed'],
  ['an ftp URL', 'ftp://site.example/file', 'unsupported-scheme'],
  ['a mailto link', 'mailto:someone@site.example', 'unsupported-scheme'],
  ['a javascript link', 'javascript:void(0)', 'unsupported-scheme'],
  ['a data URL', 'data:text/html,hi', 'unsupported-scheme'],
  ['user and password', 'http://user:secret@site.example/', 'credentials'],
  ['a user name alone', 'https://user@site.example/', 'credentials'],
  ['an empty host label', 'http://a..site.example/', 'bad-host'],
  ['a host made only of dots', 'http://./', 'bad-host'],
  ['a wildcard host', 'http://*.site.example/', 'bad-host'],
  ['a host label over 63 characters', `http://${'a'.repeat(64)}.example/`, 'bad-host'],
  ['a host over 253 characters', `http://${'abcdefghi.'.repeat(26)}example/`, 'bad-host'],
  ['port 0', 'http://site.example:0/', 'bad-host'],
];

for (const [name, raw, reason] of rejected) {
  test(`should reject ${name} as ${reason}`, () => {
    const r = canonicalize(raw);
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.reason, reason);
      assert.ok(r.detail.length > 0 && r.detail.length < 200, `detail: ${r.detail}`);
    }
  });
}

test('should resolve relative links against the base', () => {
  const base = 'http://site.example/dir/page.html?x=1';
  assert.deepEqual(canonicalize('../other?b=2&a=1#frag', { base }), {
    ok: true, url: 'http://site.example/other?a=1&b=2', host: 'site.example',
  });
  assert.equal(ok(canonicalize('//cdn.site.example/x', { base })), 'http://cdn.site.example/x');
  assert.equal(ok(canonicalize('?page=2', { base })), 'http://site.example/dir/page.html?page=2');
  assert.equal(ok(canonicalize('https://abs.example/', { base })), 'https://abs.example/');
});

test('should reject a link when the base is unusable', () => {
  const r = canonicalize('page.html', { base: 'not a url' });
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.reason, 'malformed');
});

test('should reject a canonical URL longer than maxLength', () => {
  const url = 'http://site.example/' + 'a'.repeat(100);
  assert.equal(canonicalize(url, { maxLength: 120 }).ok, true);
  const r = canonicalize(url, { maxLength: 100 });
  assert.equal(!r.ok && r.reason, 'too-long');
  const long = canonicalize('http://site.example/' + 'x'.repeat(2100));
  assert.equal(!long.ok && long.reason, 'too-long');
});

test('should judge the length after tracking parameters are removed', () => {
  const url = 'http://site.example/p?utm_content=' + 'x'.repeat(3000);
  assert.equal(ok(canonicalize(url)), 'http://site.example/p');
});

test('should count the length after non-ASCII characters are encoded', () => {
  const r = canonicalize('http://site.example/' + 'é'.repeat(700)); // 700 chars raw, 4200 encoded
  assert.equal(!r.ok && r.reason, 'too-long');
});

test('should reject a 10 MB string without parsing it', () => {
  const huge = 'http://site.example/' + 'a'.repeat(10 * 1024 * 1024);
  const started = process.hrtime.bigint();
  const r = canonicalize(huge);
  const micros = Number(process.hrtime.bigint() - started) / 1000;
  assert.equal(!r.ok && r.reason, 'too-long');
  assert.ok(micros < 2000, `took ${micros} µs`);
});

test('should never throw, whatever the input', () => {
  const nasty: unknown[] = [
    undefined, null, 42, {}, '\u0000', '\ud800', 'http://site.example/\ud800\udc00\ud800', 'http://[', 'http://]',
    'http://%', 'http://%zz/', 'http://site.example/%', 'http://site.example/%%%', 'http://site.example:99999999999/',
    'https://site.example/?' + '&'.repeat(5000), 'http://' + 'a.'.repeat(3000), '\\\\server\\share', 'http:\\\\site.example\\a',
    'http://site.example/(S((S(x))))', 'http://site.example/;jsessionid', 'http://site.example/;;;', 'http://site.example?=&=',
  ];
  for (const input of nasty) {
    const r = canonicalize(input as string);
    assert.equal(typeof r.ok, 'boolean');
    const withBase = canonicalize(input as string, { base: input as string, maxLength: Number.NaN });
    assert.equal(typeof withBase.ok, 'boolean');
  }
});

test('should be idempotent: canonicalizing a canonical URL changes nothing', () => {
  const inputs = [
    ...accepted.map(([, raw]) => raw),
    'http://site.example/a%2e%2E%2fb/%7e%7E?%61=%62&%5F=1',
    'http://site.example/%c3%a9t%C3%A9?q=%c3%a9',
    "http://site.example/a'b?c'd=e'f",
    'http://site.example/a;x=1;jsessionid=2;y=3/(S(abc))/b?b=1&b=0&a',
    'http://site.example/ab%zz?%=%&x=%2',
    'http://site.example/[x]/{y}?[a]={b}',
    'http://site.example/\\a\\b',
  ];
  for (const raw of inputs) {
    const first = canonicalize(raw);
    assert.equal(first.ok, true, raw);
    if (!first.ok) continue;
    const second = canonicalize(first.url);
    assert.deepEqual(second, first, raw);
  }
});

test('should map URLs that differ only in irrelevant ways to one canonical form', () => {
  const variants = [
    'http://Site.Example:80/%7Ejoe/page?b=2&a=1#top',
    'HTTP://site.example./~joe/./page?a=1&utm_source=news&b=2',
    'http://site.example/~joe/x/../page;jsessionid=F00?a=1&b=2&PHPSESSID=1',
  ];
  const urls = new Set(variants.map((v) => ok(canonicalize(v))));
  assert.deepEqual([...urls], ['http://site.example/~joe/page?a=1&b=2']);
});

test('should give hostKey equal to the canonical host', () => {
  for (const raw of ['http://Bücher.Example.:8080/x', 'https://site.example:443/', 'http://[::1]:80/', 'http://127.0.0.5:8080/']) {
    const r = canonicalize(raw);
    assert.equal(r.ok, true, raw);
    if (r.ok) assert.equal(hostKey(new URL(raw)), r.host);
  }
  assert.equal(hostKey(new URL('http://Bücher.Example.:8080/x')), 'xn--bcher-kva.example:8080');
  assert.equal(hostKey(new URL('https://site.example:443/')), 'site.example');
});

function ok(r: ReturnType<typeof canonicalize>): string {
  assert.equal(r.ok, true, JSON.stringify(r));
  return r.ok ? r.url : '';
}
