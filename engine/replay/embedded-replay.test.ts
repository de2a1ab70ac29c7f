// A replay over a damaged retained topic finishes (it used to stop short of 100 % forever) and
// reports the records it could not replay.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineProcessor, defineTopic, TopologyBuilder } from '../api.js';
import { EmbeddedRuntime } from '../embedded/embedded-runtime.js';
import { DataDirRefusal } from '../embedded/data-dir.js';
import { planReplay } from './replay-plan.js';
import { runEmbeddedReplay } from './embedded-replay.js';

interface Event { n: number }
const events = defineTopic<Event>()({
  name: 'events', key: 'source', description: 'numbered events', retention: { ms: 365 * 86_400_000 }, maxRecordBytes: 1 << 16,
  schema: { type: 'record', name: 'Event', fields: [{ name: 'n', type: 'int' }] },
});
interface Seen { seen: number[]; failOn?: number }
const tally = defineProcessor({
  name: 'tally', description: 'notes every event it sees', kind: 'sink', inputs: [events], outputs: [], stores: [], delivery: 'stateless',
  create: (s: Seen) => ({
    process: (r) => {
      if (r.value.n === s.failOn) throw new Error(`event ${r.value.n} is refused`);
      s.seen.push(r.value.n);
    },
  }),
});
const topology = () => new TopologyBuilder<Seen>().topic(events).processor(tally).build();
const EVENTS = 400;

const quiet = { info: () => {}, warn: () => {} };

/** A data directory holding EVENTS events that no one has read. */
async function recorded(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'replay-damage-'));
  const live = await EmbeddedRuntime.open({ dataDir, topology: topology(), services: { seen: [] }, partitions: 1, logger: quiet, processors: [] });
  await live.start();
  await Promise.all(Array.from({ length: EVENTS }, (_, n) => live.produce('events', 'a', { n })));
  await live.stop();
  return dataDir;
}

describe('embedded replay', () => {
  it('should finish over a truncated segment and report what it could not replay', { timeout: 60_000 }, async () => {
    const dataDir = await recorded();
    const dir = join(dataDir, 'log', 'events', '0');
    const segment = join(dir, readdirSync(dir).filter((f) => f.endsWith('.log'))[0]);
    truncateSync(segment, Math.floor(statSync(segment).size / 2));

    const warnings: string[] = [];
    const services: Seen = { seen: [] };
    const result = await runEmbeddedReplay({
      dataDir, plan: planReplay(topology(), { id: 'r1', from: 'events', processors: ['tally'] }), services,
      logger: { info: () => {}, warn: (m) => void warnings.push(m) },
    });
    const [range] = result.lost.ranges;
    assert.equal(result.lost.ranges.length, 1);
    assert.equal(range.to, EVENTS);
    assert.deepEqual(services.seen, Array.from({ length: range.from }, (_, i) => i), 'every readable event replayed once, in order');
    assert.deepEqual([result.done, result.unreadable, result.total], [range.from, EVENTS - range.from, EVENTS],
      'the replay got to the end of the topic, and counts as replayed only what it could read');
    assert.equal(result.lost.unprocessed, EVENTS - range.from);
    assert.match(warnings.join('\n'), new RegExp(`events/0 offsets ${range.from}\\.\\.${EVENTS - 1} .*cannot be read`));
    assert.match(warnings.join('\n'), new RegExp(`replay r1: ${EVENTS - range.from} records could not be read`));
  });

  it('should refuse a log whose state is missing, without making an empty one', async () => {
    const dataDir = await recorded();
    rmSync(join(dataDir, 'state'), { recursive: true });
    const replay = runEmbeddedReplay({ dataDir, plan: planReplay(topology(), { id: 'r2', from: 'events', processors: ['tally'] }), services: { seen: [] }, logger: quiet });
    await assert.rejects(replay, DataDirRefusal);
    assert.equal(existsSync(join(dataDir, 'state')), false);
  });

  it('should forget its private topics, so a later replay under the same id finds nothing missing', async () => {
    const dataDir = await recorded();
    const plan = () => planReplay(topology(), { id: 'again', from: 'events', processors: ['tally'] });
    // A refused event goes to the replay's private dead-letter topic, which is deleted when it ends.
    const first = await runEmbeddedReplay({ dataDir, plan: plan(), services: { seen: [], failOn: 3 }, logger: quiet });
    assert.equal(first.lost.ranges.length, 0);
    const warnings: string[] = [];
    const second = await runEmbeddedReplay({ dataDir, plan: plan(), services: { seen: [] }, logger: { info: () => {}, warn: (m) => void warnings.push(m) } });
    assert.deepEqual([second.lost.ranges, warnings], [[], []]);
  });
});
