// A second, tiny application of the engine, with nothing of the crawler in it: it proves the runtimes
// run any topology, and its tests (embedded, test driver, Kafka) kill -9 it mid-way and count.
//   lines (key: document) → split → words (key: word) → count [store: totals] → counts (key: word)
import type avro from 'avsc';
import { defineProcessor, defineStore, defineTopic, jsonValues, stringKey, TopologyBuilder } from '../api.js';

export interface Line { doc: string; text: string }
export interface Word { word: string; doc: string }
export interface Count { word: string; count: number }

const record = (name: string, fields: [string, string][]): avro.Schema => ({ type: 'record', name, namespace: 'wordcount', fields: fields.map(([n, t]) => ({ name: n, type: t })) });
const common = { retention: 'until-consumed', maxRecordBytes: 1 << 20, description: '' } as const;

export const lines = defineTopic<Line>()({ name: 'lines', key: 'document', schema: record('Line', [['doc', 'string'], ['text', 'string']]), ...common });
export const words = defineTopic<Word>()({ name: 'words', key: 'word', schema: record('Word', [['word', 'string'], ['doc', 'string']]), ...common });
export const counts = defineTopic<Count>()({ name: 'counts', key: 'word', schema: record('Count', [['word', 'string'], ['count', 'long']]), ...common });

export const totals = defineStore<string, number>({ name: 'totals', description: 'occurrences per word', keys: stringKey, values: jsonValues<number>() });

export const split = defineProcessor({
  name: 'split', description: 'splits lines into words, re-keyed by word', inputs: [lines], outputs: [words], stores: [],
  delivery: 'stateless',
  create: () => ({
    process(r, ctx) {
      for (const word of r.value.text.toLowerCase().split(/\W+/)) if (word) ctx.forward('words', word, { word, doc: r.value.doc });
    },
  }),
});

export const count = defineProcessor({
  name: 'count', description: 'counts each word, emitting the running total', inputs: [words], outputs: [counts], stores: [totals],
  delivery: 'exactly once: the total and the emitted count commit with the input position',
  create: (s: { cpuPerRecord?: number }) => ({
    process(r, ctx) {
      const store = ctx.store(totals);
      const n = (store.get(r.key) ?? 0) + 1;
      store.put(r.key, n);
      // Optional busy work per record, so that a kill lands while records flow.
      for (let i = 0, x = 0; i < (s.cpuPerRecord ?? 0); i++) x += i;
      ctx.forward('counts', r.key, { word: r.key, count: n });
    },
  }),
});

export const wordCountTopology = () => new TopologyBuilder<{ cpuPerRecord?: number }>().topic(lines).topic(words).topic(counts).processor(split).processor(count).build();

/** Document i of a deterministic corpus: word w appears in documents of which it divides the number. */
export function corpusLine(i: number): Line {
  const text = [`w${i % 7}`, `w${i % 11}`, `w${i % 13}`, `unique${i}`].join(' ');
  return { doc: `doc${i}`, text };
}
