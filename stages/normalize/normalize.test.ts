import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlTestDriver, type CrawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import { NO_HINTS, type CanonicalUrl, type DiscoveredUrl } from '../../schemas/records.js';
import { canonicalEntries, MAX_BATCH_URLS } from '../../contract/url-batch.js';

function found(url: string, over: Partial<DiscoveredUrl> = {}): DiscoveredUrl {
  return { url, source_url: 'http://127.0.0.9/from', depth: 1, anchor: 'a link', via: 'link', redirect_hops: 0, discovered_at: 42, ...NO_HINTS, more: [], ...over };
}

/** The key a discovery is piped with does not matter to normalize: it re-keys by the canonical host. */
async function normalize(d: CrawlTestDriver, value: DiscoveredUrl) {
  await d.pipe('discovered-urls', 'whatever.test', value);
  return d.readOutput('normalized');
}

const driver = () => crawlTestDriver({ processors: ['normalize'] });

describe('normalize', () => {
  it('should forward the canonical form of a URL keyed by its canonical host', async () => {
    const d = await driver();
    const cases: [string, string, string][] = [
      ['HTTP://Example.TEST:80/a/./b/../c?b=2&a=1#frag', 'http://example.test/a/c?a=1&b=2', 'example.test'],
      ['https://a.test:443/x', 'https://a.test/x', 'a.test'],
      ['http://bücher.example/%7euser/', 'http://xn--bcher-kva.example/~user/', 'xn--bcher-kva.example'],
      ['http://[::1]:8080/x', 'http://[::1]:8080/x', '[::1]:8080'],
    ];
    for (const [raw, url, host] of cases) {
      const out = await normalize(d, found(raw));
      assert.equal(out.length, 1, raw);
      assert.equal(out[0].value.url, url);
      assert.equal(out[0].value.host, host);
      assert.equal(out[0].key, host, 'the record is keyed by the canonical host');
    }
    assert.equal(d.counter('normalize', 'normalized'), cases.length);
    await d.close();
  });

  it('should keep a non-default port in the key, so that each origin is its own host', async () => {
    const d = await driver();
    const [out] = await normalize(d, found('http://Shop.Example.TEST:8080/Cart'));
    assert.equal(out.key, 'shop.example.test:8080');
    assert.equal(out.value.host, 'shop.example.test:8080');
    assert.equal(out.value.url, 'http://shop.example.test:8080/Cart', 'the path keeps its case');
    await d.close();
  });

  it('should carry depth, source, discovery kind, redirect hops and discovery time through', async () => {
    const d = await driver();
    const [out] = await normalize(d, found('http://a.test/r', { depth: 3, via: 'redirect', redirect_hops: 2, source_url: 'http://a.test/s', discovered_at: 7 }));
    assert.deepEqual(
      { depth: out.value.depth, via: out.value.via, hops: out.value.redirect_hops, source: out.value.source_url, at: out.value.discovered_at },
      { depth: 3, via: 'redirect', hops: 2, source: 'http://a.test/s', at: 7 },
    );
    await d.close();
  });

  it('should strip tracking parameters and session ids so that one page has one URL', async () => {
    const d = await driver();
    const variants = [
      'https://shop.example.test/item?id=5',
      'https://shop.example.test/item?utm_source=news&id=5&gclid=abc&fbclid=z',
      'https://shop.example.test/item?id=5&utm_medium=mail&utm_campaign=x',
      'https://shop.example.test/item;jsessionid=ABC123?id=5',
      'https://shop.example.test/item?PHPSESSID=f00&id=5&sid=9',
    ];
    for (const v of variants) {
      const out = await normalize(d, found(v));
      assert.equal(out.length, 1, v);
      assert.equal(out[0].value.url, 'https://shop.example.test/item?id=5', v);
    }
    await d.close();
  });

  it('should count each rejection by its reason and forward nothing for it', async () => {
    const d = await driver();
    const rejected: [DiscoveredUrl, string][] = [
      [found('javascript:alert(1)'), 'unsupported-scheme'],
      [found('mailto:someone@example.test'), 'unsupported-scheme'],
      [found('http://[1:2:3]/broken'), 'malformed'],
      [found('http://[::1/unclosed'), 'malformed'],
      [found('http://a.test/' + 'x'.repeat(10_000 - 'http://a.test/'.length)), 'too-long'],
      [found('http://a.test/deep', { depth: 17 }), 'max-depth'],
      [found('http://a.test/hop', { via: 'redirect', redirect_hops: 6 }), 'too-many-redirects'],
      [found('http://a.test/a/b/a/b/a/b/a/b'), 'repeated-path-segments'],
      [found('http://a.test/s?' + Array.from({ length: 13 }, (_, i) => `f${i}=${i}`).join('&')), 'query-explosion'],
    ];
    assert.equal(rejected[4][0].url.length, 10_000);
    for (const [value, reason] of rejected) {
      const out = await normalize(d, value);
      assert.deepEqual(out, [], `${value.url.slice(0, 40)} (${reason}) is not forwarded`);
    }
    const expected = new Map<string, number>();
    for (const [, reason] of rejected) expected.set(reason, (expected.get(reason) ?? 0) + 1);
    for (const [reason, n] of expected) assert.equal(d.counter('normalize', `rejected.${reason}`), n, reason);
    assert.equal(d.counter('normalize', 'normalized'), 0);
    assert.deepEqual(d.readOutput('dead-letters'), [], 'a rejection is not a failure');
    await d.close();
  });

  it('should accept URLs right at the limits: max depth, max redirects, max repeats, max parameters', async () => {
    const d = await driver();
    const accepted = [
      found('http://a.test/deep', { depth: 16 }),
      found('http://a.test/hop', { via: 'redirect', redirect_hops: 5 }),
      found('http://a.test/a/b/a/b/a/b'),
      found('http://a.test/s?' + Array.from({ length: 12 }, (_, i) => `f${i}=${i}`).join('&')),
      found('http://a.test/' + 'x'.repeat(2048 - 'http://a.test/'.length)),
    ];
    for (const value of accepted) assert.equal((await normalize(d, value)).length, 1, value.url.slice(0, 60));
    await d.close();
  });

  it('should not count tracking parameters towards the query-explosion limit', async () => {
    const d = await driver();
    const tracked = 'http://a.test/s?id=1&' + Array.from({ length: 20 }, (_, i) => `utm_x${i}=${i}`).join('&');
    const [out] = await normalize(d, found(tracked));
    assert.equal(out.value.url, 'http://a.test/s?id=1');
    await d.close();
  });

  it('should follow the configured limits rather than the defaults', async () => {
    const d = await crawlTestDriver({ processors: ['normalize'], config: { maxDepth: 2, maxUrlLength: 40 } });
    assert.deepEqual(await normalize(d, found('http://a.test/x', { depth: 3 })), []);
    assert.deepEqual(await normalize(d, found('http://a.test/' + 'y'.repeat(30))), []);
    assert.equal(d.counter('normalize', 'rejected.max-depth'), 1);
    assert.equal(d.counter('normalize', 'rejected.too-long'), 1);
    assert.equal((await normalize(d, found('http://a.test/x', { depth: 2 }))).length, 1);
    await d.close();
  });

  it('should regroup a batch whose URLs canonicalize to two hosts: one record per canonical host, in order', async () => {
    const d = await driver();
    const more = ['HTTP://A.test:80/2', 'http://b.test/1', 'http://a.test/3#x']
      .map((url, i) => ({ url, anchor: '', ...NO_HINTS, priority_hint: i === 1 ? 0.5 : -1 }));
    const out = await normalize(d, found('http://a.test/1', { more, depth: 2, source_url: 'http://c.test/' }));
    assert.deepEqual(out.map((r) => [r.key, canonicalEntries(r.value).map((e) => e.url)]), [
      ['a.test', ['http://a.test/1', 'http://a.test/2', 'http://a.test/3']],
      ['b.test', ['http://b.test/1']],
    ]);
    assert.ok(out.every((r) => r.value.host === r.key && r.value.depth === 2 && r.value.source_url === 'http://c.test/'));
    assert.equal(out[1].value.priority_hint, 0.5, 'per-URL hints travel with their URL');
    assert.equal(d.counter('normalize', 'normalized'), 4, 'normalized counts URLs, not records');
    await d.close();
  });

  it('should forward the rest of a batch when some of its URLs are rejected, counting each by reason', async () => {
    const d = await driver();
    const bad = ['javascript:void(0)', 'http://a.test/a/b/a/b/a/b/a/b', 'mailto:x@a.test'];
    const more = ['http://a.test/ok2', ...bad].map((url) => ({ url, anchor: '', ...NO_HINTS }));
    const out = await normalize(d, found('http://a.test/ok1', { more }));
    assert.deepEqual(out.map((r) => canonicalEntries(r.value).map((e) => e.url)), [['http://a.test/ok1', 'http://a.test/ok2']]);
    assert.equal(d.counter('normalize', 'rejected.unsupported-scheme'), 2);
    assert.equal(d.counter('normalize', 'rejected.repeated-path-segments'), 1);
    assert.equal(d.counter('normalize', 'normalized'), 2);
    assert.deepEqual(await normalize(d, found('http://a.test/x', { depth: 17, more: more.slice(0, 2) })), []);
    assert.equal(d.counter('normalize', 'rejected.max-depth'), 3, 'a batch over the depth limit counts each of its URLs');
    // Every dropped URL leaves a row: one per page and reason, with how many and the first of them.
    const rows = d.readOutput('skipped').map((r) => [r.key, r.value.reason, r.value.url, r.value.url_count, r.value.source_url, r.value.detail]);
    assert.deepEqual(rows, [
      ['whatever.test', 'unsupported-scheme', 'javascript:void(0)', 2, 'http://127.0.0.9/from', '2 URLs of this page, the first shown'],
      ['whatever.test', 'repeated-path-segments', 'http://a.test/a/b/a/b/a/b/a/b', 1, 'http://127.0.0.9/from', ''],
      ['whatever.test', 'max-depth', 'http://a.test/x', 3, 'http://127.0.0.9/from', 'depth 17 > --max-depth 16'],
    ]);
    await d.close();
  });

  it('should split a batch that grows past the bound into records within it', async () => {
    const d = await driver();
    // Percent-encoding makes each canonical URL longer than it was found.
    const urls = Array.from({ length: MAX_BATCH_URLS }, (_, i) => `http://a.test/${i}/${'é'.repeat(200)}`);
    const [first, ...rest] = urls;
    const out = await normalize(d, found(first, { more: rest.map((url) => ({ url, anchor: '', ...NO_HINTS })) }));
    assert.ok(out.length > 1, `${out.length} records`);
    assert.equal(out.flatMap((r) => canonicalEntries(r.value)).length, MAX_BATCH_URLS);
    await d.close();
  });
});
