// test-plan: unit ~15s
// Kill -9 tests of the embedded runtime with the word count. Each kill is triggered by progress the
// child reports (chunks of input committed, counts committed), never by a wall-clock window, so a
// slow or busy machine only makes the test slower.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusLine } from '../examples/word-count.js';

const fixture = new URL('./testing/crash-fixture.js', import.meta.url).pathname;

interface Done { counts: Record<string, number>; words: number; countRecords: number }

/** Runs the fixture; `killWhen` sees each progress line and says when to kill -9. */
function runFixture(dataDir: string, total: number, killWhen?: (kind: string, n: number) => boolean): Promise<{ done?: Done; killedAt?: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fixture, dataDir, String(total)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let pending = '';
    let err = '';
    let done: Done | undefined;
    let killedAt: string | undefined;
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      pending += d;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        const [kind, rest] = [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)];
        if (kind === 'DONE') done = JSON.parse(rest) as Done;
        else if (!killedAt && killWhen?.(kind, Number(rest))) {
          killedAt = line;
          child.kill('SIGKILL');
        }
      }
    });
    child.on('exit', (code) => {
      if (done) resolve({ done });
      else if (killedAt) resolve({ killedAt });
      else reject(new Error(`fixture exited ${code}: ${err}`));
    });
  });
}

function expectedCounts(total: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < total; i++) for (const w of corpusLine(i).text.split(' ')) counts[w] = (counts[w] ?? 0) + 1;
  return counts;
}

describe('embedded runtime', () => {
  it('should count every word exactly once across kill -9 while seeding and while records flow', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'crash-'));
    const total = 3000;
    const words = total * 4;
    // One kill in the middle of seeding, then kills at rising shares of the counts committed.
    const plans: ((kind: string, n: number) => boolean)[] = [
      (kind, n) => kind === 'SEEDED' && n >= total / 3,
      ...[0.2, 0.45, 0.7].map((share) => (kind: string, n: number) => kind === 'PROGRESS' && n >= words * share),
    ];
    const kills: string[] = [];
    for (const plan of plans) {
      const r = await runFixture(dataDir, total, plan);
      if (r.killedAt) kills.push(r.killedAt);
    }
    const { done } = await runFixture(dataDir, total);
    assert.ok(done, 'the last run finishes');
    assert.equal(kills.length, plans.length, `every planned kill landed mid-way: ${kills.join(', ')}`);
    assert.equal(done.words, words, 'the words topic holds each word of each line once');
    assert.equal(done.countRecords, words, 'one count record per word occurrence, none twice');
    assert.deepEqual(done.counts, expectedCounts(total), 'the store counted each occurrence once');
  });

  it('should refuse to resume when the state lost commits the log holds (its write-ahead log cut short)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'crash-wal-'));
    const total = 3000;
    const words = total * 4;
    // Two killed runs: the second open folds the first run's state write-ahead log into a table
    // file, so the second run's commits are all in the newest write-ahead log.
    for (const share of [0.2, 0.5]) {
      const r = await runFixture(dataDir, total, (kind, n) => kind === 'PROGRESS' && n >= words * share);
      assert.ok(r.killedAt, 'the kill landed mid-way');
    }
    // What an OS crash can leave: the state's newest write-ahead log gone, the log segments whole.
    const state = join(dataDir, 'state');
    const wal = readdirSync(state).filter((f) => /^\d+\.log$/.test(f)).sort().pop()!;
    assert.ok(statSync(join(state, wal)).size > 0);
    truncateSync(join(state, wal), 0);
    const before = readdirSync(join(dataDir, 'log'), { recursive: true }).map(String).sort();
    await assert.rejects(runFixture(dataDir, total), /has lost commits: it records commit round \d+, but the log holds records of rounds up to \d+ past the ends the state records .*--reset-state/);
    assert.deepEqual(readdirSync(join(dataDir, 'log'), { recursive: true }).map(String).sort(), before, 'the refused run removed no segment');
  });
});
