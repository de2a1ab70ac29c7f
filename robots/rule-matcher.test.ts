import { test } from 'node:test';
import assert from 'node:assert/strict';
import robotsParserModule from 'robots-parser';
import { RuleMatcher, type MatchRule } from './rule-matcher.js';

// CommonJS package whose typings declare an ES default export; the default import is the function.
const robotsParser = robotsParserModule as unknown as (url: string, body: string) => {
  isAllowed(url: string, ua?: string): boolean | undefined;
};

const d = (pattern: string): MatchRule => ({ allow: false, pattern });
const a = (pattern: string): MatchRule => ({ allow: true, pattern });

const cases: [name: string, rules: MatchRule[], allowed: string[], disallowed: string[]][] = [
  ['prefix match', [d('/private')], ['/', '/priv', '/Private'], ['/private', '/private/x', '/privateer']],
  ['anchored literal', [d('/exact$')], ['/exact/', '/exactly'], ['/exact']],
  ['wildcard in the middle', [d('/a*/z')], ['/a', '/az', '/b/z'], ['/a/z', '/abc/z', '/a/b/c/zz']],
  ['wildcard then anchor', [d('/*.gif$')], ['/a.gif?x', '/a.gifs'], ['/a.gif', '/b/c.gif', '/.gif']],
  ['anchor after a piece that also occurs earlier', [d('/*ab$')], ['/abx', '/ab/'], ['/ab', '/abab', '/xab']],
  ['pieces must not overlap', [d('/*aba*aba$')], ['/aba', '/ababa'], ['/abaaba', '/xabayyaba']],
  ['consecutive wildcards', [d('/a**b')], ['/a'], ['/ab', '/axxb']],
  ['a bare wildcard matches everything', [d('*')], [], ['/', '/x']],
  ['longest pattern wins', [a('/a'), d('/a/b'), a('/a/b/c')], ['/a', '/a/b/c/d'], ['/a/b', '/a/bc']],
  ['allow wins a tie', [d('/x'), a('/x')], ['/x'], []],
  ['wildcards count towards length', [a('/*$'), d('/p')], ['/p'], []],
  ['no rules: allowed', [], ['/', '/x'], []],
];

for (const [name, rules, allowed, disallowed] of cases) {
  test(`should decide by longest match: ${name}`, () => {
    const m = new RuleMatcher(rules);
    for (const p of allowed) assert.equal(m.isAllowed(p), true, `allowed ${p}`);
    for (const p of disallowed) assert.equal(m.isAllowed(p), false, `disallowed ${p}`);
  });
}

test('should decide exactly as robots-parser on random rule sets and paths', () => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return Math.floor((seed / 0x80000000) * n); // high bits: the low bits of this generator cycle quickly
  };
  const word = (alphabet: string, max: number) => {
    let s = '';
    for (let i = random(max + 1); i > 0; i--) s += alphabet[random(alphabet.length)];
    return s;
  };
  let checked = 0;
  // A small alphabet and short words make ties, overlaps and repeated pieces common.
  for (let round = 0; round < 1000; round++) {
    const rules: MatchRule[] = [];
    for (let i = 1 + random(6); i > 0; i--) {
      const pattern = '/' + word('aab*', 4) + (random(3) === 0 ? '$' : '');
      rules.push({ allow: random(2) === 0, pattern });
    }
    const body = 'User-agent: *\n' + rules.map((r) => `${r.allow ? 'Allow' : 'Disallow'}: ${r.pattern}`).join('\n');
    const oracle = robotsParser('http://site.example/robots.txt', body);
    const ours = new RuleMatcher(rules);
    for (let j = 0; j < 20; j++) {
      const path = '/' + word('ab', 6);
      assert.equal(ours.isAllowed(path), oracle.isAllowed('http://site.example' + path, 'crawlstream'), `${body}\npath ${path}`);
      checked++;
    }
  }
  assert.equal(checked, 20_000);
});

test('should stay fast on hostile wildcard rules', () => {
  const rules = Array.from({ length: 30 }, (_, i) => d('/' + '*a'.repeat(8000) + i));
  const m = new RuleMatcher(rules);
  const started = Date.now();
  assert.equal(m.isAllowed('/' + 'a'.repeat(2000)), true);
  assert.ok(Date.now() - started < 200, `took ${Date.now() - started} ms`);
});
