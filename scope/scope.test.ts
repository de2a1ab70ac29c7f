import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalize } from '../url/canonicalize.js';
import { compileScope, describeScope, parseScopeConfig, ScopeConfigError, type Scope, type ScopeConfig } from './scope.js';

function decide(scope: Scope, raw: string): string {
  const c = canonicalize(raw);
  if (!c.ok) throw new Error(`test URL ${raw} does not canonicalize`);
  const d = scope.decide(c.url, c.host);
  return d.ok ? 'ok' : d.reason;
}

const SEEDS = ['http://www.site.test/start', 'http://127.0.0.1:8080/'];

test('should keep only the seeds hosts, port included, in host mode', () => {
  const scope = compileScope({ mode: 'host', seeds: SEEDS, include: [], exclude: [] });
  assert.equal(decide(scope, 'http://www.site.test/other'), 'ok');
  assert.equal(decide(scope, 'https://www.site.test/other'), 'ok');
  assert.equal(decide(scope, 'http://WWW.SITE.TEST/x'), 'ok');
  assert.equal(decide(scope, 'http://site.test/'), 'out-of-scope-host');
  assert.equal(decide(scope, 'http://www.site.test:8081/'), 'out-of-scope-host');
  assert.equal(decide(scope, 'http://127.0.0.1:8080/a'), 'ok');
  assert.equal(decide(scope, 'http://127.0.0.1/a'), 'out-of-scope-host');
});

test('should keep every host of the seeds registrable domains, any port, in domain mode', () => {
  const scope = compileScope({ mode: 'domain', seeds: SEEDS, include: [], exclude: [] });
  assert.equal(decide(scope, 'http://site.test/'), 'ok');
  assert.equal(decide(scope, 'http://cdn.img.site.test:9999/a.png'), 'ok');
  assert.equal(decide(scope, 'http://othersite.test/'), 'out-of-scope-domain');
  assert.equal(decide(scope, 'http://site.test.evil.test/'), 'out-of-scope-domain');
  assert.equal(decide(scope, 'http://127.0.0.1:9/'), 'ok');
  assert.equal(decide(scope, 'http://127.0.0.2:8080/'), 'out-of-scope-domain');
});

test('should treat users of a private suffix as separate domains', () => {
  const scope = compileScope({ mode: 'domain', seeds: ['https://alice.github.io/'], include: [], exclude: [] });
  assert.equal(decide(scope, 'https://www.alice.github.io/x'), 'ok');
  assert.equal(decide(scope, 'https://bob.github.io/x'), 'out-of-scope-domain');
});

test('should let exclude win over include, and require an include match when includes are given', () => {
  const scope = compileScope({ mode: 'any', seeds: [], include: ['*/docs/*', 're:\\.pdf$'], exclude: ['*/private/*'] });
  assert.equal(decide(scope, 'http://a.test/docs/intro'), 'ok');
  assert.equal(decide(scope, 'http://b.test/paper.pdf'), 'ok');
  assert.equal(decide(scope, 'http://a.test/docs/private/x'), 'excluded');
  assert.equal(decide(scope, 'http://a.test/blog/'), 'not-included');
});

test('should keep a seed URL in scope whatever the patterns say, but not its neighbours', () => {
  const scope = compileScope({ mode: 'host', seeds: ['http://site.test/private/start?b=2&a=1'], include: ['*/docs/*'], exclude: ['*/private/*'] });
  assert.equal(decide(scope, 'http://SITE.test/private/start?a=1&b=2'), 'ok');
  assert.equal(decide(scope, 'http://site.test/private/other'), 'excluded');
  assert.equal(decide(scope, 'http://site.test/'), 'not-included');
});

test('should survive a JSON round trip with the same decisions', () => {
  const config: ScopeConfig = { mode: 'domain', seeds: SEEDS, include: ['re:^http://'], exclude: ['*/private/*'] };
  const scope = compileScope(config);
  const again = compileScope(parseScopeConfig(JSON.parse(JSON.stringify(scope.config))));
  for (const url of ['http://www.site.test/a', 'http://x.site.test/private/', 'https://site.test/', 'http://other.test/']) {
    assert.equal(decide(again, url), decide(scope, url), url);
  }
  assert.deepEqual(again.config, config);
});

test('should refuse a bad config with a message naming the problem', () => {
  const base = { mode: 'any', seeds: [], include: [], exclude: [] };
  assert.throws(() => parseScopeConfig({ ...base, mode: 'site' }), /--scope must be one of any, domain, host/);
  assert.throws(() => parseScopeConfig(null), ScopeConfigError);
  assert.throws(() => parseScopeConfig({ ...base, include: ['ok', 3] }), /include must be an array of strings/);
  assert.throws(() => compileScope({ ...base, mode: 'host' } as ScopeConfig), /needs at least one seed/);
  assert.throws(() => compileScope({ ...base, mode: 'host', seeds: ['ftp://site.test/'] } as ScopeConfig), /seed "ftp:\/\/site.test\/" is not a crawlable URL/);
  assert.throws(() => compileScope({ ...base, exclude: ['re:(a*)*'] } as ScopeConfig), /--exclude: .*nested quantifiers/);
  assert.throws(() => compileScope({ ...base, include: Array(257).fill('*') } as ScopeConfig), /--include: 257 patterns, at most 256/);
  assert.deepEqual(parseScopeConfig({ mode: 'any', extra: 1 }), base);
});

test('should describe the scope in one line for logs', () => {
  assert.equal(
    describeScope({ mode: 'domain', seeds: SEEDS, include: [], exclude: ['*/private/*'] }),
    'scope domain of site.test, 127.0.0.1; exclude */private/*; include (any); seeds always in scope',
  );
  const many = Array.from({ length: 7 }, (_, i) => `http://h${i}.test/`);
  const scope = compileScope({ mode: 'host', seeds: many, include: ['*a*'], exclude: [] });
  assert.equal(describeScope(scope), 'scope host of h0.test, h1.test, h2.test, h3.test, h4.test and 2 more; exclude (none); include *a*; seeds always in scope');
});

const word = fc.stringMatching(/^[a-z]{1,6}$/);
const testUrl = fc
  .tuple(fc.constantFrom('http', 'https'), fc.array(word, { minLength: 1, maxLength: 3 }), fc.array(word, { maxLength: 4 }))
  .map(([scheme, labels, path]) => `${scheme}://${labels.join('.')}.test/${path.join('/')}`);

test('should never let a non-seed URL matching an exclude pattern through, in any mode', () => {
  fc.assert(
    fc.property(fc.constantFrom('any', 'domain', 'host') as fc.Arbitrary<ScopeConfig['mode']>, testUrl, word, (mode, raw, needle) => {
      const c = canonicalize(raw);
      fc.pre(c.ok);
      if (!c.ok) return;
      const scope = compileScope({ mode, seeds: ['http://seed.test/'], include: [], exclude: [`*${needle}*`] });
      const d = scope.decide(c.url, c.host);
      if (c.url.includes(needle) && c.url !== 'http://seed.test/') assert.equal(d.ok, false);
      if (d.ok) assert.ok(!c.url.includes(needle) || c.url === 'http://seed.test/');
    }),
    { numRuns: 1000 },
  );
});

test('should never throw on arbitrary URL and host strings', () => {
  const scope = compileScope({ mode: 'domain', seeds: SEEDS, include: ['*a*'], exclude: ['re:b$'] });
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), fc.string({ maxLength: 80 }), (url, host) => {
      const d = scope.decide(url, host);
      assert.equal(typeof d.ok, 'boolean');
    }),
    { numRuns: 2000 },
  );
});
