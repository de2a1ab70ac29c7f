// test-plan: unit ~16s
// Embedded ClickHouse lives in the crawl's process, so "ClickHouse killed" means the process dies:
// the sink is killed with SIGKILL mid-stream, twice, and restarted from its committed positions.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openClickHouse } from './connection.js';
import { compareKeys, physicalRowKeys } from './testing/test-harness.js';
import { expectedRowKeys, recordStream } from './testing/test-fixtures.js';

const CHILD = fileURLToPath(new URL('./testing/sink-crash-child.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'crawlstream-sink-crash-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function committedFetched(file: string): number {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>).fetched ?? 0;
  } catch {
    return 0;
  }
}

function runChild(positions: string, count: number, killAtCommitted?: number): Promise<{ killed: boolean; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dir, 'crash', positions, String(count)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const poll = killAtCommitted === undefined ? undefined : setInterval(() => {
      if (committedFetched(positions) >= killAtCommitted) child.kill('SIGKILL');
    }, 5);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (poll) clearInterval(poll);
      if (signal === 'SIGKILL') resolve({ killed: true, out });
      else if (code === 0) resolve({ killed: false, out });
      else reject(new Error(`sink child exited with ${code}`));
    });
  });
}

test('should hold every row exactly once when the sink process is killed mid-stream and restarted', { timeout: 120_000 }, async () => {
  const count = 12_000;
  const positions = join(dir, 'positions.json');
  const first = await runChild(positions, count, 1500);
  const second = await runChild(positions, count, 3500);
  assert.equal(first.killed && second.killed, true);
  assert.ok(existsSync(positions));
  const last = await runChild(positions, count);
  assert.equal(last.killed, false);
  const summary = JSON.parse(last.out) as { skipped: number; inserted: number };
  assert.ok(summary.inserted > 0);
  const ch = await openClickHouse({ dataDir: dir, database: 'crash' });
  try {
    const { duplicates, missing, extra } = compareKeys(await physicalRowKeys(ch), expectedRowKeys(recordStream(count)));
    assert.deepEqual({ duplicates: duplicates.length, missing: missing.length, extra: extra.length }, { duplicates: 0, missing: 0, extra: 0 });
  } finally {
    await ch.close();
  }
});
