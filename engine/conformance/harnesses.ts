// The conformance suite's adapters: the test driver and the embedded runtime (here), Kafka
// (kafka-harness.ts). Each turns "move every task" into what that runtime does when tasks move.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedRuntime } from '../embedded/embedded-runtime.js';
import { TopologyTestDriver } from '../test-driver/topology-test-driver.js';
import type { Topology } from '../topology.js';
import type { ConformanceServices } from './conformance-app.js';
import type { Harness, RunningApp } from './conformance-suite.js';

const quiet = { info: () => {}, warn: () => {} };

export const driverHarness = (): Harness => ({
  async start(topology, services, clock) {
    const driver = await TopologyTestDriver.create({ topology: topology as Topology<ConformanceServices, Record<string, unknown>>, services, startTime: clock() });
    const captured = new Map<string, { key: string; value: unknown; timestamp: number }[]>();
    return {
      produce: (topic, key, value) => driver.pipe(topic, key, value),
      settle: async () => {},
      async read<V>(topic: string) {
        const list = captured.get(topic) ?? [];
        list.push(...driver.readOutput(topic));
        captured.set(topic, list);
        return list as { key: string; value: V; timestamp: number }[];
      },
      counter: async (processor, name) => driver.counter(processor, name),
      move: () => driver.moveTasks(),
      // The driver's clock is manual: time passes (and punctuations run) when the test says so.
      async failure(ms) {
        try {
          await driver.advanceTime(Math.max(ms, 1));
          return undefined;
        } catch (err) {
          return err as Error;
        }
      },
      close: () => driver.close(),
    } satisfies RunningApp;
  },
});

export const embeddedHarness = (): Harness => ({
  async start(topology, services, clock) {
    const dataDir = mkdtempSync(join(tmpdir(), 'conformance-'));
    const open = async () => {
      const rt = await EmbeddedRuntime.open({ dataDir, topology, services, logger: quiet, clock, partitions: 2 });
      await rt.start();
      return rt;
    };
    let runtime = await open();
    let stopped = false;
    return {
      produce: (topic, key, value) => runtime.produce(topic, key, value),
      settle: () => runtime.whenIdle(),
      async read<V>(topic: string) {
        const out: { key: string; value: V; timestamp: number }[] = [];
        for (let p = 0; p < runtime.partitions; p++) {
          const log = runtime.log(topic, p);
          for (let at = log.start; at < log.end;) {
            const batch = log.read(at, 1000);
            if (batch.length === 0) break;
            for (const r of batch) out.push({ key: r.key, value: runtime.codecs.decode(topic, r.value) as V, timestamp: r.timestamp });
            at = batch[batch.length - 1].offset + 1;
          }
        }
        return out;
      },
      counter: async (processor, name) => runtime.tasks.filter((t) => t.node.name === processor).reduce((n, t) => n + (t.metrics.totals.get(name) ?? 0), 0),
      // Embedded tasks never change process: moving them is closing and opening them again.
      async move() {
        await runtime.stop();
        runtime = await open();
      },
      async failure(ms) {
        const signal = AbortSignal.timeout(ms);
        try {
          await runtime.whenStopped(signal);
          return undefined;
        } catch (err) {
          return err as Error;
        }
      },
      async close() {
        if (stopped) return;
        stopped = true;
        await runtime.stop().catch(() => {});
      },
    } satisfies RunningApp;
  },
});
