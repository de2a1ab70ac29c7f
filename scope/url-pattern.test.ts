import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compileGlob, compilePattern, MAX_PATTERN_LENGTH, PatternError } from './url-pattern.js';

test('should match a glob against the whole URL, * spanning slashes', () => {
  const m = compilePattern('*/private/*');
  assert.equal(m('http://site.test/private/a'), true);
  assert.equal(m('http://site.test/a/b/private/c/d'), true);
  assert.equal(m('http://site.test/private'), false);
  assert.equal(m('http://site.test/privateer/x'), false);
  assert.equal(compilePattern('http://site.test/*.pdf')('http://site.test/docs/a.pdf'), true);
  assert.equal(compilePattern('http://site.test/*.pdf')('http://site.test/docs/a.pdf?download=1'), false);
});

test('should read every glob character but * literally, ? included', () => {
  assert.equal(compilePattern('*?page=*')('http://site.test/list?page=2'), true);
  assert.equal(compilePattern('*?page=*')('http://site.test/listXpage=2'), false);
  assert.equal(compilePattern('http://site.test/a.b')('http://site.test/aXb'), false);
  assert.equal(compilePattern('*[x]*')('http://site.test/[x]'), true);
  assert.equal(compilePattern('http://site.test/')('http://site.test/'), true);
  assert.equal(compilePattern('http://site.test/')('http://site.test/a'), false);
});

test('should handle globs whose stars meet or whose pieces overlap', () => {
  assert.equal(compilePattern('**')(''), true);
  assert.equal(compilePattern('a*a')('a'), false);
  assert.equal(compilePattern('a*a')('aa'), true);
  assert.equal(compilePattern('*ab*ab*')('xabab'), true);
  assert.equal(compilePattern('*aba*')('abab'), true);
});

test('should search a re: pattern anywhere in the URL, case-sensitively', () => {
  const m = compilePattern('re:/(en|fr)/');
  assert.equal(m('http://site.test/en/page'), true);
  assert.equal(m('http://site.test/EN/page'), false);
  assert.equal(compilePattern('re:^https://')('http://site.test/https://'), false);
});

test('should reject invalid, over-long and nested-quantifier patterns with a reason', () => {
  assert.throws(() => compilePattern(''), PatternError);
  assert.throws(() => compilePattern('re:(unclosed'), /not a valid regular expression/);
  assert.throws(() => compilePattern('re:(a+)+$'), /nested quantifiers/);
  assert.throws(() => compilePattern('x'.repeat(MAX_PATTERN_LENGTH + 1)), /longer than 512/);
  assert.doesNotThrow(() => compilePattern('*'.repeat(MAX_PATTERN_LENGTH)));
});

test('should match a glob of many stars against a long URL without backtracking blow-up', () => {
  // As a backtracking RegExp (^.*a.*a…b$) this takes time growing with the 2,048th power of nothing
  // good; the indexOf matcher scans once per piece.
  const glob = compilePattern('*a'.repeat(200) + '*b');
  assert.equal(glob('a'.repeat(2048)), false);
  assert.equal(glob('a'.repeat(2047) + 'b'), true);
});

test('should agree with a reference regular expression on any glob and string', () => {
  const alphabet = fc.constantFrom('a', 'b', '/', '?', '.', '*');
  const toRegex = (glob: string): RegExp =>
    new RegExp('^' + glob.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('.*') + '$', 's');
  fc.assert(
    fc.property(fc.string({ unit: alphabet, maxLength: 8 }), fc.string({ unit: alphabet, maxLength: 14 }), (glob, s) => {
      fc.pre(glob !== '');
      assert.equal(compileGlob(glob)(s), toRegex(glob).test(s), `${glob} vs ${s}`);
    }),
    { numRuns: 3000 },
  );
});
