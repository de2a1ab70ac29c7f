import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeTopology, defineProcessor, defineStore, defineTopic, jsonValues, stringKey, topologyDescription, TopologyBuilder } from './api.js';
import { count, lines, split, wordCountTopology, words } from './examples/word-count.js';
import { TopologyTestDriver } from './test-driver/topology-test-driver.js';

const shared = defineStore({ name: 'shared', description: '', keys: stringKey, values: jsonValues<number>() });
const proc = (name: string, stores = [shared], concurrency?: { maxInFlight: number; perKeyOrder: boolean }) =>
  defineProcessor({ name, description: '', delivery: '', kind: 'sink', inputs: [lines], outputs: [], stores, concurrency, create: () => ({ process() {} }) });

/** A sink reading `lines` with the given projection, after one line of `text` went through it: what it saw. */
async function readLine(projection: { skips?: Record<string, string[]>; asBytes?: Record<string, string[]> }, text: string) {
  const seen: unknown[] = [];
  const reader = defineProcessor({
    name: 'reader', kind: 'sink', description: '', delivery: '', inputs: [lines], outputs: [], stores: [], ...projection,
    create: () => ({ process(r: { value: unknown }) { seen.push(r.value); } }),
  });
  const d = await TopologyTestDriver.create({ topology: new TopologyBuilder().topic(lines).processor(reader).build(), services: {} });
  await d.pipe('lines', 'doc-1', { doc: 'doc-1', text });
  await d.close();
  return { reader, seen };
}

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

  it('should leave the fields a processor skips undecoded, and refuse a skip of a field its input does not have', async () => {
    const { reader, seen } = await readLine({ skips: { lines: ['text'] } }, 'a long text the reader never looks at');
    assert.deepEqual(seen.map((v) => ({ ...(v as object) })), [{ doc: 'doc-1' }], 'the skipped field is not decoded');
    const typo = { ...reader, name: 'typo', skips: { lines: ['txt'] } } as never;
    assert.throws(() => new TopologyBuilder().topic(lines).processor(typo), /typo skips field txt, which lines does not have/);
    const elsewhere = { ...reader, name: 'elsewhere', skips: { words: ['word'] } } as never;
    assert.throws(() => new TopologyBuilder().topic(lines).processor(elsewhere), /elsewhere skips fields of words, which it does not read/);
  });

  it('should hand a processor the string fields it reads as bytes as their UTF-8, and refuse asking so of a field that is no string', async () => {
    const { reader, seen } = await readLine({ asBytes: { lines: ['text'] } }, 'déjà\tvu');
    const [value] = seen as { doc: string; text: Buffer }[];
    assert.equal(value.doc, 'doc-1', 'other strings stay strings');
    assert.ok(Buffer.isBuffer(value.text));
    assert.deepEqual(value.text, Buffer.from('déjà\tvu', 'utf8'));
    const typo = { ...reader, name: 'typo', asBytes: { lines: ['txt'] } } as never;
    assert.throws(() => new TopologyBuilder().topic(lines).processor(typo), /typo reads field txt of lines as bytes, but it is not a string field/);
  });
});
