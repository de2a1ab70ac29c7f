import { test } from 'node:test';
import assert from 'node:assert/strict';
import robotsParserModule from 'robots-parser';
import { normalizeForMatch } from './match-path.js';
import { parseRobotsText } from './robots-text.js';
import { RuleMatcher, type MatchRule, type MatchWork } from './rule-matcher.js';
import { manyWildcardRules, pageLinks } from './sample-robots.js';

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

/** The two ways a matcher decides: rule by rule (small files) and through the literal index (large ones). */
const MODES: [string, number][] = [['rule by rule', Infinity], ['indexed', 0]];
const newWork = (): MatchWork => ({ candidates: 0, compared: 0, pieces: 0, scanSteps: 0 });

for (const [name, rules, allowed, disallowed] of cases) {
  for (const [mode, linearLimit] of MODES) {
    test(`should decide by longest match (${mode}): ${name}`, () => {
      const m = new RuleMatcher(rules, { linearLimit });
      for (const p of allowed) assert.equal(m.isAllowed(p), true, `allowed ${p}`);
      for (const p of disallowed) assert.equal(m.isAllowed(p), false, `disallowed ${p}`);
    });
  }
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
    const linear = new RuleMatcher(rules, { linearLimit: Infinity });
    const indexed = new RuleMatcher(rules, { linearLimit: 0 });
    for (let j = 0; j < 20; j++) {
      const path = '/' + word('ab', 6);
      const expected = oracle.isAllowed('http://site.example' + path, 'crawlstream');
      assert.equal(linear.isAllowed(path), expected, `${body}\npath ${path}`);
      assert.equal(indexed.isAllowed(path), expected, `indexed: ${body}\npath ${path}`);
      checked++;
    }
  }
  assert.equal(checked, 20_000);
});

test('should compare a pattern of thousands of wildcards with a path in work linear in the path', () => {
  const path = '/' + 'a'.repeat(2000);
  const hostile = [
    d('/' + '*a'.repeat(1500) + '*b'), // gets 1,500 pieces deep, then fails
    d('/' + '*'.repeat(50_000) + 'b'), // runs of '*' are one wildcard
    d('/' + '*a'.repeat(8000) + 'b'), // longer than the path: never searched
    d('/' + 'a*'.repeat(1999) + 'a$'),
  ];
  for (const [mode, linearLimit] of MODES) {
    for (const rule of hostile) {
      const work = newWork();
      new RuleMatcher([rule], { linearLimit }).isAllowed(path, work);
      assert.ok(work.pieces <= path.length + 2, `${mode}: ${work.pieces} pieces searched for ${rule.pattern.slice(0, 20)}…`);
    }
    const many = Array.from({ length: 30 }, (_, i) => d('/' + '*a'.repeat(1500) + '*b' + i));
    const work = newWork();
    assert.equal(new RuleMatcher(many, { linearLimit }).isAllowed(path, work), true);
    assert.ok(work.pieces <= work.compared * (path.length + 2), `${mode}: ${work.pieces} pieces for ${work.compared} rules`);
  }
});

function wildcardMatcher(count: number): RuleMatcher {
  const group = parseRobotsText(manyWildcardRules(count)).groups[0];
  return new RuleMatcher(group.rules.map((r) => ({ allow: r.allow, pattern: normalizeForMatch(r.pattern, true) })));
}

test('should examine only the rules whose required literal a path contains, however many rules there are', () => {
  const big = wildcardMatcher(37_000);
  assert.equal(big.size, 37_000);
  const paths = pageLinks('http://shop.test', 2000).map((u) => {
    const url = new URL(u);
    return normalizeForMatch(url.pathname + url.search, false);
  });
  let most = 0;
  for (const path of paths) {
    const work = newWork();
    big.isAllowed(path, work);
    // Every rule here requires a distinct 3-character literal, so at most one candidate per position,
    // and rules that cannot beat the best match found so far are not compared.
    assert.ok(work.candidates <= path.length, `${work.candidates} candidates for ${path}`);
    assert.ok(work.compared <= 3, `${work.compared} compared for ${path}`);
    assert.ok(work.scanSteps <= 2 * (path.length + 2), `${work.scanSteps} scan steps for ${path}`);
    most = Math.max(most, work.candidates);
  }
  assert.ok(most < 100, `at most ${most} of 37,000 rules examined for one path`);

  const noLiteral = '/' + '-_.~'.repeat(50);
  for (const m of [wildcardMatcher(1000), big]) {
    const work = newWork();
    assert.equal(m.isAllowed(noLiteral, work), true);
    assert.equal(work.candidates, 0, `${m.size} rules`);
  }
});

test('should index raw non-ASCII patterns by checking them against every path', () => {
  const m = new RuleMatcher([d('/café'), a('/caf'), d('/x*é$')], { linearLimit: 0 });
  assert.equal(m.isAllowed('/café/menu'), false);
  assert.equal(m.isAllowed('/cafe'), true);
  assert.equal(m.isAllowed('/x/né'), false);
});

test('should keep rules no literal can select and still rank them by length', () => {
  const rules = [d('*'), a('**$'), d('/*.x$'), ...Array.from({ length: 40 }, (_, i) => d(`/p${i}/`))];
  const m = new RuleMatcher(rules, { linearLimit: 0 });
  assert.equal(m.isAllowed('/q'), true); // "**$" (3 octets) beats "*" (1)
  assert.equal(m.isAllowed('/q.x'), false); // "/*.x$" is longer still
  assert.equal(m.isAllowed('/p7/z'), false);
});
