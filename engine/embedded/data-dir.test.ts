// A data directory whose state does not belong to its log is refused before anything runs, with a
// message that names what was found and the way out; --reset-state's set-aside then starts afresh.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { EmbeddedRuntime, type EmbeddedOptions } from './embedded-runtime.js';
import { DataDirRefusal, setAsideLogAndState, type LogIdentity } from './data-dir.js';
import { corpusLine, totals, wordCountTopology } from '../examples/word-count.js';

type Options = Partial<EmbeddedOptions<{ cpuPerRecord?: number }>>;

function messages() {
  const info: string[] = [];
  const warn: string[] = [];
  return { info, warn, logger: { info: (m: string) => void info.push(m), warn: (m: string) => void warn.push(m) } };
}

const open = (dataDir: string, options: Options = {}) =>
  EmbeddedRuntime.open({ dataDir, topology: wordCountTopology(), services: {}, partitions: 2, logger: messages().logger, ...options });

async function countLines(dataDir: string, from: number, to: number): Promise<EmbeddedRuntime<{ cpuPerRecord?: number }>> {
  const runtime = await open(dataDir);
  await runtime.start();
  await Promise.all(Array.from({ length: to - from }, (_, i) => runtime.produce('lines', `doc${from + i}`, corpusLine(from + i))));
  await runtime.whenIdle();
  return runtime;
}

async function totalCount(runtime: EmbeddedRuntime<{ cpuPerRecord?: number }>): Promise<number> {
  let n = 0;
  for (const t of runtime.tasks) if (t.node.name === 'count') for await (const [, v] of t.storeOf(totals).entries()) n += v;
  return n;
}

const identityOf = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'log', 'IDENTITY'), 'utf8')) as LogIdentity;
/** Every file of the log with its size: a refused open must leave them as they were. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => `${join(e.parentPath, e.name)} ${statSync(join(e.parentPath, e.name)).size}`)
    .sort();
}
const newestWal = (state: string) => join(state, readdirSync(state).filter((f) => /^\d+\.log$/.test(f)).sort().pop()!);

describe('embedded data directory', () => {
  it('should refuse a log whose state was deleted, name the log and the fix, and change nothing', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dd-deleted-'));
    await (await countLines(dataDir, 0, 40)).stop();
    const { logId } = identityOf(dataDir);
    rmSync(join(dataDir, 'state'), { recursive: true });
    const before = files(join(dataDir, 'log'));
    await assert.rejects(open(dataDir), (err: Error) => {
      assert.ok(err instanceof DataDirRefusal, err.message);
      assert.match(err.message, new RegExp(`holds a log \\(log ${logId}, created .*\\) but its state .*state is missing`));
      assert.match(err.message, /--reset-state/);
      return true;
    });
    assert.equal(existsSync(join(dataDir, 'state')), false, 'no empty state was created in its place');
    assert.deepEqual(files(join(dataDir, 'log')), before);
  });

  it('should refuse a state that lost its write-ahead log (it no longer knows the log identity)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dd-wal-'));
    await (await countLines(dataDir, 0, 40)).stop();
    truncateSync(newestWal(join(dataDir, 'state')), 0);
    await assert.rejects(open(dataDir), /the state in .* holds no log identity .* while .*log holds records \(log [0-9a-f-]{36}, created .*--reset-state/);
  });

  it('should refuse a state from another data directory, naming both logs', async () => {
    const [a, b] = ['dd-a-', 'dd-b-'].map((p) => mkdtempSync(join(tmpdir(), p)));
    for (const dir of [a, b]) await (await countLines(dir, 0, 10)).stop();
    rmSync(join(a, 'state'), { recursive: true });
    cpSync(join(b, 'state'), join(a, 'state'), { recursive: true });
    await assert.rejects(open(a), new RegExp(`belongs to log ${identityOf(b).logId}, but .*IDENTITY says the log there is ${identityOf(a).logId}`));
  });

  it('should refuse a log whose identity file is gone, and a data directory from a newer version', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dd-noid-'));
    await (await countLines(dataDir, 0, 10)).stop();
    const identity = readFileSync(join(dataDir, 'log', 'IDENTITY'));
    unlinkSync(join(dataDir, 'log', 'IDENTITY'));
    await assert.rejects(open(dataDir), /IDENTITY is missing: the log was removed or replaced/);
    writeFileSync(join(dataDir, 'log', 'IDENTITY'), identity);
    const db = new Level<string, string>(join(dataDir, 'state'));
    await db.put('meta!format', '3');
    await db.close();
    await assert.rejects(open(dataDir), /written by a newer crawlstream \(data format 3; this one reads up to 2\)/);
  });

  it('should upgrade a data directory from before log identities and go on where it stopped', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dd-upgrade-'));
    const first = await countLines(dataDir, 0, 30);
    const logId = first.logId;
    await first.stop();
    // What the earlier version left: no identity file, no format in the state.
    unlinkSync(join(dataDir, 'log', 'IDENTITY'));
    const db = new Level<string, string>(join(dataDir, 'state'));
    await db.del('meta!format');
    await db.close();
    const m = messages();
    const runtime = await open(dataDir, { logger: m.logger });
    assert.equal(runtime.logId, logId);
    assert.equal(identityOf(dataDir).logId, logId);
    assert.match(m.info.join('\n'), /upgraded to data format 2/);
    await runtime.start();
    await Promise.all(Array.from({ length: 10 }, (_, i) => runtime.produce('lines', `doc${30 + i}`, corpusLine(30 + i))));
    await runtime.whenIdle();
    assert.equal(await totalCount(runtime), 40 * 4, 'every word of the 40 lines counted once');
    await runtime.stop();
  });

  it('should set the log and state aside and start a new log identity', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dd-aside-'));
    await (await countLines(dataDir, 0, 20)).stop();
    const old = identityOf(dataDir);
    rmSync(join(dataDir, 'state'), { recursive: true });
    await assert.rejects(open(dataDir), DataDirRefusal);
    const aside = await setAsideLogAndState(dataDir, new Date(Date.UTC(2026, 0, 2, 3, 4, 5)));
    assert.equal(aside, join(dataDir, 'aside-20260102T030405Z'));
    assert.equal(JSON.parse(readFileSync(join(aside, 'log', 'IDENTITY'), 'utf8')).logId, old.logId, 'the old log is kept whole');
    const runtime = await countLines(dataDir, 0, 20);
    assert.notEqual(runtime.logId, old.logId);
    assert.equal(await totalCount(runtime), 20 * 4);
    await runtime.stop();
    assert.equal(await setAsideLogAndState(mkdtempSync(join(tmpdir(), 'dd-empty-'))), undefined, 'nothing to set aside');
  });

  it('should refuse to set aside a data directory in use by a running process', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dd-busy-'));
    const runtime = await countLines(dataDir, 0, 5);
    await assert.rejects(setAsideLogAndState(dataDir), /in use by another crawlstream process.*stop it before --reset-state/);
    assert.ok(existsSync(join(dataDir, 'state')) && existsSync(join(dataDir, 'log')), 'nothing was moved');
    await runtime.stop();
  });

  it('should adopt the identity of a data directory whose creation stopped before its state was written', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dd-interrupted-'));
    await (await open(dataDir)).stop();
    const { logId } = identityOf(dataDir);
    rmSync(join(dataDir, 'state'), { recursive: true }); // the log holds no record yet
    const runtime = await open(dataDir);
    assert.equal(runtime.logId, logId);
    await runtime.stop();
  });
});
