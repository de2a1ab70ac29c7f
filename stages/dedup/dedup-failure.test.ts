// A dedup record that fails after its seen-set writes: the engine rolls the writes back, and what
// dedup keeps in memory beside the store (its cache of recent answers) must not outlive them, or the
// URL would be taken for seen by every later discovery and never reach the scheduler.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineProcessor, TopologyBuilder } from '../../engine/api.js';
import { TopologyTestDriver } from '../../engine/test-driver/topology-test-driver.js';
import { deduped, normalized } from '../../contract/topics.js';
import { testServices } from '../../crawl/testing/crawl-test-driver.js';
import { NO_HINTS, type CanonicalUrl } from '../../schemas/records.js';
import { dedupProcessor, seenSetStore } from './dedup.js';
import { fingerprint64 } from '../../url/fingerprint.js';

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

function canonical(url: string, over: Partial<CanonicalUrl> = {}): CanonicalUrl {
  return { url, host: new URL(url).host, depth: 1, source_url: '', via: 'link', redirect_hops: 0, discovered_at: 0, ...NO_HINTS, inlinks: 1, more: [], ...over };
}

async function run(withHook: boolean) {
  const topology = new TopologyBuilder().topic(normalized).topic(deduped).processor(failingDedup(withHook)).build();
  const d = await TopologyTestDriver.create({ topology, services: testServices() });
  await d.pipe('normalized', 'a.test', canonical('http://a.test/new', { source_url: FAILS }));
  await d.pipe('normalized', 'a.test', canonical('http://a.test/new', { via: 'sitemap' }));
  const out = d.readOutput('deduped').map((r) => [r.value.url, r.value.via, r.value.inlinks]);
  const letters = d.readOutput('dead-letters').length;
  const stored = d.store(seenSetStore).get({ host: 'a.test', ...fingerprint64('http://a.test/new') });
  await d.close();
  return { out, letters, stored };
}

describe('dedup, when a record fails mid-way', () => {
  it('should take a URL whose record failed for new when it is found again', async () => {
    const { out, letters, stored } = await run(true);
    assert.equal(letters, 1, 'the failed record is a dead letter');
    assert.deepEqual(out, [['http://a.test/new', 'sitemap', 1]], 'the second discovery reaches the scheduler');
    assert.equal(stored?.found, 1, 'the seen-set counts the discovery that was committed, not the failed one');
  });

  it('would lose the URL if its cache outlived the rolled-back writes (why dedup clears it in recordFailed)', async () => {
    const { out } = await run(false);
    assert.deepEqual(out, [], 'taken for seen: a sitemap\'s discovery of a URL already seen is not passed on');
  });
});
