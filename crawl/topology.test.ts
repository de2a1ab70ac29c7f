import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlTopology } from './topology.js';
import { selectProcessors, describeTopology } from '../engine/topology.js';

/** Topics nobody in the topology reads: they are for operators and external consumers. */
const SINKS = new Set(['dead-letters']);

describe('crawl topology', () => {
  const topology = crawlTopology();
  const consumed = new Set(topology.processors.flatMap((p) => p.inputs));
  const produced = new Set(topology.processors.flatMap((p) => p.outputs));

  it('should have every topic consumed by a processor or be a declared sink', () => {
    for (const name of topology.topics.keys()) {
      assert.ok(consumed.has(name) || SINKS.has(name), `topic ${name} is written but nobody reads it`);
    }
    for (const sink of SINKS) assert.ok(!consumed.has(sink) && topology.topics.has(sink));
  });

  it('should have every topic produced by a processor', () => {
    for (const name of topology.topics.keys()) assert.ok(produced.has(name), `topic ${name} is never written`);
  });

  it('should wire processors only to declared topics', () => {
    for (const p of topology.processors) {
      for (const t of [...p.inputs, ...p.outputs]) assert.ok(topology.topics.has(t), `${p.name} names ${t}`);
      assert.ok(p.inputs.length > 0, `${p.name} reads something`);
      assert.ok(p.outputs.includes('dead-letters'), `${p.name} can dead-letter a record`);
    }
  });

  it('should follow the crawl pipeline from discovery to parsing', () => {
    const by = (name: string) => topology.processors.find((p) => p.name === name)!;
    assert.deepEqual(by('normalize').inputs, ['discovered-urls']);
    assert.ok(by('normalize').outputs.includes('normalized'));
    assert.deepEqual(by('dedup').inputs, ['normalized']);
    assert.ok(by('schedule').inputs.includes('deduped') && by('schedule').inputs.includes('fetch-reports'));
    assert.deepEqual(by('resolve').inputs, ['scheduled']);
    assert.deepEqual(by('fetch').inputs, ['resolved'], 'fetch reads requests keyed by server address');
    assert.ok(by('parse').outputs.includes('discovered-urls'), 'links re-enter discovery');
    assert.deepEqual(by('near-dup').inputs, ['simhash-bands']);
    assert.equal(topology.topics.get('simhash-bands')!.internal, true);
  });

  it('should give each store exactly one owner, and no store to a concurrent processor', () => {
    const owners = new Map<string, string[]>();
    for (const p of topology.processors) {
      for (const s of p.definition.stores) owners.set(s.name, [...(owners.get(s.name) ?? []), p.name]);
      if (p.definition.concurrency) assert.deepEqual(p.definition.stores, [], `${p.name} runs records concurrently and must not own a store`);
    }
    for (const [store, procs] of owners) assert.equal(procs.length, 1, `store ${store} owned by ${procs.join(', ')}`);
    assert.deepEqual(owners.get('seen-set'), ['dedup']);
    assert.deepEqual(owners.get('bands'), ['near-dup']);
  });

  it('should describe every topic and processor from their declarations', () => {
    const text = describeTopology(topology);
    for (const t of topology.topics.values()) assert.ok(text.includes(`  ${t.name}`) && text.includes(t.description), t.name);
    for (const p of topology.processors) {
      const pinned = (d: { storedAs?: string }) => (d.storedAs ? ` (stored as ${d.storedAs})` : '');
      assert.ok(text.includes(`  ${p.name}${pinned(p.definition)}: ${p.inputs.join(', ')} → ${p.outputs.join(', ')}`), p.name);
      assert.ok(text.includes(`delivery: ${p.definition.delivery}`), `${p.name} delivery`);
      for (const s of p.definition.stores) assert.ok(text.includes(`store ${s.name}${pinned(s)}: ${s.description}`), s.name);
    }
  });

  it('should select all processors, a subset in topology order, and reject unknown names', () => {
    assert.equal(selectProcessors(topology).length, topology.processors.length);
    assert.equal(selectProcessors(topology, []).length, topology.processors.length);
    assert.deepEqual(selectProcessors(topology, ['parse', 'fetch']).map((p) => p.name), ['fetch', 'parse']);
    assert.throws(() => selectProcessors(topology, ['fetch', 'fecth', 'nope']), (err: Error) => {
      assert.match(err.message, /unknown processor\(s\) fecth, nope/);
      assert.match(err.message, /known: .*fetch/);
      return true;
    });
  });
});
