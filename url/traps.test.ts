import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trapReason } from './traps.js';

const opts = { maxRepeatedPathSegments: 3, maxQueryParams: 5 };

const cases: [name: string, url: string, expected: string | undefined][] = [
  ['an ordinary page', 'http://site.example/docs/guide/intro.html?lang=en', undefined],
  ['the root', 'http://site.example/', undefined],
  ['no path at all', 'http://site.example', undefined],
  ['a segment repeated exactly the allowed number of times', 'http://site.example/x/x/x', undefined],
  ['a segment repeated once too often', 'http://site.example/x/x/x/x', 'repeated-path-segments'],
  ['a cycle of relative links', 'http://site.example/a/b/a/b/a/b/a/b/page', 'repeated-path-segments'],
  ['repeats spread over a long path', 'http://site.example/cal/2024/next/2024/next/2024/next/2024', 'repeated-path-segments'],
  ['repeats with a trailing slash', 'http://site.example/x/x/x/x/', 'repeated-path-segments'],
  ['segments that differ only in case', 'http://site.example/a/A/a/A/a', undefined],
  ['empty segments from double slashes', 'http://site.example/a//////b', undefined],
  ['repeats only inside the query', 'http://site.example/p?x=/a/a/a/a/a', undefined],
  ['repeats only in the host', 'http://a.a.a.a.a.site.example/', undefined],
  ['exactly the allowed number of query parameters', 'http://site.example/s?a=1&b=2&c=3&d=4&e=5', undefined],
  ['one query parameter too many', 'http://site.example/s?a=1&b=2&c=3&d=4&e=5&f=6', 'query-explosion'],
  ['repeated names counted as separate parameters', 'http://site.example/s?f=1&f=2&f=3&f=4&f=5&f=6', 'query-explosion'],
  ['empty query pieces not counted', 'http://site.example/s?a=1&&&&&&b=2', undefined],
  ['ampersands in the fragment not counted', 'http://site.example/s?a=1#b&c&d&e&f&g', undefined],
  ['a path check before the query check', 'http://site.example/x/x/x/x?a&b&c&d&e&f', 'repeated-path-segments'],
];

for (const [name, url, expected] of cases) {
  test(`should report ${expected ?? 'no trap'} for ${name}`, () => {
    assert.equal(trapReason(url, opts), expected);
  });
}

test('should honour the configured limits', () => {
  const url = 'http://site.example/x/x?a&b';
  assert.equal(trapReason(url, { maxRepeatedPathSegments: 2, maxQueryParams: 2 }), undefined);
  assert.equal(trapReason(url, { maxRepeatedPathSegments: 1, maxQueryParams: 2 }), 'repeated-path-segments');
  assert.equal(trapReason(url, { maxRepeatedPathSegments: 2, maxQueryParams: 1 }), 'query-explosion');
});

test('should not throw on strings that are not URLs', () => {
  for (const s of ['', '?', '/', '://', '////', '?&&&', 'no-scheme/x/x/x/x', undefined as unknown as string]) {
    assert.doesNotThrow(() => trapReason(s, opts));
  }
  assert.equal(trapReason('no-scheme/x/x/x/x', opts), 'repeated-path-segments');
});
