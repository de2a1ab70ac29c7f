import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlTestDriver, type CrawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import type { Duplicate, ParsedPage } from '../../schemas/records.js';

const BASE = Buffer.from('0123456789abcdef', 'hex');

/** BASE with the given bit positions (0 = most significant of the 64) flipped. */
function flip(...bits: number[]): Buffer {
  const out = Buffer.from(BASE);
  for (const b of bits) out[b >> 3] ^= 0x80 >> (b & 7);
  return out;
}

function page(url: string, simhash: Buffer, fetchedAt: number, over: Partial<ParsedPage> = {}): ParsedPage {
  const host = new URL(url).host;
  return {
    fetch_id: `${host}#${fetchedAt}`, url, host, depth: 1, status: 200, final_url: url, fetched_at: fetchedAt,
    content_type: 'text/html', title: 't', canonical: '', lang: '', meta_noindex: false, meta_nofollow: false,
    text_length: 4000, content_hash: `hash-of-${url}`, simhash, links: [], parser_version: 'parse/1', error: '', text: '', ...over,
  };
}

async function duplicatesOf(...pages: ParsedPage[]) {
  const d = await crawlTestDriver({ processors: ['near-dup-bands', 'near-dup'], startTime: 5_000_000 });
  for (const p of pages) await d.pipe('parsed', p.host, p);
  const out = d.readOutput('duplicates');
  assert.deepEqual(d.readOutput('dead-letters'), []);
  await d.close();
  return out;
}

