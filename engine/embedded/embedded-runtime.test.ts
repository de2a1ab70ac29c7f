import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const fixture = new URL('./crash-fixture.js', import.meta.url).pathname;

function runFixture(dataDir: string, total: number, killAfterMs?: number): Promise<{ done?: Record<string, number>; killed: boolean; seeded: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fixture, dataDir, String(total)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    let killed = false;
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, killAfterMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('DONE '));
      const seeded = out.includes('SEEDED');
      if (line) return resolve({ done: JSON.parse(line.slice(5)), killed, seeded });
      if (killed) return resolve({ killed, seeded });
      reject(new Error(`fixture exited ${code}: ${err}`));
    });
  });
}

describe('embedded runtime', () => {
  it('should process every record exactly once across repeated kill -9 at random moments', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'crash-'));
    const total = 8000;
    let kills = 0;
    let killsWhileProcessing = 0;
    for (let i = 0; i < 8; i++) {
      const r = await runFixture(dataDir, total, 200 + Math.floor(Math.random() * 1500));
      if (r.killed) kills++;
      if (r.killed && r.seeded) killsWhileProcessing++;
      if (r.done) break;
    }
    const { done } = await runFixture(dataDir, total);
    assert.ok(done, 'the last run finishes');
    assert.ok(kills > 0, 'at least one run was killed mid-way');
    assert.ok(killsWhileProcessing > 0, 'at least one kill landed after seeding, while records flowed');
    assert.equal(done.seenTwice, 0, 'no record reached the second stage twice');
    assert.equal(done.seenEntries, total, 'every record reached the second stage');
    assert.equal(done.midRecords, total, 'the intermediate topic holds each record once');
    assert.equal(done.countSum, total, 'the first stage counted each record once');
  });
});
