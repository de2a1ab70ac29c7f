// The processor contract when a record fails: the engine undoes the record's store writes and
// outputs; in-memory state is the processor's to put back, in recordFailed, from its stores.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineProcessor, TopologyBuilder, type KeyValueStore } from '../api.js';
import { counts, totals, words } from '../examples/word-count.js';
import { TopologyTestDriver } from '../test-driver/topology-test-driver.js';

/** Counts words, keeping a running sum of every total in memory beside the store: a derived copy. */
function counter(withHook: boolean) {
  return defineProcessor({
    name: 'count', description: 'counts words; "boom" fails after its writes', inputs: [words], outputs: [counts], stores: [totals],
    delivery: 'exactly once',
    create: () => {
      let store!: KeyValueStore<string, number>;
      let sum = 0;
      return {
        async init(ctx) {
          store = ctx.store(totals);
          for await (const [, n] of store.entries()) sum += n;
        },
        process(r, ctx) {
          const n = (store.get(r.key) ?? 0) + 1;
          store.put(r.key, n);
          sum++;
          ctx.forward('counts', r.key, { word: r.key, count: sum });
          if (r.value.doc === 'boom') throw new Error('failed mid-way, after its writes');
        },
        ...(withHook ? {
          async recordFailed() {
            sum = 0;
            for await (const [, n] of store.entries()) sum += n;
          },
        } : {}),
      };
    },
  });
}

async function run(withHook: boolean) {
  const topology = new TopologyBuilder().topic(words).topic(counts).processor(counter(withHook)).build();
  const d = await TopologyTestDriver.create({ topology, services: {} });
  await d.pipe('words', 'a', { word: 'a', doc: 'ok' });
  await d.pipe('words', 'b', { word: 'b', doc: 'boom' });
  await d.pipe('words', 'c', { word: 'c', doc: 'ok' });
  const out = d.readOutput('counts').map((r) => [r.key, r.value.count]);
  const letters = d.readOutput('dead-letters').length;
  const stored = [d.store(totals).get('a'), d.store(totals).get('b'), d.store(totals).get('c')];
  await d.close();
  return { out, letters, stored };
}

describe('a record that fails mid-way', () => {
  it('should leave its stores and outputs as before it, and the next record sees state consistent with them (recordFailed)', async () => {
    const { out, letters, stored } = await run(true);
    assert.equal(letters, 1, 'the failed record is a dead letter');
    assert.deepEqual(stored, [1, undefined, 1], 'its store write is undone');
    assert.deepEqual(out, [['a', 1], ['c', 2]], 'its output is dropped; the in-memory sum was put back from the store');
  });

  it('should keep the engine out of in-memory state: without the hook the copy drifts (why the hook exists)', async () => {
    const { out } = await run(false);
    assert.deepEqual(out, [['a', 1], ['c', 3]]);
  });
});
