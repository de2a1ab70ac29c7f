#!/usr/bin/env node
// Measures how many bench pages per second the synthetic web serves from one process (one core), so a
// crawler benchmark can tell its own ceiling from the server's.
//   node dist/test-web/serve-throughput.js [--seconds 10] [--concurrency 64] [--hosts 200] [--pages 50]
// The server runs in a child process pinned to CPU 0 when `taskset` exists; the undici client runs here.
// Prints one JSON line.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';

async function startServer(hosts: string, pages: string): Promise<{ child: ChildProcess; origins: string[]; pinned: boolean }> {
  const serve = fileURLToPath(new URL('./serve.js', import.meta.url));
  const args = [serve, '--scenario', 'bench', '--hosts', hosts, '--pages', pages, '--first-address', '127.24.0.1'];
  const pinned = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
  const child = pinned
    ? spawn('taskset', ['-c', '0', process.execPath, ...args], { stdio: ['pipe', 'pipe', 'inherit'] })
    : spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  return { child, origins: (JSON.parse(line) as { origins: string[] }).origins, pinned };
}

/** CPU seconds used so far by a process (Linux /proc; undefined elsewhere). */
function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '64' },
      hosts: { type: 'string', default: '200' },
      pages: { type: 'string', default: '50' },
    },
  });
  const seconds = Number(values.seconds);
  const concurrency = Number(values.concurrency);
  const pages = Number(values.pages);
  const { child, origins, pinned } = await startServer(values.hosts, values.pages);
  const agent = new Agent({ connections: 8, keepAliveTimeout: 30_000 });
  let requests = 0;
  let bytes = 0;
  let errors = 0;
  let i = 0;
  const one = async (measure: boolean) => {
    const n = i++;
    const url = `${origins[n % origins.length]}${n % pages === 0 ? '/' : `/p/${Math.floor(n / origins.length) % pages}`}`;
    try {
      const res = await request(url, { dispatcher: agent });
      const body = Buffer.from(await res.body.arrayBuffer());
      if (measure) {
        requests++;
        bytes += body.length;
      }
    } catch {
      errors++;
    }
  };
  // Warm up (connections, JIT, the paragraph pool) before the clock starts.
  const warmEnd = Date.now() + 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (Date.now() < warmEnd) await one(false);
  }));
  const t0 = performance.now();
  const cpu0 = cpuSeconds(child.pid);
  const end = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (Date.now() < end) await one(true);
  }));
  const elapsed = (performance.now() - t0) / 1000;
  const cpu1 = cpuSeconds(child.pid);
  // Below ~100% the client, not the server, was the limit.
  const serverCpuPercent = cpu0 !== undefined && cpu1 !== undefined ? Math.round(((cpu1 - cpu0) / elapsed) * 100) : null;
  await agent.close();
  child.stdin!.end();
  process.stdout.write(
    `${JSON.stringify({
      requestsPerSecond: Math.round(requests / elapsed),
      megabytesPerSecond: Math.round((bytes / elapsed / 1e6) * 10) / 10,
      averagePageBytes: Math.round(bytes / Math.max(1, requests)),
      concurrency,
      seconds: Math.round(elapsed * 10) / 10,
      errors,
      serverCpuPercent,
      serverPinnedToOneCore: pinned,
    })}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`serve-throughput: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
