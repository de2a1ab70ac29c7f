// Runs the real command line (bin/crawlstream) as a child process, as a user would.
import { spawn, type ChildProcess } from 'node:child_process';

export const BIN = new URL('../../../bin/crawlstream', import.meta.url).pathname;

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** Sends this signal after `afterMs` (or once `when` matches stderr, then waits afterMs). */
  interrupt?: { signal: NodeJS.Signals; afterMs: number; when?: RegExp };
  timeoutMs?: number;
  env?: Record<string, string>;
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> & { child: ChildProcess; stderrSoFar(): string } {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
  let stdout = '';
  let stderr = '';
  let armed = false;
  const timers: NodeJS.Timeout[] = [];
  const arm = () => {
    if (armed || !options.interrupt) return;
    armed = true;
    timers.push(setTimeout(() => child.kill(options.interrupt!.signal), options.interrupt.afterMs));
  };
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => {
    stderr += d;
    if (options.interrupt?.when?.test(stderr)) arm();
  });
  if (options.interrupt && !options.interrupt.when) arm();
  timers.push(setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 10 * 60_000));
  const done = new Promise<CliRun>((resolve) => {
    child.on('exit', (code, signal) => {
      for (const t of timers) clearTimeout(t);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return Object.assign(done, { child, stderrSoFar: () => stderr });
}

/**
 * Sends `signal` to a run once `ready()` holds (checked every `everyMs`): kills and stops triggered by
 * progress the test can see (usually the test server's request log), not by a wall-clock guess.
 * Resolves with the time it was sent (performance.timeOrigin + now()), or 0 if the run ended first.
 */
export function signalWhen(run: Promise<CliRun> & { child: ChildProcess }, ready: () => boolean, signal: NodeJS.Signals, everyMs = 20): Promise<number> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (run.child.exitCode !== null || run.child.signalCode !== null) {
        clearInterval(timer);
        resolve(0);
      } else if (ready()) {
        clearInterval(timer);
        const at = performance.timeOrigin + performance.now();
        run.child.kill(signal);
        resolve(at);
      }
    }, everyMs);
  });
}

export async function query<T = Record<string, unknown>>(dataDir: string, sql: string, extra: string[] = []): Promise<T[]> {
  const r = await runCli(['query', sql, '--data-dir', dataDir, '--format', 'json', ...extra]);
  if (r.code !== 0) throw new Error(`query failed (${r.code}): ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);
}
