// test-plan: unit ~12s
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import robotsParserModule from 'robots-parser';
import { request } from 'undici';
import { referenceCrawl } from './reference-crawl.js';
import { ROBOTS_MATCH_BODY, ROBOTS_REDIRECTED_BODY, ROBOTS_TOKEN_BODY } from './sites-robots.js';
import { startSyntheticWeb, type SyntheticWeb } from './synthetic-web.js';

// CommonJS package with an ES-style d.ts: at runtime the default import is the function itself.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;
// What the reference crawls wait for the hang and the trickle (unlisted: in neither expected list):
// 10 s each by default, most of this file's time; an ordinary page answers in milliseconds even on
// a loaded machine, and one that took 4 s would show as missing, not pass unseen.
const HOSTILE_TIMEOUT_MS = 4_000;

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await request(url, { headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body, text: body.toString('utf8') };
}

describe('synthetic web, test scenario', () => {
  let web: SyntheticWeb;
  before(async () => {
    web = await startSyntheticWeb({ scenario: 'test' });
  });
  after(() => web.close());

  test('should serve every host on its own loopback address, all on one port', async () => {
    const addresses = new Set(web.hosts.map((h) => h.address));
    assert.equal(addresses.size, web.hosts.length);
    assert.ok(web.hosts.length >= 20);
    for (const h of web.hosts) {
      assert.match(h.address, /^127\.\d+\.\d+\.\d+$/);
      assert.equal(h.origin, `http://${h.address}:${web.port}`);
      assert.equal(web.origin(h.name), h.origin);
    }
    web.resetLog();
    const plain = web.hosts.filter((h) => h.name.startsWith('plain-'));
    const answers = await Promise.all(plain.map((h) => get(`${h.origin}/`)));
    assert.deepEqual(answers.map((a) => a.status), plain.map(() => 200));
    assert.deepEqual(web.requests.map((r) => r.host).sort(), plain.map((h) => `${h.address}:${web.port}`).sort());
  });

  test('should log each request server-side with path, user agent, timing and status', async () => {
    web.resetLog();
    const origin = web.origin('plain-2');
    await get(`${origin}/about?utm_source=x`, { 'user-agent': 'crawlstream/0.1 test' });
    await get(`${origin}/no-such-page`, { 'user-agent': 'crawlstream/0.1 test' });
    assert.equal(web.requests.length, 2);
    const [first, second] = web.requests;
    assert.equal(first.path, '/about?utm_source=x');
    assert.equal(first.userAgent, 'crawlstream/0.1 test');
    assert.equal(first.status, 200);
    assert.equal(second.status, 404);
    assert.ok(first.startedAt <= first.endedAt && first.endedAt <= second.startedAt);
    assert.ok(Math.abs(first.startedAt - Date.now()) < 5000);
  });

  test('should serve one page for reordered queries, fragments-free variants and tracking parameters', async () => {
    const origin = web.origin('plain-1');
    const a = await get(`${origin}/products?color=red&id=3`);
    const b = await get(`${origin}/products?id=3&color=red&utm_source=x`);
    assert.equal(a.status, 200);
    assert.equal(a.text, b.text);
    assert.match(a.text, /<title>[^<]+<\/title>/);
  });

  test('should answer robots.txt per variant: 404, 403, 503, redirect, product-token group, crawl-delay', async () => {
    const robots = async (name: string) => get(`${web.origin(name)}/robots.txt`);
    assert.equal((await robots('robots-404')).status, 404);
    assert.equal((await robots('robots-403')).status, 403);
    assert.equal((await robots('robots-503')).status, 503);
    assert.equal((await robots('robots-503')).status, 503, 'the 503 is permanent');
    const moved = await robots('robots-redirect');
    assert.equal(moved.status, 301);
    assert.equal(moved.headers.location, '/policy/robots.txt');
    const target = await get(`${web.origin('robots-redirect')}/policy/robots.txt`);
    assert.equal(target.text, ROBOTS_REDIRECTED_BODY);
    assert.match((await robots('robots-token')).text, /User-agent: crawlstream\nDisallow: \/not-for-crawlstream\//);
    assert.match((await robots('robots-delay')).text, /Crawl-delay: 2/);
    assert.deepEqual(web.expected.hostDelayMs, { [web.origin('robots-delay')]: 2000 });
  });

  test('should list as mustNotFetch exactly the robots-disallowed pages an independent parser finds', () => {
    const cases: Array<[string, string, string]> = [
      ['robots-match', ROBOTS_MATCH_BODY, '/'],
      ['robots-token', ROBOTS_TOKEN_BODY, '/'],
      ['robots-redirect', ROBOTS_REDIRECTED_BODY, '/policy/robots.txt'],
    ];
    for (const [name, body, at] of cases) {
      const origin = web.origin(name);
      const parser = robotsParser(`${origin}${at}`, body);
      const urls = [...web.expected.mustFetch, ...web.expected.mustNotFetch].filter((u) => u.startsWith(`${origin}/`));
      const disallowed = urls.filter((u) => parser.isAllowed(u, 'crawlstream/0.1') === false).sort();
      assert.ok(disallowed.length >= 1, `${name} has disallowed URLs`);
      assert.ok(urls.length - disallowed.length >= 2, `${name} has allowed URLs`);
      assert.deepEqual(disallowed, web.expected.mustNotFetch.filter((u) => u.startsWith(`${origin}/`)));
    }
  });

  test('should list the robots-503 host pages, nofollow targets and misread-base page as mustNotFetch', () => {
    const not = new Set(web.expected.mustNotFetch);
    for (const path of ['/', '/page-1']) assert.ok(not.has(web.origin('robots-503') + path));
    for (const u of [
      `${web.origin('plain-1')}/docs/intro`,
      `${web.origin('plain-2')}/hidden/nofollow-only`,
      `${web.origin('plain-3')}/hidden/meta-1`,
      `${web.origin('plain-3')}/hidden/meta-2`,
      web.endpoints.malformedInComment,
    ]) {
      assert.ok(not.has(u), u);
    }
    const must = new Set(web.expected.mustFetch);
    for (const u of web.expected.mustNotFetch) assert.ok(!must.has(u), u);
    for (const origin of web.expected.trapOrigins) assert.ok(!web.expected.mustFetch.some((u) => u.startsWith(origin)));
    assert.ok(must.has(`${web.origin('plain-1')}/docs/reference/intro`), 'the page only reachable through <base href>');
    assert.ok(must.has(web.endpoints.redirectFinal), 'the end of the 3-hop chain');
    assert.ok(!must.has(web.endpoints.longRedirectFinal) && !not.has(web.endpoints.longRedirectFinal));
  });

  test('should describe duplicates that are really byte-identical or differ only in the byline', async () => {
    const [[x, y]] = web.expected.exactDuplicates;
    assert.notEqual(new URL(x).host, new URL(y).host);
    assert.deepEqual((await get(x)).body, (await get(y)).body);
    for (const [p, q] of web.expected.nearDuplicates) {
      assert.notEqual(new URL(p).host, new URL(q).host);
      const words = async (u: string) => (await get(u)).text.replace(/<[^>]*>/g, ' ').split(/\s+/).filter(Boolean);
      const [wp, wq] = [await words(p), await words(q)];
      assert.equal(wp.length, wq.length);
      assert.ok(wp.length >= 600);
      const differing = wp.filter((w, i) => w !== wq[i]).length;
      assert.ok(differing >= 1 && differing <= 3, `${differing} words differ`);
    }
    assert.equal(web.expected.distinctPages.length, 6);
  });

  test('should let a correct crawler fetch all of mustFetch and none of mustNotFetch', async () => {
    web.resetLog();
    const { fetched } = await referenceCrawl({ seeds: web.seeds, skipOrigins: web.expected.trapOrigins, timeoutMs: HOSTILE_TIMEOUT_MS });
    const missing = web.expected.mustFetch.filter((u) => fetched.get(u) !== 200);
    assert.deepEqual(missing, []);
    const forbidden = web.expected.mustNotFetch.filter((u) => fetched.has(u));
    assert.deepEqual(forbidden, []);
    // The server's own log agrees: robots-503 saw nothing but robots.txt.
    const host503 = new URL(web.origin('robots-503')).host;
    assert.deepEqual([...new Set(web.requests.filter((r) => r.host === host503).map((r) => r.path))], ['/robots.txt']);
  });

  test('should lead a sloppy crawler (no robots, no nofollow, no <base>, regex links) into every mustNotFetch URL', async () => {
    const { fetched } = await referenceCrawl({ seeds: web.seeds, skipOrigins: web.expected.trapOrigins, sloppy: true, timeoutMs: HOSTILE_TIMEOUT_MS });
    assert.deepEqual(web.expected.mustNotFetch.filter((u) => !fetched.has(u)), []);
  });

  test('should collapse the session trap only under canonicalization', async () => {
    const origin = web.origin('trap-session');
    const a = await get(`${origin}/item/2;jsessionid=ABC?sid=1`);
    const b = await get(`${origin}/item/2`);
    assert.equal(a.status, 200);
    const sessionLinks = (t: string) => [...t.matchAll(/href="([^"]*)"/g)].map((m) => m[1]).filter((h) => /sid=/.test(h));
    assert.ok(sessionLinks(a.text).length >= 5);
    assert.notDeepEqual(sessionLinks(a.text), sessionLinks(b.text), 'fresh session ids on every response');
    assert.equal(web.expected.sessionTrapPages.length, 5);
  });

  test('should generate traps without end: calendar months and deep paths', async () => {
    const cal = await get(`${web.origin('trap-calendar')}/calendar/2999/12`);
    assert.equal(cal.status, 200);
    assert.match(cal.text, /href="\/calendar\/3000\/01"/);
    const deepPath = `/${'a/b/'.repeat(30)}`;
    const deep = await get(`${web.origin('trap-deep')}${deepPath}`);
    assert.equal(deep.status, 200);
    assert.match(deep.text, /href="a\/"/);
    const counting = await get(`${web.origin('trap-deep')}/deep/${Array.from({ length: 40 }, (_, i) => i + 1).join('/')}/`);
    assert.match(counting.text, /href="41\/"/);
  });
});
