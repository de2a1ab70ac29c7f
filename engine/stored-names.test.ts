// A processor or store renamed in code keeps the identity it was stored under (`storedAs`): a data
// directory written before the rename is read by the renamed code as its own, with no migration.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineProcessor, defineStore, describeTopology, storedName, topologyDescription, TopologyBuilder } from './api.js';
import { EmbeddedRuntime } from './embedded/embedded-runtime.js';
import { selectProcessors } from './topology.js';
import { count, counts, corpusLine, lines, split, totals, wordCountTopology, words } from './examples/word-count.js';

const quiet = { info: () => {}, warn: () => {} };

// The word count as a later release would write it: `count` became `tally`, its store `word-totals`.
const wordTotals = defineStore({ ...totals, name: 'word-totals', storedAs: 'totals' });
const tally = defineProcessor({
  ...count, name: 'tally', storedAs: 'count', stores: [wordTotals],
  create: () => ({
    process(r, ctx) {
      const n = (ctx.store(wordTotals).get(r.key) ?? 0) + 1;
      ctx.store(wordTotals).put(r.key, n);
      ctx.forward('counts', r.key, { word: r.key, count: n });
    },
  }),
});
const renamed = (pinned: boolean) => new TopologyBuilder<{ cpuPerRecord?: number }>().topic(lines).topic(words).topic(counts)
  .processor(split)
  .processor(pinned ? tally : { ...tally, storedAs: undefined, stores: [{ ...wordTotals, storedAs: undefined }] })
  .build();

async function run<T>(dataDir: string, topology: ReturnType<typeof wordCountTopology>, body: (r: EmbeddedRuntime<any>) => Promise<T>): Promise<T> {
  const runtime = await EmbeddedRuntime.open({ dataDir, topology, services: {}, partitions: 2, logger: quiet });
  try {
    await runtime.start();
    await runtime.whenIdle();
    return await body(runtime);
  } finally {
    await runtime.stop();
  }
}

const countsWritten = (r: EmbeddedRuntime<any>) => r.log('counts', 0).end + r.log('counts', 1).end;
async function stored(r: EmbeddedRuntime<any>, processor: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const spec = processor === 'count' ? totals : wordTotals;
  for (const t of r.tasks) if (t.node.name === processor) for await (const [k, v] of t.storeOf(spec).entries()) out.set(k as string, v as number);
  return out;
}

describe('stored names', () => {
  it('should read a data directory written under the old names as the renamed processor and store', { timeout: 30_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stored-names-'));
    let before = 0;
    await run(dataDir, wordCountTopology(), async (r) => {
      for (let i = 0; i < 3; i++) await r.produce('lines', `doc${i}`, corpusLine(i));
      await r.whenIdle();
      before = countsWritten(r);
    });
    assert.ok(before > 0);
    await run(dataDir, renamed(true), async (r) => {
      assert.equal(countsWritten(r), before, 'the renamed processor resumed at the old positions: nothing counted twice');
      const totalsNow = await stored(r, 'tally');
      assert.equal(totalsNow.get('w0'), 3, 'the old store is the renamed store (doc0 holds w0 three times)');
      await r.produce('lines', 'doc7', corpusLine(7));
      await r.whenIdle();
      assert.equal((await stored(r, 'tally')).get('w0'), 4, 'counting goes on from the stored totals (doc7 holds w0 once)');
    });
  });

  it('should start afresh when the renamed processor is not pinned to its old name (the failure storedAs prevents)', { timeout: 30_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stored-names-unpinned-'));
    let before = 0;
    await run(dataDir, wordCountTopology(), async (r) => {
      await r.produce('lines', 'doc0', corpusLine(0));
      await r.whenIdle();
      before = countsWritten(r);
    });
    await run(dataDir, renamed(false), async (r) => {
      assert.equal(countsWritten(r), 2 * before, 'a new identity read its input again from the start: every count written twice');
    });
  });

  it('should select a processor by either name, describe the pinned names, and refuse a name taken by another stored name', () => {
    const t = renamed(true);
    assert.deepEqual(selectProcessors(t, ['count']).map((p) => p.name), ['tally']);
    assert.deepEqual(selectProcessors(t, ['tally']).map((p) => [p.name, p.storedName]), [['tally', 'count']]);
    assert.throws(() => selectProcessors(t, ['counter']), /unknown processor\(s\) counter; known: split, tally/);
    const d = topologyDescription(t).processors.find((p) => p.name === 'tally')!;
    assert.deepEqual([d.storedAs, d.stores[0]!.name, d.stores[0]!.storedAs], ['count', 'word-totals', 'totals']);
    assert.equal(topologyDescription(t).processors.find((p) => p.name === 'split')!.storedAs, undefined);
    assert.match(describeTopology(t), /tally \(stored as count\): words → counts/);
    assert.match(describeTopology(t), /store word-totals \(stored as totals\)/);
    assert.equal(storedName(wordTotals), 'totals');
    assert.equal(storedName(totals), 'totals');

    const base = new TopologyBuilder().topic(lines).topic(words).topic(counts).processor(tally);
    assert.throws(() => base.processor({ ...split, name: 'count' }), /processor count shares a name with processor tally \(stored as count\)/);
    assert.throws(() => base.processor({ ...split, storedAs: 'tally' }), /processor split \(stored as tally\) shares a name with processor tally/);
    const other = defineProcessor({ ...split, name: 'other', stores: [defineStore({ ...totals, name: 'totals' })] });
    assert.throws(() => new TopologyBuilder().topic(lines).topic(words).topic(counts).processor(tally).processor(other).build(),
      /store totals is attached to both tally and other/);
  });
});
