// A commit that fails (the state database cannot write: a full disk) is fatal: every wait ends with
// its error, within a bound, and the data directory is released for the next run.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineProcessor, defineTopic, TopologyBuilder } from '../api.js';
import { EmbeddedRuntime } from './embedded-runtime.js';
import { corpusLine, totals, wordCountTopology } from '../examples/word-count.js';

const DISK_FULL = 'IO error: No space left on device';
const quiet = { info: () => {}, warn: () => {} };

/** From now on every commit batch of this runtime fails as LevelDB does on a full disk, when it is written. */
function fillDisk(runtime: EmbeddedRuntime<any>): void {
  const full = async () => {
    throw new Error(DISK_FULL);
  };
  // A chained batch (db.batch() without operations, as commits write) or an array of operations.
  runtime.db.batch = ((ops?: unknown[]) => (ops ? full() : { put: () => {}, del: () => {}, close: async () => {}, write: full })) as never;
}

const openWordCount = (dataDir: string) => EmbeddedRuntime.open({ dataDir, topology: wordCountTopology(), services: {}, partitions: 2, logger: quiet });

// Jobs that finish when told to, or never (one that ignores even being abandoned).
interface Job { name: string }
const jobs = defineTopic<Job>()({
  name: 'jobs', key: 'job', description: 'jobs', retention: 'until-consumed', maxRecordBytes: 1 << 16,
  schema: { type: 'record', name: 'Job', fields: [{ name: 'name', type: 'string' }] },
});
interface Gate { started: (name: string) => void }
const work = defineProcessor({
  name: 'work', description: 'runs jobs', kind: 'sink', inputs: [jobs], outputs: [], stores: [], delivery: 'at least once',
  concurrency: { maxInFlight: 10, perKeyOrder: false },
  create: (gate: Gate) => ({
    process: (r) => {
      gate.started(r.value.name);
      return r.value.name === 'stuck' ? new Promise<void>(() => {}) : Promise.resolve();
    },
  }),
});

describe('embedded runtime when a commit fails', () => {
  it('should end produce, whenIdle and stop with the commit error, and release the data directory', { timeout: 30_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'commit-fail-'));
    const runtime = await openWordCount(dataDir);
    await runtime.start();
    await runtime.produce('lines', 'doc0', corpusLine(0));
    await runtime.whenIdle();
    fillDisk(runtime);
    // Before: this promise never settled, and a crawl seeding its URLs hung here.
    await assert.rejects(runtime.produce('lines', 'doc1', corpusLine(1)), new RegExp(`commit failed, stopping .*: ${DISK_FULL}`));
    await assert.rejects(runtime.produce('lines', 'doc2', corpusLine(2)), new RegExp(DISK_FULL), 'later ones fail at once');
    await assert.rejects(runtime.whenIdle(), new RegExp(DISK_FULL));
    await assert.rejects(runtime.stop(), new RegExp(DISK_FULL));

    const again = await openWordCount(dataDir); // the lock was released
    await again.start();
    await again.whenIdle();
    let counted = 0;
    for (const t of again.tasks) if (t.node.name === 'count') for await (const [, n] of t.storeOf(totals).entries()) counted += n;
    assert.equal(counted, 4, 'what committed before the failure is there, and nothing of what failed');
    await again.stop();
  });

  it('should say why and release the data directory when the last commit of a stop fails', { timeout: 30_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'commit-fail-stop-'));
    const runtime = await openWordCount(dataDir);
    await runtime.start();
    fillDisk(runtime);
    const seeding = assert.rejects(runtime.produce('lines', 'doc0', corpusLine(0)), new RegExp(DISK_FULL));
    await assert.rejects(runtime.stop(), new RegExp(DISK_FULL));
    await seeding;
    await (await openWordCount(dataDir)).stop(); // before: "in use by another crawlstream process"
  });

  it('should stop within a bound when a commit fails while a record is still in progress', { timeout: 30_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'commit-fail-busy-'));
    let onStart: (name: string) => void = () => {};
    const gate: Gate = { started: (name) => onStart(name) };
    const runtime = await EmbeddedRuntime.open({
      dataDir, topology: new TopologyBuilder<Gate>().topic(jobs).processor(work).build(), services: gate, partitions: 1, logger: quiet,
    });
    await runtime.start();
    const stuckStarted = new Promise<void>((resolve) => (onStart = (name) => name === 'stuck' && resolve()));
    await runtime.produce('jobs', 'j1', { name: 'stuck' });
    await stuckStarted;
    fillDisk(runtime);
    // A clean stop waits for records in progress; the stuck one never finishes. The commit that
    // the next job's seeding starts fails: nothing can be committed any more, so waiting is pointless.
    const stopping = runtime.stop();
    await assert.rejects(runtime.produce('jobs', 'j2', { name: 'quick' }), new RegExp(DISK_FULL));
    await assert.rejects(stopping, new RegExp(DISK_FULL)); // before: never settled
  });
});
