import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlTestDriver, type CrawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import type { ParsedPage, SimhashBand } from '../../schemas/records.js';
import { MIN_TEXT_FOR_SIMHASH, bandKey } from './near-dup-bands.js';

const SIMHASH = Buffer.from('0123456789abcdef', 'hex');

function parsed(over: Partial<ParsedPage> = {}): ParsedPage {
  return {
    fetch_id: 'a.test#1', url: 'http://a.test/p', host: 'a.test', depth: 1, status: 200, final_url: 'http://a.test/p',
    fetched_at: 1000, content_type: 'text/html', title: 't', canonical: '', lang: '', meta_noindex: false, meta_nofollow: false,
    text_length: 5000, content_hash: 'c'.repeat(40), simhash: SIMHASH, links: [], parser_version: 'parse/1', error: '', text: '', ...over,
  };
}

async function bands(page: ParsedPage) {
  const d = await crawlTestDriver({ processors: ['near-dup-bands'] });
  await d.pipe('parsed', page.host, page);
  const out = d.readOutput('simhash-bands');
  await d.close();
  return out;
}

describe('near-dup-bands', () => {
  it('should re-key a page four times, once per 16-bit band of its simhash', async () => {
    const out = await bands(parsed());
    assert.deepEqual(out.map((r) => r.key), ['b0:0123', 'b1:4567', 'b2:89ab', 'b3:cdef']);
    assert.deepEqual(out.map((r) => r.value.band), [0, 1, 2, 3]);
    for (const r of out) {
      assert.equal(r.key, bandKey(r.value.band, SIMHASH));
      assert.deepEqual(
        { url: r.value.url, host: r.value.host, fetch_id: r.value.fetch_id, content_hash: r.value.content_hash, fetched_at: r.value.fetched_at },
        { url: 'http://a.test/p', host: 'a.test', fetch_id: 'a.test#1', content_hash: 'c'.repeat(40), fetched_at: 1000 },
      );
      assert.deepEqual(r.value.simhash, SIMHASH, 'each band record carries the whole simhash for the distance check');
    }
  });

  it('should skip pages with too little text for a meaningful simhash', async () => {
    assert.deepEqual(await bands(parsed({ text_length: MIN_TEXT_FOR_SIMHASH - 1 })), []);
    assert.deepEqual(await bands(parsed({ text_length: 0 })), []);
    assert.equal((await bands(parsed({ text_length: MIN_TEXT_FOR_SIMHASH }))).length, 4);
    assert.equal(MIN_TEXT_FOR_SIMHASH, 200);
  });

  it('should skip pages whose stored body could not be read', async () => {
    assert.deepEqual(await bands(parsed({ error: 'stored-body: corrupt' })), []);
  });

  it('should give pages from different hosts with an equal band the same key', async () => {
    const a = await bands(parsed());
    const b = await bands(parsed({ url: 'http://b.test/q', host: 'b.test', simhash: Buffer.from('0123ffffffffffff', 'hex') }));
    assert.equal(a[0].key, b[0].key);
    assert.notEqual(a[1].key, b[1].key);
  });
});
