import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeTopology, defineProcessor, defineStore, defineTopic, jsonValues, stringKey, topologyDescription, TopologyBuilder } from './api.js';
import { count, lines, split, wordCountTopology, words } from './examples/word-count.js';

const shared = defineStore({ name: 'shared', description: '', keys: stringKey, values: jsonValues<number>() });
const proc = (name: string, stores = [shared], concurrency?: { maxInFlight: number; perKeyOrder: boolean }) =>
  defineProcessor({ name, description: '', delivery: '', kind: 'sink', inputs: [lines], outputs: [], stores, concurrency, create: () => ({ process() {} }) });

describe('topology builder', () => {
  it('should refuse two processors sharing a store', () => {
    const builder = new TopologyBuilder().topic(lines).processor(proc('one')).processor(proc('two'));
    assert.throws(() => builder.build(), /store shared is attached to both one and two/);
  });

  it('should refuse a processor naming a topic the topology does not declare', () => {
    assert.throws(() => new TopologyBuilder().processor(split), /split names undeclared topic lines/);
    assert.throws(() => new TopologyBuilder().topic(lines).processor(split), /split names undeclared topic words/);
  });

  it('should refuse a processor built against another schema of a topic than the topology declares', () => {
    const other = defineTopic<{ word: string }>()({ ...words, schema: { type: 'record', name: 'Other', fields: [{ name: 'word', type: 'string' }] } });
    assert.throws(() => new TopologyBuilder().topic(lines).topic(other).processor(split), /expects words with another schema/);
  });

  it('should refuse a sink that declares outputs, and a transform without any, naming the processor', () => {
    const base = { description: '', delivery: '', inputs: [lines], stores: [], create: () => ({ process() {} }) };
    const sinkWithOutputs = defineProcessor({ ...base, name: 'writer', kind: 'sink', outputs: [words] });
    assert.throws(() => new TopologyBuilder().topic(lines).topic(words).processor(sinkWithOutputs), /processor writer is declared a sink but has outputs \(words\)/);
    const silent = defineProcessor({ ...base, name: 'silent', outputs: [] });
    assert.throws(() => new TopologyBuilder().topic(lines).processor(silent), /processor silent has no outputs: declare it kind: 'sink'/);
    const odd = defineProcessor({ ...base, name: 'odd', kind: 'source' as never, outputs: [words] });
    assert.throws(() => new TopologyBuilder().topic(lines).topic(words).processor(odd), /kind "source" is neither/);
    assert.doesNotThrow(() => new TopologyBuilder().topic(lines).processor(defineProcessor({ ...base, name: 'ok', kind: 'sink', outputs: [] })));
  });

  it('should refuse a concurrent processor that owns a store', () => {
    assert.throws(() => new TopologyBuilder().topic(lines).processor(proc('c', [shared], { maxInFlight: 4, perKeyOrder: false })), /cannot own stores/);
  });

  it('should describe itself as data, and in words rendered from that data', () => {
    const d = topologyDescription(wordCountTopology());
    const c = d.processors.find((p) => p.name === count.name)!;
    assert.deepEqual([c.kind, c.inputs, c.stores.map((s) => s.name)], ['transform', ['words'], count.stores.map((s) => s.name)]);
    assert.ok(d.topics.some((t) => t.name === 'dead-letters'));
    const sink = topologyDescription(new TopologyBuilder().topic(lines).processor(proc('tally', [])).build()).processors[0];
    assert.equal(sink.kind, 'sink');
    assert.match(describeTopology(wordCountTopology()), new RegExp(`${count.name}: words → `));
  });

  it('should give every processor the dead-letter topic as an output', () => {
    const t = wordCountTopology();
    assert.ok(t.topics.has('dead-letters'));
    for (const p of t.processors) assert.ok(p.outputs.includes('dead-letters'), p.name);
    assert.deepEqual(t.processors.find((p) => p.name === count.name)!.inputs, ['words']);
  });

  it('should place a processor over renamed topics and discard the outputs it is told to', () => {
    const t = new TopologyBuilder()
      .topic({ ...lines, name: 'replay.x.lines' }).topic(words).topic({ ...words, name: 'replay.x.dead' } as never)
      .processor(split, { rename: { lines: 'replay.x.lines' }, discard: ['words'] })
      .build();
    const node = t.processors[0];
    assert.deepEqual(node.inputs, ['replay.x.lines']);
    assert.deepEqual(node.outputs, ['dead-letters'], 'words is discarded, dead letters stay');
    assert.ok(node.discarded.has('words'));
    assert.throws(() => new TopologyBuilder().topic(lines).topic(words).processor(split, { discard: ['nothing'] }), /no output nothing/);
  });
});
