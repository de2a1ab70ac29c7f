// Properties of parseRobotsTxt and RuleMatcher over generated robots.txt files, rules and URLs
// (fast-check). Runs are few and inputs small so the unit suite stays fast; a failure prints the seed
// and the shrunk counterexample to replay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { normalizeForMatch } from './match-path.js';
import { parseRobotsTxt } from './robots-policy.js';
import { RuleMatcher, type MatchWork } from './rule-matcher.js';

const ORIGIN = 'http://site.test';
const ROBOTS_URL = `${ORIGIN}/robots.txt`;
const TOKEN = 'crawlstream';

// Small alphabets make rules and paths collide often: ties, overlaps, escapes of the same character.
const patternPart = fc.constantFrom('/', 'a', 'b', 'ab', '*', '$', '%41', '%61', '%2F', '%2f', 'é', '~', '?', '=', '.', '%', '-');
const pattern = fc.tuple(fc.constantFrom('/', '/', '/', '*', ''), fc.array(patternPart, { maxLength: 6 }))
  .map(([head, parts]) => head + parts.join(''));
const pathPart = fc.constantFrom('a', 'b', 'ab', '/', '~', '.', '-', '_', 'é', '%2F', '%41', '%7E', '?', '=', '&', '$', '*');
const path = fc.array(pathPart, { maxLength: 10 }).map((parts) => '/' + parts.join(''));
const agent = fc.constantFrom('*', TOKEN, 'CrawlStream/1.0', 'crawlstream bot', 'otherbot', 'Other-Bot');
const ruleLine = fc.tuple(fc.constantFrom('Allow', 'Disallow', 'allow', 'DISALLOW', 'Disalow'), pattern).map(([k, p]) => `${k}: ${p}`);
const otherLine = fc.oneof(
  fc.integer({ min: 0, max: 30 }).map((n) => `Crawl-delay: ${n}`),
  fc.constantFrom('Sitemap: /s.xml', '# comment', '', 'Host: site.test', 'Disallow /nocolon', 'junk'),
  fc.string({ maxLength: 20 }),
);
const group = fc.tuple(fc.array(agent, { minLength: 1, maxLength: 3 }),
  fc.array(fc.oneof({ weight: 4, arbitrary: ruleLine }, { weight: 1, arbitrary: otherLine }), { maxLength: 8 }))
  .map(([agents, lines]) => [...agents.map((a) => `User-agent: ${a}`), ...lines]);
const eol = fc.constantFrom('\n', '\r\n', '\r');
const body = fc.tuple(fc.array(otherLine, { maxLength: 2 }), fc.array(group, { maxLength: 4 }), eol)
  .map(([stray, groups, end]) => [...stray, ...groups.flat()].join(end));
const anyBody = fc.oneof(body, fc.string({ unit: 'binary', maxLength: 400 }), fc.string({ unit: 'grapheme', maxLength: 400 }));
const runs = (numRuns: number) => ({ numRuns });

test('should never throw, and decide every URL, whatever the body and URL', () => {
  fc.assert(fc.property(anyBody, fc.oneof(path.map((p) => ORIGIN + p), fc.string({ maxLength: 60 })), agent, (b, url, token) => {
    const policy = parseRobotsTxt(b, ROBOTS_URL, token);
    assert.equal(typeof policy.isAllowed(url), 'boolean');
    assert.match(policy.digest, /^[0-9a-f]{16}$/);
    assert.ok(policy.crawlDelayMs === undefined || (Number.isFinite(policy.crawlDelayMs) && policy.crawlDelayMs >= 0));
  }), runs(300));
});

test('should parse huge and repetitive bodies and still decide', () => {
  const fragment = fc.constantFrom('*', '*a', 'User-agent: *\n', 'Disallow: /*a*b\n', '%', '#', '\r', ':', 'é', 'Allow: /\n', '\u0000');
  fc.assert(fc.property(fragment, fc.integer({ min: 1, max: 300_000 }), path, (f, times, p) => {
    const policy = parseRobotsTxt('User-agent: *\nDisallow: /' + f.repeat(times), ROBOTS_URL, TOKEN);
    assert.equal(typeof policy.isAllowed(ORIGIN + p), 'boolean');
  }), runs(15));
});

test('should always allow /robots.txt', () => {
  fc.assert(fc.property(anyBody, agent, (b, token) => {
    assert.equal(parseRobotsTxt(b, ROBOTS_URL, token).isAllowed(ROBOTS_URL), true);
  }), runs(200));
});

