import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import avro from 'avsc';
import { NO_HINTS, type DiscoveredEntry } from '../schemas/records.js';
import { loadSchema } from '../schemas/schema-files.js';
import { canonicalBatches, canonicalEntries, discoveredBatches, discoveredEntries, MAX_BATCH_URLS, seedRecords } from './url-batch.js';

const shared = { source_url: 'http://127.0.0.9/from', depth: 2, via: 'link' as const, redirect_hops: 0, discovered_at: 42 };
const entry = (url: string, anchor = ''): DiscoveredEntry => ({ url, anchor, ...NO_HINTS });

describe('url batches', () => {
  it('should hold every URL in order, the first on the record itself and the rest in more', () => {
    const entries = [entry('http://a.test/1', 'one'), entry('http://a.test/2', 'two'), entry('http://a.test/3')];
    const [batch, ...others] = discoveredBatches(shared, entries);
    assert.deepEqual(others, []);
    assert.equal(batch.url, 'http://a.test/1');
    assert.equal(batch.anchor, 'one');
    assert.deepEqual(batch.more.map((e) => e.url), ['http://a.test/2', 'http://a.test/3']);
    assert.deepEqual(discoveredEntries(batch), entries, 'reading a batch gives back exactly what went in');
    assert.equal(batch.source_url, shared.source_url);
  });

  it('should read a record with more empty as the one URL it always meant', () => {
    const [single] = discoveredBatches(shared, [entry('http://a.test/only', 'x')]);
    assert.deepEqual(single.more, []);
    assert.deepEqual(discoveredEntries(single).map((e) => e.url), ['http://a.test/only']);
  });

  it('should split at the URL bound', () => {
    const entries = Array.from({ length: 2 * MAX_BATCH_URLS + 7 }, (_, i) => entry(`http://a.test/${i}`));
    const batches = discoveredBatches(shared, entries);
    assert.deepEqual(batches.map((b) => discoveredEntries(b).length), [MAX_BATCH_URLS, MAX_BATCH_URLS, 7]);
    assert.deepEqual(batches.flatMap(discoveredEntries), entries, 'nothing lost or reordered across the split');
  });

  it('should split long URLs so that no encoded record nears its topic\'s 1 MB, and send one oversized URL alone', () => {
    // 2000-character URLs of 3-byte characters: 500 of them would be ~3 MB of UTF-8.
    const long = (i: number) => entry(`http://a.test/${i}/${'€'.repeat(2000)}`, 'é'.repeat(256));
    const entries = Array.from({ length: 500 }, (_, i) => long(i));
    const type = avro.Type.forSchema(loadSchema('discovered-url'), { registry: {} });
    const batches = discoveredBatches(shared, entries);
    assert.ok(batches.length > 1);
    for (const b of batches) assert.ok(type.toBuffer(b).length < 900 * 1024, `${type.toBuffer(b).length} bytes`);
    assert.equal(batches.flatMap(discoveredEntries).length, entries.length);
    const huge = entry(`http://a.test/${'x'.repeat(300_000)}`);
    const around = discoveredBatches(shared, [entry('http://a.test/a'), huge, entry('http://a.test/b')]);
    assert.deepEqual(around.map((b) => discoveredEntries(b).map((e) => e.url.length)), [[15], [huge.url.length], [15]]);
  });

  it('should batch canonical URLs the same way, sharing host and discovery details', () => {
    const c = { host: 'a.test', depth: 1, source_url: '', via: 'sitemap' as const, redirect_hops: 0, discovered_at: 1 };
    const entries = Array.from({ length: MAX_BATCH_URLS + 1 }, (_, i) => ({ url: `http://a.test/${i}`, ...NO_HINTS, priority_hint: i / 1000, inlinks: 1 + (i % 3) }));
    const batches = canonicalBatches(c, entries);
    assert.deepEqual(batches.map((b) => canonicalEntries(b).length), [MAX_BATCH_URLS, 1]);
    assert.deepEqual(batches.flatMap(canonicalEntries), entries);
    assert.equal(batches[1].host, 'a.test');
  });

  it('should batch seeds by host and name the ones that are not URLs', () => {
    const { records, invalid, seeds } = seedRecords(['http://a.test/', 'not a url', 'HTTP://A.test:80/x', 'http://b.test:8080/'], 5);
    assert.deepEqual(invalid, ['not a url']);
    assert.equal(seeds, 3);
    assert.deepEqual(records.map((r) => [r.host, discoveredEntries(r.value).map((e) => e.url)]), [
      ['a.test', ['http://a.test/', 'HTTP://A.test:80/x']],
      ['b.test:8080', ['http://b.test:8080/']],
    ]);
    assert.ok(records.every((r) => r.value.via === 'seed' && r.value.depth === 0 && r.value.discovered_at === 5));
  });
});
