// The test vectors of Google's robots.txt parser and of crawler-commons' RFC 9309 parser, ported as
// data (conformance-google.ts, conformance-crawler-commons.ts) and run against parseRobotsTxt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { caseFailures, type ConformanceCase } from './conformance-cases.js';
import { CRAWLER_COMMONS_CASES } from './conformance-crawler-commons.js';
import { CRAWLER_COMMONS_FILE_CASES } from './conformance-crawler-commons-files.js';
import { GOOGLE_CASES, GOOGLE_PATTERN_ESCAPES, GOOGLE_PRODUCT_TOKENS } from './conformance-google.js';
import { normalizeForMatch } from './match-path.js';
import { parseRobotsTxt } from './robots-policy.js';
import { isValidProductToken } from './robots-text.js';

const suites: [string, ConformanceCase[]][] = [
  ['google', GOOGLE_CASES], ['crawler-commons', CRAWLER_COMMONS_CASES], ['crawler-commons file', CRAWLER_COMMONS_FILE_CASES],
];

for (const [suite, cases] of suites) {
  for (const c of cases) {
    const label = c.divergence ? ' (RFC 9309 reading, see divergence)' : '';
    test(`should follow ${suite} ${c.name}${label}`, () => {
      assert.deepEqual(caseFailures(c, parseRobotsTxt), [], c.divergence ?? c.adapted ?? c.source);
    });
  }

  test(`should cite a source for every ${suite} case and explain every divergence`, () => {
    for (const c of cases) {
      assert.ok(c.source && c.source.length > 0, c.name);
      assert.ok((c.allowed?.length ?? 0) + (c.disallowed?.length ?? 0) > 0 || 'crawlDelayMs' in c || c.sitemaps, `${c.name} asserts nothing`);
      if (c.divergence !== undefined) assert.ok(c.divergence.length > 40, `${c.name}: say why`);
    }
  });
}

test('should tell valid product tokens from invalid ones as Google does (ID_VerifyValidUserAgentsToObey)', () => {
  for (const [token, valid] of GOOGLE_PRODUCT_TOKENS) assert.equal(isValidProductToken(token), valid, JSON.stringify(token));
});

test('should spell patterns as Google does before matching (TestMaybeEscapePattern)', () => {
  for (const [pattern, normalized] of GOOGLE_PATTERN_ESCAPES) assert.equal(normalizeForMatch(pattern, true), normalized, pattern);
});
