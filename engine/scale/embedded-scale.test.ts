// Growing an embedded application whose data directory may be damaged: scale runs the checks a run
// runs, refuses what a run refuses, and names the records damage took instead of carrying on silently.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedRuntime } from '../embedded/embedded-runtime.js';
import { DataDirRefusal } from '../embedded/data-dir.js';
import { corpusLine, totals, wordCountTopology } from '../examples/word-count.js';
import { scaleEmbedded } from './embedded-scale.js';

const LINES = 200;
const WORDS = LINES * 4;
const quiet = { info: () => {}, warn: () => {} };

const open = (dataDir: string, partitions: number, processors?: string[]) =>
  EmbeddedRuntime.open({ dataDir, topology: wordCountTopology(), services: {}, partitions, logger: quiet, processors, segmentBytes: 1024 });

/** Lines split into words that no one has counted yet, on 2 partitions. */
async function wordsWaiting(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'scale-'));
  const runtime = await open(dataDir, 2, ['split']);
  await runtime.start();
  for (let i = 0; i < LINES; i++) await runtime.produce('lines', `doc${i}`, corpusLine(i));
  await runtime.whenIdle();
  await runtime.stop();
  return dataDir;
}

async function countAll(dataDir: string, partitions: number): Promise<number> {
  const runtime = await open(dataDir, partitions);
  await runtime.start();
  await runtime.whenIdle();
  let n = 0;
  for (const t of runtime.tasks) if (t.node.name === 'count') for await (const [, v] of t.storeOf(totals).entries()) n += v;
  await runtime.stop();
  return n;
}

describe('scaling an embedded data directory', () => {
  it('should carry every waiting record over to the new partitions', async () => {
    const dataDir = await wordsWaiting();
    const report = await scaleEmbedded(dataDir, 5, wordCountTopology(), totals);
    assert.deepEqual([report.from, report.to, report.lost], [2, 5, []]);
    assert.ok(report.copiedRecords > 0);
    assert.equal(await countAll(dataDir, 5), WORDS, 'each word counted once');
  });

  it('should refuse a data directory whose log identity is gone, and change nothing', async () => {
    const dataDir = await wordsWaiting();
    rmSync(join(dataDir, 'log', 'IDENTITY'));
    await assert.rejects(scaleEmbedded(dataDir, 4, wordCountTopology(), totals), (err: Error) =>
      err instanceof DataDirRefusal && /IDENTITY is missing: the log was removed or replaced/.test(err.message));
    assert.deepEqual(readdirSync(join(dataDir, 'log', 'words')).sort(), ['0', '1'], 'no partition was added');
  });

  it('should name the unprocessed records damage took, and carry over the rest', async () => {
    const dataDir = await wordsWaiting();
    const dir = join(dataDir, 'log', 'words', '0');
    const last = join(dir, readdirSync(dir).filter((f) => f.endsWith('.log')).sort().pop()!);
    truncateSync(last, Math.floor(statSync(last).size / 2));
    const report = await scaleEmbedded(dataDir, 4, wordCountTopology(), totals);
    assert.equal(report.lost.length, 1);
    const [range] = report.lost;
    assert.deepEqual([range.topic, range.partition], ['words', 0]);
    assert.match(range.cause, /cut short/);
    const lost = range.to - range.from;
    assert.ok(lost > 0);
    assert.equal(await countAll(dataDir, 4), WORDS - lost, 'every readable word counted once');
  });
});