/** The same path spelled another way RFC 3986 calls equivalent: unreserved characters escaped, hex case changed, UTF-8 escaped. */
function respell(p: string, choices: boolean[]): string {
  let out = '';
  let k = 0;
  const pick = () => choices[k++ % choices.length];
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '%' && /^[0-9A-Fa-f]{2}$/.test(p.slice(i + 1, i + 3))) {
      const hex = p.slice(i + 1, i + 3);
      out += '%' + (pick() ? hex.toLowerCase() : hex.toUpperCase());
      i += 2;
    } else if (/[A-Za-z0-9\-._~]/.test(c) && pick()) {
      const hex = c.charCodeAt(0).toString(16);
      out += '%' + (pick() ? hex.toUpperCase() : hex);
    } else if (c.charCodeAt(0) > 0x7f && pick()) {
      out += encodeURIComponent(c);
    } else {
      out += c;
    }
  }
  return out;
}

test('should decide the same for equivalent spellings of a URL', () => {
  fc.assert(fc.property(body, path, fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }), (b, p, choices) => {
    const policy = parseRobotsTxt(b, ROBOTS_URL, TOKEN);
    const other = respell(p, choices);
    assert.equal(policy.isAllowed(ORIGIN + other), policy.isAllowed(ORIGIN + p), `${p} vs ${other}`);
  }), runs(400));
});

test('should not change its decisions when a group for another crawler is added', () => {
  const otherGroup = fc.constantFrom('User-agent: otherbot\nAllow: /\n\n', 'User-agent: otherbot\nDisallow: /\nCrawl-delay: 99\n\n',
    'User-agent: OtherBot/2.0\nUser-agent: spider\nAllow: /\nSitemap: /other.xml\n\n');
  fc.assert(fc.property(body, otherGroup, fc.array(path, { minLength: 1, maxLength: 6 }), (b, group, paths) => {
    const alone = parseRobotsTxt(b, ROBOTS_URL, TOKEN);
    // Prepended: appended lines could join a group left open at the end of the file.
    const withOther = parseRobotsTxt(group + b, ROBOTS_URL, TOKEN);
    for (const p of paths) assert.equal(withOther.isAllowed(ORIGIN + p), alone.isAllowed(ORIGIN + p), p);
    assert.equal(withOther.crawlDelayMs, alone.crawlDelayMs);
    assert.equal(withOther.digest, alone.digest);
  }), runs(300));
});

test('should not depend on the order of the rules in a group', () => {
  fc.assert(fc.property(fc.array(ruleLine, { maxLength: 12 }).chain((rules) =>
    fc.tuple(fc.constant(rules), fc.shuffledSubarray(rules, { minLength: rules.length, maxLength: rules.length }))), path, ([rules, shuffled], p) => {
    const a = parseRobotsTxt('User-agent: *\n' + rules.join('\n'), ROBOTS_URL, TOKEN);
    const b = parseRobotsTxt('User-agent: *\n' + shuffled.join('\n'), ROBOTS_URL, TOKEN);
    assert.equal(b.isAllowed(ORIGIN + p), a.isAllowed(ORIGIN + p));
    assert.equal(b.digest, a.digest);
  }), runs(300));
});

test('should decide the same with and without the literal index, within linear work', () => {
  // Mostly wildcard patterns over a two-letter alphabet, often anchored: the shapes whose keys differ most.
  const literal = fc.constantFrom('', 'a', 'b', 'ab', 'ba', 'aa', '/', '/a');
  const shaped = fc.tuple(fc.constantFrom('/', '/a', '/b', '*', ''), fc.array(literal, { maxLength: 3 }), fc.boolean())
    .map(([head, parts, anchored]) => head + parts.map((l) => '*' + l).join('') + (anchored ? '$' : ''));
  const rule = fc.record({
    allow: fc.boolean(),
    pattern: fc.oneof(shaped, pattern).filter((p) => p !== '').map((p) => normalizeForMatch(p, true)),
  });
  const matcherPath = fc.oneof(path, fc.array(fc.constantFrom('a', 'b', '/'), { maxLength: 8 }).map((l) => '/' + l.join('')));
  const work = (): MatchWork => ({ candidates: 0, compared: 0, pieces: 0, scanSteps: 0 });
  fc.assert(fc.property(fc.array(rule, { maxLength: 40 }), fc.array(matcherPath, { minLength: 1, maxLength: 8 }), (rules, paths) => {
    const linear = new RuleMatcher(rules, { linearLimit: Infinity });
    const indexed = new RuleMatcher(rules, { linearLimit: 0 });
    for (const raw of paths) {
      const p = normalizeForMatch(raw, false);
      const w = work();
      assert.equal(indexed.isAllowed(p, w), linear.isAllowed(p), `${JSON.stringify(rules)} ${p}`);
      assert.ok(w.candidates <= rules.length);
      assert.ok(w.pieces <= w.compared * (p.length + 2), `${w.pieces} pieces for ${w.compared} rules on ${p}`);
      assert.ok(w.scanSteps <= 2 * (p.length + 2));
    }
  }), runs(300));
});
