// One contract, checked on every runtime (embedded, Kafka, the test driver) with the same tests: a
// word count stays exact when its tasks move mid-stream; counters are committed with the task and
// move with it; a failing punctuation stops the runtime with its error; the runtime's clock is the
// one the application gave. Each harness adapts one runtime to RunningApp.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Topology } from '../topology.js';
import { alarmApp, expectedCounts, line, wordCountApp, type ConformanceServices, type Count } from './conformance-app.js';

/** A fixed time a minute ago: brokers refuse record timestamps too far ahead, and retention drops old ones. */
export const CLOCK = Math.floor(Date.now() / 1000) * 1000 - 60_000;

export interface RunningApp {
  produce(topic: string, key: string, value: unknown): Promise<void>;
  /** Resolves once everything produced so far is processed and committed. */
  settle(): Promise<void>;
  /** Every committed record of an output topic, in each partition's order. */
  read<V>(topic: string): Promise<{ key: string; value: V; timestamp: number }[]>;
  /** A counter's committed total over every task of a processor. */
  counter(processor: string, name: string): Promise<number>;
  /** Every task moves to a new owner mid-stream (embedded: re-opened; Kafka: another worker takes over). */
  move(): Promise<void>;
  /** Resolves with the error that stopped the runtime, if one does within `ms`. */
  failure(ms: number): Promise<Error | undefined>;
  close(): Promise<void>;
}

export interface Harness {
  start(topology: Topology<ConformanceServices>, services: ConformanceServices, clock: () => number): Promise<RunningApp>;
}

export function conformanceSuite(harness: () => Harness): void {
  it('should count every word exactly once, with counters that move with their task and the given clock', async () => {
    const app = await harness().start(wordCountApp(), {}, () => CLOCK);
    try {
      const total = 60;
      for (let i = 0; i < total / 2; i++) await app.produce('lines', line(i).doc, line(i));
      await app.settle();
      await app.move();
      for (let i = total / 2; i < total; i++) await app.produce('lines', line(i).doc, line(i));
      await app.settle();
      const records = await app.read<Count>('counts');
      const latest = new Map<string, number>();
      for (const r of records) latest.set(r.key, Math.max(latest.get(r.key) ?? 0, r.value.count));
      const expected = expectedCounts(total);
      assert.deepEqual(new Map([...latest].sort()), new Map([...expected].sort()), 'each word counted once per occurrence');
      assert.equal(records.length, total * 3, 'one count record per occurrence: none lost, none twice');
      assert.ok(records.every((r) => r.timestamp === CLOCK), 'records are stamped by the runtime\'s clock');
      assert.equal(await app.counter('tally', 'words'), total * 3, 'the counter kept its total across the move');
    } finally {
      await app.close();
    }
  });

  it('should stop with the error when a punctuation fails', async () => {
    const failPunctuate = { on: false };
    const app = await harness().start(alarmApp(), { failPunctuate }, () => CLOCK);
    try {
      await app.produce('lines', 'doc', { doc: 'doc', text: 'a' });
      await app.settle();
      assert.equal(await app.failure(100), undefined, 'a punctuation that succeeds stops nothing');
      failPunctuate.on = true;
      const err = await app.failure(30_000);
      assert.match(err?.message ?? 'no failure', /the alarm went off/);
    } finally {
      await app.close();
    }
  });
}