describe('near-dup', () => {
  it('should report a page within 3 bits of an earlier one on another host exactly once, as near', async () => {
    const original = page('http://a.test/story', BASE, 1000);
    // One flip in each of bands 0..2: the pair shares band 3 only.
    const copy = page('http://b.test:8080/copy', flip(1, 17, 33), 2000);
    const out = await duplicatesOf(original, copy);
    assert.equal(out.length, 1);
    const [dup] = out;
    assert.equal(dup.key, 'b.test:8080', 'keyed by the duplicate page\'s host');
    assert.deepEqual(
      { url: dup.value.url, host: dup.value.host, fetch_id: dup.value.fetch_id, of: dup.value.duplicate_of, ofAt: dup.value.duplicate_of_fetched_at, kind: dup.value.kind, distance: dup.value.distance },
      { url: 'http://b.test:8080/copy', host: 'b.test:8080', fetch_id: 'b.test:8080#2000', of: 'http://a.test/story', ofAt: 1000, kind: 'near', distance: 3 },
    );
    assert.equal(dup.value.detected_at, 5_000_000);
  });

  it('should report a pair once even when it shares all four bands or several', async () => {
    assert.equal((await duplicatesOf(page('http://a.test/1', BASE, 1), page('http://b.test/1', BASE, 2))).length, 1);
    // Three flips inside band 1: bands 0, 2 and 3 are shared.
    assert.equal((await duplicatesOf(page('http://a.test/1', BASE, 1), page('http://b.test/1', flip(16, 20, 30), 2))).length, 1);
  });

  it('should name the page fetched later as the duplicate, whatever order the pages arrive in', async () => {
    const early = page('http://a.test/first', BASE, 1000);
    const late = page('http://b.test/second', flip(63), 9000);
    for (const order of [[early, late], [late, early]]) {
      const out = await duplicatesOf(...order);
      assert.equal(out.length, 1);
      assert.equal(out[0].value.url, 'http://b.test/second');
      assert.equal(out[0].value.duplicate_of, 'http://a.test/first');
      assert.equal(out[0].key, 'b.test');
    }
  });

  it('should call a duplicate exact when the content hashes are equal', async () => {
    const out = await duplicatesOf(
      page('http://a.test/x', BASE, 1, { content_hash: 'same' }),
      page('http://b.test/x', BASE, 2, { content_hash: 'same' }),
    );
    assert.equal(out.length, 1);
    assert.equal(out[0].value.kind, 'exact');
    assert.equal(out[0].value.distance, 0);
  });

  it('should not report pages more than 4 bits apart, nor 4 bits apart with no band in common', async () => {
    // Four bits apart, one per band: no band in common, so the pair never meets.
    assert.deepEqual(await duplicatesOf(page('http://a.test/1', BASE, 1), page('http://b.test/1', flip(0, 16, 32, 48), 2)), []);
    // Five bits apart in bands 1 and 2: bands 0 and 3 in common, still too far.
    assert.deepEqual(await duplicatesOf(page('http://a.test/1', BASE, 1), page('http://b.test/1', flip(16, 17, 32, 33, 34), 2)), []);
    // Far apart: half the bits differ.
    const far = Buffer.from(BASE.map((b) => b ^ 0xf0));
    assert.deepEqual(await duplicatesOf(page('http://a.test/1', BASE, 1), page('http://b.test/1', far, 2)), []);
  });

  it('should report pages 4 bits apart that share a band', async () => {
    const out = await duplicatesOf(page('http://a.test/1', BASE, 1), page('http://b.test/1', flip(16, 17, 32, 33), 2));
    assert.deepEqual(out.map((r) => [r.value.url, r.value.duplicate_of, r.value.distance]), [['http://b.test/1', 'http://a.test/1', 4]]);
  });

  it('should not compare pages with too little text', async () => {
    assert.deepEqual(await duplicatesOf(
      page('http://a.test/stub', BASE, 1, { text_length: 199 }),
      page('http://b.test/stub', BASE, 2, { text_length: 199 }),
    ), []);
  });

  it('should not report a re-parsed URL as a duplicate of itself', async () => {
    const first = page('http://a.test/same', BASE, 1000);
    const again = page('http://a.test/same', flip(5), 2000, { fetch_id: 'a.test#again' });
    assert.deepEqual(await duplicatesOf(first, again, first), []);
  });

  it('should report each later copy once, against its closest earlier page', async () => {
    const out = await duplicatesOf(
      page('http://a.test/o', BASE, 1),
      page('http://b.test/c1', flip(2), 2),
      page('http://c.test/c2', flip(40), 3),
    );
    // c2 is 1 bit from o and 2 bits from c1: o is its original, and c2 gets no second record.
    assert.deepEqual(out.map((r) => [r.value.url, r.value.duplicate_of, r.value.distance]).sort(), [
      ['http://b.test/c1', 'http://a.test/o', 1],
      ['http://c.test/c2', 'http://a.test/o', 1],
    ]);
  });

  it('should prefer an exact copy, then the earliest page, among equally close originals', async () => {
    const out = await duplicatesOf(
      page('http://a.test/near', BASE, 1, { content_hash: 'other' }),
      page('http://b.test/exact', BASE, 2, { content_hash: 'same' }),
      page('http://c.test/exact-too', BASE, 3, { content_hash: 'same' }),
      page('http://d.test/copy', BASE, 4, { content_hash: 'same' }),
    );
    const copy = out.filter((r) => r.value.url === 'http://d.test/copy');
    assert.deepEqual(copy.map((r) => [r.value.duplicate_of, r.value.kind]), [['http://b.test/exact', 'exact']]);
  });

  it('should find an original stored before its task moved, and one stored since', async () => {
    // A task that starts on stored bands (resumed, or moved from another worker) reads them.
    const d = await crawlTestDriver({ processors: ['near-dup-bands', 'near-dup'], startTime: 5_000_000 });
    try {
      const before = page('http://a.test/before', BASE, 1000);
      await d.pipe('parsed', before.host, before);
      await d.moveTasks();
      const copy = page('http://b.test/copy', flip(1, 17, 33), 2000);
      await d.pipe('parsed', copy.host, copy);
      const since = page('http://c.test/since', flip(60), 3000);
      await d.pipe('parsed', since.host, since);
      const found = page('http://d.test/found', flip(59, 60), 4000);
      await d.pipe('parsed', found.host, found);
      assert.deepEqual(d.readOutput('duplicates').map((r) => [r.value.url, r.value.duplicate_of]), [
        ['http://b.test/copy', 'http://a.test/before'],
        ['http://c.test/since', 'http://a.test/before'],
        ['http://d.test/found', 'http://c.test/since'], // the closest: 1 bit against 2
      ]);
    } finally {
      await d.close();
    }
  });

  it('should still report a near-duplicate pair when the first band they share is crowded', async () => {
    // 64 unrelated pages share band 0's value with BASE; their other bands are far from BASE's.
    let seed = 99;
    const next16 = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) ^ 0x5555;
    const crowd = Array.from({ length: 64 }, (_, i) => {
      const simhash = Buffer.from(BASE);
      for (let b = 1; b < 4; b++) simhash.writeUInt16BE(next16(), 2 * b);
      return page(`http://crowd${i}.test/`, simhash, i + 1);
    });
    const original = page('http://a.test/original', BASE, 1000);
    // One bit off in band 1: bands 0, 2 and 3 are shared, band 0 first.
    const copy = page('http://b.test/copy', flip(20), 2000);
    const out = (await duplicatesOf(...crowd, original, copy)).filter((r) => r.value.url === copy.url);
    assert.equal(out.length, 1, 'the copy is reported once');
    assert.equal(out[0]?.value.duplicate_of, original.url);
  });
});
