import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';

const SERVE = fileURLToPath(new URL('./serve.js', import.meta.url));

function start(args: string[]): { child: ChildProcessWithoutNullStreams; ready: Promise<{ port: number; seeds: string[]; origins: string[] }> } {
  const child = spawn(process.execPath, [SERVE, ...args], { stdio: 'pipe' });
  const ready = new Promise<{ port: number; seeds: string[]; origins: string[] }>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code} before listening`)));
  });
  return { child, ready };
}

function exited(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('serve CLI', () => {
  test('should print one JSON line, serve, and write the request log on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'serve-test-'));
    const logFile = join(dir, 'requests.jsonl');
    try {
      const { child, ready } = start(['--scenario', 'bench', '--hosts', '3', '--pages', '5', '--first-address', '127.23.0.1', '--log', logFile]);
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      const info = await ready;
      assert.equal(info.origins.length, 3);
      assert.deepEqual(info.seeds, info.origins.map((o) => `${o}/`));
      assert.ok(info.origins.every((o) => o.endsWith(`:${info.port}`) && o.startsWith('http://127.23.0.')));
      const res = await request(`${info.origins[2]}/p/4`, { headers: { 'user-agent': 'serve-test' } });
      assert.equal(res.statusCode, 200);
      await res.body.dump();
      const code = exited(child);
      child.kill('SIGTERM');
      assert.equal(await code, 0);
      const lines = readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.deepEqual(lines.map((l) => [l.host, l.path, l.userAgent, l.status]), [[`127.23.0.3:${info.port}`, '/p/4', 'serve-test', 200]]);
      assert.equal(stdout.trim().split('\n').length, 1, 'nothing but the JSON line on stdout');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('should exit when its stdin closes', async () => {
    const { child, ready } = start(['--scenario', 'demo', '--first-address', '127.33.0.1']);
    const info = await ready;
    assert.equal(info.origins.length, 4);
    const code = exited(child);
    child.stdin.end();
    assert.equal(await code, 0);
  });
});
