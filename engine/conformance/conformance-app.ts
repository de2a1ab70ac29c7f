// The application every runtime must run alike: the word count with a counter, and a processor whose
// punctuation fails on demand. Nothing here knows which runtime runs it.
import { defineProcessor, TopologyBuilder } from '../api.js';
import { count, counts, lines, split, words, type Count } from '../examples/word-count.js';

export interface ConformanceServices {
  cpuPerRecord?: number;
  /** The alarm processor's punctuation throws while this is true. */
  failPunctuate?: { on: boolean };
}

/** Counts the words it sees in a counter of its own, with no store: counters must be committed and move with the task. */
const tally = defineProcessor({
  name: 'tally', description: 'counts words in a counter', kind: 'sink', inputs: [words], outputs: [], stores: [],
  delivery: 'exactly once: the counter commits with the input position',
  create: () => ({
    process(_r, ctx) {
      ctx.metrics.count('words');
    },
  }),
});

const alarm = defineProcessor({
  name: 'alarm', description: 'a punctuation that fails when told', kind: 'sink', inputs: [lines], outputs: [], stores: [],
  punctuateEveryMs: 20, delivery: 'none',
  create: (s: ConformanceServices) => ({
    process() {},
    punctuate() {
      if (s.failPunctuate?.on) throw new Error('the alarm went off');
    },
  }),
});

export const wordCountApp = () => new TopologyBuilder<ConformanceServices>().topic(lines).topic(words).topic(counts)
  .processor(split).processor(count).processor(tally).build();

export const alarmApp = () => new TopologyBuilder<ConformanceServices>().topic(lines).processor(alarm).build();

/** Line i of the suite's corpus, and the counts the whole of it must give. */
export function line(i: number): { doc: string; text: string } {
  return { doc: `doc${i}`, text: [`w${i % 5}`, `w${i % 3}`, `once${i}`].join(' ') };
}

export function expectedCounts(total: number): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i < total; i++) for (const w of line(i).text.split(' ')) out.set(w, (out.get(w) ?? 0) + 1);
  return out;
}

export type { Count };
