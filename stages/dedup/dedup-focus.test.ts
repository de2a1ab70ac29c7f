// dedup in a focused crawl: a URL found again through a better link must reach the scheduler, or a
// page found later could never show that a queued URL is on the topic after all.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import { NO_HINTS, type CanonicalUrl } from '../../schemas/records.js';
import { fingerprint64 } from '../../url/fingerprint.js';
import { seenSetStore } from './dedup.js';

const URL_A = 'http://a.test/hive';

function found(score: number | undefined, over: Partial<CanonicalUrl> = {}): CanonicalUrl {
  return { url: URL_A, host: 'a.test', depth: 1, source_url: 'http://b.test/', via: 'link', redirect_hops: 0, discovered_at: 0, ...NO_HINTS, inlinks: 1, more: [], ...(score === undefined ? {} : { score }), ...over };
}

describe('dedup in a focused crawl', () => {
  it('should pass a URL on again when a link scores it higher than any before, whatever its in-link count', async () => {
    const d = await crawlTestDriver({ processors: ['dedup'] });
    // Discoveries 1..6: scores 0.1, 0.1, 0.5, 0.3, 0.52, 0.9. 2 and 4 are powers of two; 3, 5 (a step up) and 6 raise the score.
    for (const s of [0.1, 0.1, 0.5, 0.3, 0.52, 0.9]) await d.pipe('normalized', 'a.test', found(s));
    const out = d.readOutput('deduped').map((r) => [r.value.inlinks, r.value.score]);
    assert.deepEqual(out.map(([n]) => n), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(out.map(([, s]) => Math.round(s! * 100) / 100), [0.1, 0.1, 0.5, 0.3, 0.52, 0.9], 'each as it was found');
    assert.deepEqual({ ...d.store(seenSetStore).get({ host: 'a.test', ...fingerprint64(URL_A) }) }, { found: 6, best: Math.round(0.9 * 32) });
    assert.equal(d.counter('dedup', 'score-raised'), 3);
    await d.close();
  });

  it('should not pass on a link less than a step (1/32) better, nor a sitemap\'s or a seed\'s repeat', async () => {
    const d = await crawlTestDriver({ processors: ['dedup'] });
    await d.pipe('normalized', 'a.test', found(0.5));
    await d.pipe('normalized', 'a.test', found(0.5));
    await d.pipe('normalized', 'a.test', found(0.51));
    await d.pipe('normalized', 'a.test', found(0.9, { via: 'sitemap' }));
    assert.deepEqual(d.readOutput('deduped').map((r) => r.value.inlinks), [1, 2], 'the first, and the second discovery (a power of two)');
    await d.close();
  });

  it('should keep an unfocused crawl\'s seen-set as small as before: nothing stored for a URL found once', async () => {
    const d = await crawlTestDriver({ processors: ['dedup'] });
    await d.pipe('normalized', 'a.test', found(undefined));
    const seen = d.store(seenSetStore);
    assert.equal(seenSetStore.values.encode(seen.get({ host: 'a.test', ...fingerprint64(URL_A) })!).length, 0);
    assert.equal(seenSetStore.values.encode({ found: 3, best: -1 }).length, 4);
    assert.deepEqual(seenSetStore.values.decode(Buffer.from([0, 0, 0, 3])), { found: 3, best: -1 }, 'values written before focus read as they were');
    await d.close();
  });
});
