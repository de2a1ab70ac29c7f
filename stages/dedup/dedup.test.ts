import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalEntries } from '../../contract/url-batch.js';
import { crawlTestDriver, testServices, type CrawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import { defineProcessor, TopologyBuilder } from '../../engine/api.js';
import { TopologyTestDriver } from '../../engine/test-driver/topology-test-driver.js';
import { deduped, normalized } from '../../contract/topics.js';
import { EmbeddedRuntime } from '../../engine/embedded/embedded-runtime.js';
import { crawlTopology } from '../../crawl/topology.js';
import { NO_HINTS, type CanonicalUrl } from '../../schemas/records.js';
import { fingerprint64 } from '../../url/fingerprint.js';
import { BloomFilter } from './bloom-filter.js';
import { DEFAULT_SEEN_CAPACITY } from './seen-filter.js';
import { dedupProcessor, seenSetStore } from './dedup.js';

function canonical(url: string, over: Partial<CanonicalUrl> = {}): CanonicalUrl {
  const host = new URL(url).host;
  return { url, host, depth: 1, source_url: '', via: 'link', redirect_hops: 0, discovered_at: 0, ...NO_HINTS, inlinks: 1, more: [], ...over };
}

const seenKey = (url: string) => ({ host: new URL(url).host, ...fingerprint64(url) });

describe('dedup', () => {
  it('should forward each canonical URL once, whatever its discovery details', async () => {
    const d = await crawlTestDriver({ processors: ['dedup'] });
    const urls = ['http://a.test/1', 'http://b.test:8080/1', 'http://a.test/2', 'http://a.test/1', 'http://b.test:8080/1', 'http://b.test/1'];
    for (const [i, u] of urls.entries()) await d.pipe('normalized', new URL(u).host, canonical(u, { depth: i, via: i === 0 ? 'seed' : 'link' }));
    const all = d.readOutput('deduped');
    const out = all.filter((r) => r.value.inlinks === 1);
    assert.deepEqual(out.map((r) => r.value.url), ['http://a.test/1', 'http://b.test:8080/1', 'http://a.test/2', 'http://b.test/1']);
    assert.deepEqual(all.filter((r) => r.value.inlinks > 1).map((r) => [r.value.url, r.value.inlinks]), [['http://a.test/1', 2], ['http://b.test:8080/1', 2]],
      'a repeat found by a link tells the scheduler the URL has two in-links now');
    assert.deepEqual(out.map((r) => r.key), ['a.test', 'b.test:8080', 'a.test', 'b.test']);
    assert.equal(out[0].value.via, 'seed', 'the first discovery is the one passed on');
    assert.equal(d.counter('dedup', 'new-urls'), 4);
    assert.equal(d.counter('dedup', 'duplicate-urls'), 2);
    await d.close();
  });

  it('should report a URL\'s in-links from other pages at 2, 4, 8, 16, so a hub rises without a record per link', async () => {
    const d = await crawlTestDriver({ processors: ['dedup'] });
    for (let i = 0; i < 20; i++) await d.pipe('normalized', 'a.test', canonical('http://a.test/hub', { source_url: `http://a.test/leaf${i}` }));
    const out = d.readOutput('deduped').map((r) => r.value.inlinks);
    assert.deepEqual(out, [1, 2, 4, 8, 16]);
    assert.equal(d.store(seenSetStore).get(seenKey('http://a.test/hub'))?.found, 20, 'every discovery is counted');
    await d.close();
  });

  it('should decide each URL of a batch on its own and pass the ones the scheduler must hear of on together, in one record', async () => {
    const d = await crawlTestDriver({ processors: ['dedup'] });
    await d.pipe('normalized', 'a.test', canonical('http://a.test/old'));
    d.readOutput('deduped');
    const more = ['http://a.test/new1', 'http://a.test/old', 'http://a.test/new2', 'http://a.test/new1']
      .map((url, i) => ({ url, ...NO_HINTS, priority_hint: i === 2 ? 0.7 : -1, inlinks: 1 }));
    await d.pipe('normalized', 'a.test', canonical('http://a.test/old', { more, source_url: 'http://a.test/hub', depth: 3 }));
    const out = d.readOutput('deduped');
    assert.equal(out.length, 1, 'one record for the batch');
    assert.ok(out[0].key === 'a.test' && out[0].value.source_url === 'http://a.test/hub' && out[0].value.depth === 3);
    const entries = canonicalEntries(out[0].value);
    // old reaches 2 in-links (reported), new1 is new, old reaches 3 (not a power of two: left out),
    // new2 is new, new1 repeated within the batch reaches 2.
    assert.deepEqual(entries.map((e) => [e.url, e.inlinks]), [
      ['http://a.test/old', 2], ['http://a.test/new1', 1], ['http://a.test/new2', 1], ['http://a.test/new1', 2],
    ]);
    assert.equal(entries.find((e) => e.url === 'http://a.test/new2')!.priority_hint, 0.7, 'each URL keeps its own hints');
    assert.equal(d.store(seenSetStore).get(seenKey('http://a.test/old'))?.found, 3);
    assert.equal(d.counter('dedup', 'new-urls'), 3);
    assert.equal(d.counter('dedup', 'duplicate-urls'), 3);
    await d.close();
  });

  it('should hold the fingerprint of every URL passed on in the seen-set store', async () => {
    const d = await crawlTestDriver({ processors: ['dedup'] });
    await d.pipe('normalized', 'a.test', canonical('http://a.test/kept'));
    const seen = d.store(seenSetStore);
    assert.equal(seen.get(seenKey('http://a.test/kept'))?.found, 1, 'found once');
    assert.equal(seen.get(seenKey('http://a.test/never-piped')), undefined);
    const stored: { hi: number; lo: number }[] = [];
    for await (const [k] of seen.entries()) stored.push({ hi: k.hi, lo: k.lo });
    assert.deepEqual(stored, [fingerprint64('http://a.test/kept')], 'one 8-byte fingerprint per URL, nothing else');
    await d.close();
  });

  it('should still drop a URL after a restart over the same data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dedup-restart-'));
    try {
      const first = ['http://a.test/1', 'http://b.test/1', 'http://c.test:8080/x', 'http://a.test/2'];
      assert.deepEqual((await runDedup(dataDir, [...first, 'http://a.test/1'])).sort(), [...first].sort());
      // Same URLs again plus one new: only the new one may come out, although the restarted
      // process's Bloom filter starts empty and must be rebuilt from the seen-set.
      const second = await runDedup(dataDir, [...first, 'http://b.test/new']);
      assert.deepEqual(second, ['http://b.test/new']);
      assert.deepEqual(await runDedup(dataDir, ['http://b.test/new', 'http://a.test/1']), []);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('should forward nothing for a batch the scheduler need not hear of', async () => {
    const d = await crawlTestDriver({ processors: ['dedup'] });
    const more = [{ url: 'http://a.test/b', ...NO_HINTS, inlinks: 1 }];
    await d.pipe('normalized', 'a.test', canonical('http://a.test/a', { more }));
    await d.pipe('normalized', 'a.test', canonical('http://a.test/a', { more }));
    assert.equal(d.readOutput('deduped').length, 2, 'new, then both at 2 in-links');
    await d.pipe('normalized', 'a.test', canonical('http://a.test/a', { more }));
    assert.deepEqual(d.readOutput('deduped'), [], 'at 3 in-links: nothing to tell');
    await d.close();
  });

  it('should forward a new URL that the Bloom filter wrongly reports as seen', async () => {
    const d = await crawlTestDriver({ processors: ['dedup'] });
    // The processor's filter, replayed here: same class, same default capacity, same insertions.
    const replica = new BloomFilter(DEFAULT_SEEN_CAPACITY);
    const inserted = 20_000;
    for (let i = 0; i < inserted; i++) {
      const url = `http://h${i % 50}.test/page/${i}`;
      await d.pipe('normalized', `h${i % 50}.test`, canonical(url));
      const f = fingerprint64(url);
      replica.add(f.hi, f.lo);
      if (i % 1000 === 999) assert.equal(d.readOutput('deduped').filter((r) => r.value.inlinks === 1).length, 1000);
    }
    assert.equal(d.counter('dedup', 'new-urls'), inserted, 'many distinct URLs: each forwarded');
    const maybeBefore = d.counter('dedup', 'bloom.maybe');
    // Search fresh URLs for ones the filter claims to have seen (≈ 1.6e-4 of them at this fill).
    const falsePositives: string[] = [];
    for (let i = 0; falsePositives.length < 20 && i < 2_000_000; i++) {
      const url = `http://h${i % 50}.test/fresh/${i}`;
      const f = fingerprint64(url);
      if (replica.mightContain(f.hi, f.lo)) falsePositives.push(url);
    }
    assert.equal(falsePositives.length, 20, 'found false positives to test with');
    for (const url of falsePositives) await d.pipe('normalized', new URL(url).host, canonical(url));
    assert.equal(d.counter('dedup', 'bloom.maybe') - maybeBefore, falsePositives.length, 'each went down the "maybe seen" path');
    assert.deepEqual(d.readOutput('deduped').filter((r) => r.value.inlinks === 1).map((r) => r.value.url), falsePositives, 'and each was still forwarded');
    assert.equal(d.counter('dedup', 'duplicate-urls'), 0);
    await d.close();
  });
});

/** One run of dedup alone on the embedded runtime; returns the URLs it passed on. */
async function runDedup(dataDir: string, urls: string[]): Promise<string[]> {
  const runtime = await EmbeddedRuntime.open({
    dataDir, topology: crawlTopology(), services: testServices(), partitions: 2, processors: ['dedup'],
    logger: { info: () => {}, warn: (m) => assert.fail(m) },
  });
  try {
    const ends = [0, 1].map((p) => runtime.log('deduped', p).end);
    await runtime.start();
    for (const url of urls) await runtime.produce('normalized', new URL(url).host, canonical(url));
    await runtime.whenIdle();
    const out: string[] = [];
    for (const p of [0, 1]) {
      for (const r of runtime.log('deduped', p).read(ends[p], 1000)) {
        const v = runtime.codecs.decode<CanonicalUrl>('deduped', r.value);
        if (v.inlinks === 1) out.push(v.url); // new URLs; the rest report in-links
      }
    }
    return out;
  } finally {
    await runtime.stop();
  }
}

// A dedup record that fails after its seen-set writes: the engine rolls the writes back, and what
// dedup keeps in memory beside the store (its cache of recent answers) must not outlive them, or the
// URL would be taken for seen by every later discovery and never reach the scheduler.
const FAILS = 'http://a.test/fails-after-its-writes';

/** Dedup, failing after it has decided (and written) a record whose source is FAILS. */
function failingDedup(withHook: boolean) {
  return defineProcessor({
    ...dedupProcessor,
    create: (services) => {
      const inner = dedupProcessor.create(services);
      return {
        init: (ctx) => inner.init!(ctx),
        process(record, ctx) {
          inner.process(record, ctx);
          if (record.value.source_url === FAILS) throw new Error('injected: failed after the seen-set writes');
        },
        ...(withHook ? { recordFailed: (record, ctx) => inner.recordFailed!(record, ctx) } : {}),
      };
    },
  });
}


async function runFailing(withHook: boolean) {
  const topology = new TopologyBuilder().topic(normalized).topic(deduped).processor(failingDedup(withHook)).build();
  const d = await TopologyTestDriver.create({ topology, services: testServices() });
  await d.pipe('normalized', 'a.test', canonical('http://a.test/new', { source_url: FAILS }));
  await d.pipe('normalized', 'a.test', canonical('http://a.test/new', { via: 'sitemap' }));
  const out = d.readOutput('deduped').map((r) => [r.value.url, r.value.via, r.value.inlinks]);
  const letters = d.readOutput('dead-letters').length;
  const stored = d.store(seenSetStore).get(seenKey('http://a.test/new'));
  await d.close();
  return { out, letters, stored };
}

describe('dedup, when a record fails mid-way', () => {
  it('should take a URL whose record failed for new when it is found again', async () => {
    const { out, letters, stored } = await runFailing(true);
    assert.equal(letters, 1, 'the failed record is a dead letter');
    assert.deepEqual(out, [['http://a.test/new', 'sitemap', 1]], 'the second discovery reaches the scheduler');
    assert.equal(stored?.found, 1, 'the seen-set counts the discovery that was committed, not the failed one');
  });

  it('would lose the URL if its cache outlived the rolled-back writes (why dedup clears it in recordFailed)', async () => {
    const { out } = await runFailing(false);
    assert.deepEqual(out, [], 'taken for seen: a sitemap\'s discovery of a URL already seen is not passed on');
  });
});
