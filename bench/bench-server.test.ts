// The cheap bench server must serve the same web the benchmark has always crawled, and its template-heavy
// web must be what the near-duplicate figure needs: pages that all resemble one another.
// Run: node --test dist/bench/bench-server.test.js (scripts/run-tests.mjs skips dist/bench/).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startSyntheticWeb } from '../test-web/synthetic-web.js';
import { extractPage } from '../parsing/extract-page.js';
import { hammingDistance } from '../parsing/simhash.js';
import { NEAR_DUPLICATE_BITS } from '../stages/near-dup/near-dup.js';
import { renderPages } from './bench-pages.js';
import { analyzeLog } from './web.js';

const server = fileURLToPath(new URL('./bench-server.js', import.meta.url));

async function startServer(args: string[]): Promise<{ info: { port: number; origins: string[] }; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [server, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    child.once('exit', (code) => reject(new Error(`bench-server exited with ${code}`)));
  });
  return {
    info: JSON.parse(line),
    stop: () => new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

test('should serve the pages of test-web\'s bench scenario byte for byte (apart from the port in cross-host links)', async () => {
  const ours = await startServer(['--hosts', '4', '--pages', '30', '--first-address', '127.31.0.1']);
  const theirs = await startSyntheticWeb({ scenario: 'bench', bench: { hosts: 4, pagesPerHost: 30 }, firstAddress: '127.31.1.1', log: false });
  try {
    for (const [host, path] of [[0, '/'], [1, '/p/7'], [3, '/p/29']] as const) {
      const a = await (await fetch(`${ours.info.origins[host]}${path}`)).text();
      const b = await (await fetch(`${theirs.hosts[host].origin}${path}`)).text();
      const norm = (s: string, origins: string[]) => origins.reduce((t, o, i) => t.split(o).join(`ORIGIN${i}`), s);
      assert.equal(norm(a, ours.info.origins), norm(b, theirs.hosts.map((h) => h.origin)));
      assert.ok(a.length > 10_000, 'a bench page is ~18 KB');
    }
    assert.equal((await fetch(`${ours.info.origins[0]}/p/30`)).status, 404);
    assert.equal((await fetch(`${ours.info.origins[0]}/p/01`)).status, 404);
  } finally {
    await ours.stop();
    await theirs.close();
  }
});

test('should make template-heavy pages near-duplicates of one another, and bench pages not', () => {
  const origins = Array.from({ length: 5 }, (_, i) => `http://127.31.2.${i + 1}:8080`);
  const nearShare = (kind: 'bench' | 'template-heavy') => {
    const hashes = renderPages(kind, origins, 8).pages.flat().map((b, i) => extractPage(b.toString(), `${origins[0]}/p/${i}`, 'x').simhash);
    let near = 0;
    let pairs = 0;
    for (let i = 0; i < hashes.length; i++) {
      for (let j = i + 1; j < hashes.length; j++, pairs++) if (hammingDistance(hashes[i], hashes[j]) <= NEAR_DUPLICATE_BITS) near++;
    }
    return near / pairs;
  };
  assert.ok(nearShare('template-heavy') > 0.8, 'most template-heavy pairs are within the near-duplicate distance');
  assert.equal(nearShare('bench'), 0);
});

test('should count only bench pages as pages, not robots.txt or 404 answers', () => {
  const line = (path: string, status: number, at: number) => JSON.stringify({ host: '127.31.0.1:80', path, startedAt: at, endedAt: at + 1, status });
  const stats = analyzeLog([line('/robots.txt', 200, 0), line('/', 200, 2), line('/p/3', 200, 4), line('/p/3', 200, 6), line('/sitemap.xml', 404, 8)].join('\n'));
  assert.equal(stats.pageRequests, 3);
  assert.equal(stats.distinctPages, 2);
  assert.equal(stats.robotsRequests, 1);
  assert.deepEqual(stats.otherRequests, { '/sitemap.xml': 1 });
  assert.equal(stats.hostsPageBeforeRobots, 0);
});

test('should serve HTTPS with a certificate of a CA made for the run, trusted only where it is handed over', async () => {
  const { Agent, request } = await import('undici');
  const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'crawlstream-bench-tls-'));
  const web = await startServer(['--hosts', '3', '--pages', '10', '--first-address', '127.31.2.1', '--tls-dir', dir]);
  const info = web.info as { origins: string[]; caFile?: string };
  try {
    assert.deepEqual(info.origins.map((o) => o.split(':')[0]), ['https', 'https', 'https']);
    assert.ok(info.caFile);
    const trusting = new Agent({ connect: { ca: readFileSync(info.caFile) } });
    const res = await request(`${info.origins[2]}/p/3`, { dispatcher: trusting });
    const html = await res.body.text();
    assert.equal(res.statusCode, 200);
    const crossHost = [...html.matchAll(/href="(https?:\/\/[^"]+)"/g)].map((m) => m[1]);
    assert.ok(crossHost.length > 0 && crossHost.every((u) => u.startsWith('https://')), 'cross-host links name the HTTPS origins');
    await trusting.close();
    const plain = new Agent();
    await assert.rejects(request(`${info.origins[0]}/`, { dispatcher: plain }), /certificate/i);
    await plain.close();
  } finally {
    await web.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
