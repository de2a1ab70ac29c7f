import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlTopology } from './topology.js';
import { TopologyBuilder, defineProcessor, selectProcessors } from '../engine/topology.js';
import { loadSchema } from '../schemas/schema-files.js';
import { defineStore } from '../engine/stores/key-value-store.js';
import { jsonValues, stringKey } from '../engine/stores/codecs.js';

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
    assert.ok(by('schedule').inputs.includes('deduped') && by('schedule').inputs.includes('fetched'));
    assert.deepEqual(by('fetch').inputs, ['scheduled']);
    assert.ok(by('parse').outputs.includes('discovered-urls'), 'links re-enter discovery');
    assert.deepEqual(by('near-dup').inputs, ['simhash-bands']);
    assert.equal(topology.topics.get('simhash-bands')!.internal, true);
  });

  it('should give each store exactly one owner, and no store to a concurrent processor', () => {
    const owners = new Map<string, string[]>();
    for (const p of topology.processors) {
      for (const s of p.stores) owners.set(s.name, [...(owners.get(s.name) ?? []), p.name]);
      if (p.concurrency) assert.deepEqual(p.stores, [], `${p.name} runs records concurrently and must not own a store`);
    }
    for (const [store, procs] of owners) assert.equal(procs.length, 1, `store ${store} owned by ${procs.join(', ')}`);
    assert.deepEqual(owners.get('seen-set'), ['dedup']);
    assert.deepEqual(owners.get('simhash-bands'), ['near-dup']);
  });

  it('should refuse a topology in which two processors share a store', () => {
    const shared = defineStore({ name: 'shared', description: '', keys: stringKey, values: jsonValues<number>() });
    const proc = (name: string) => defineProcessor({ name, description: '', delivery: '', stores: [shared], create: () => ({ process() {} }) });
    const builder = new TopologyBuilder()
      .topic({ name: 't', schema: 'discovered-url', retention: 'until-consumed', maxRecordBytes: 1024, description: '' })
      .processor(proc('one'), { from: ['t'], to: [] })
      .processor(proc('two'), { from: ['t'], to: [] });
    assert.throws(() => builder.build(), /store shared is attached to both one and two/);
    assert.throws(() => new TopologyBuilder().processor(proc('x'), { from: ['nowhere'], to: [] }), /undeclared topic nowhere/);
  });

  it('should have a loadable Avro schema for every topic', () => {
    for (const t of topology.topics.values()) assert.equal(typeof loadSchema(t.schema), 'object', t.name);
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
