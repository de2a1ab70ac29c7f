// Runs a command as a separate process and measures it the same way whatever it is (crawlstream, Crawlee,
// a ceiling probe): wall time, user+sys CPU of the process and its waited-for children, peak RSS, and an
// RSS series sampled from /proc. GNU time gives exact CPU and peak RSS from wait4(); without it the
// numbers come from /proc polling (CPU up to the last sample, peak = highest VmHWM seen).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ThreadSampler, type ThreadGroups } from './threads.js';

const GNU_TIME = '/usr/bin/time';
const CLOCK_TICKS = 100;

export interface RssSample {
  /** Seconds since the process started. */
  t: number;
  /** Resident set of the process tree, MB. */
  rssMb: number;
}

export interface Measured {
  exitCode: number | null;
  wallSeconds: number;
  userSeconds: number;
  sysSeconds: number;
  cpuSeconds: number;
  peakRssMb: number;
  /** Where the peak came from: 'gnu-time' (wait4 ru_maxrss) or 'proc' (sampled VmHWM). */
  source: 'gnu-time' | 'proc';
  rssSeries: RssSample[];
  /** CPU by thread of the measured process (with RunOptions.threads). */
  threads?: ThreadGroups;
  stdout: string;
  stderrTail: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  sampleEveryMs?: number;
  timeoutMs?: number;
  /** Called with each sample (e.g. to print progress). */
  onSample?: (s: RssSample) => void;
  /** Called with each chunk the command writes to stderr. */
  onStderr?: (chunk: string) => void;
  /** Sample the measured process's threads' CPU with each RSS sample. */
  threads?: boolean;
}

let gnuTime: boolean | undefined;
export function hasGnuTime(): boolean {
  gnuTime ??= existsSync(GNU_TIME) && spawnSync(GNU_TIME, ['-f', '%M', 'true'], { stdio: 'ignore' }).status === 0;
  return gnuTime;
}

interface ProcStat { ppid: number; cpuTicks: number }

function procStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime: fields 14–17 of stat(5), i.e. 11–14 after the command name.
    return { ppid: Number(f[1]), cpuTicks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined;
  }
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Every live descendant of `root` (not root itself). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = procStat(Number(name));
    if (!s) continue;
    const list = children.get(s.ppid) ?? [];
    list.push(Number(name));
    children.set(s.ppid, list);
  }
  const out: number[] = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** CPU seconds a process has used so far, its waited-for children included. */
export function cpuSecondsOf(pid: number): number | undefined {
  const s = procStat(pid);
  return s ? s.cpuTicks / CLOCK_TICKS : undefined;
}

export interface MeasuredProcess {
  /** The measured command's pid (under GNU time, time's child; undefined until it has started). */
  readonly pid: () => number | undefined;
  /** Sends a signal to the measured command (not to GNU time, which would orphan it). */
  signal(sig: NodeJS.Signals): void;
  readonly done: Promise<Measured>;
}

export function runMeasured(cmd: string, args: string[], opts: RunOptions = {}): Promise<Measured> {
  return startMeasured(cmd, args, opts).done;
}

export function startMeasured(cmd: string, args: string[], opts: RunOptions = {}): MeasuredProcess {
  const useTime = hasGnuTime();
  const dir = mkdtempSync(join(tmpdir(), 'crawlstream-bench-time-'));
  const timeFile = join(dir, 'time.txt');
  const argv = useTime ? ['-f', '%e %U %S %M', '-o', timeFile, cmd, ...args] : args;
  const child = spawn(useTime ? GNU_TIME : cmd, argv, { env: opts.env ?? process.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const started = performance.now();
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    opts.onStderr?.(d.toString());
    stderr = (stderr + d.toString()).slice(-16_384);
  });
  const series: RssSample[] = [];
  let peakHwmKb = 0;
  let lastCpu = 0;
  let threads: ThreadSampler | undefined;
  const sample = () => {
    // Under GNU time the measured command is time's child; without it, the spawned process itself.
    const tree = useTime ? descendants(child.pid!) : [child.pid!, ...descendants(child.pid!)];
    if (tree.length === 0) return;
    if (opts.threads) (threads ??= new ThreadSampler(tree[0])).sample();
    const rssKb = tree.reduce((n, p) => n + statusKb(p, 'VmRSS'), 0);
    peakHwmKb = Math.max(peakHwmKb, statusKb(tree[0], 'VmHWM'), rssKb);
    if (!useTime) lastCpu = Math.max(lastCpu, tree.reduce((n, p) => n + (procStat(p)?.cpuTicks ?? 0), 0) / CLOCK_TICKS);
    const s = { t: round((performance.now() - started) / 1000, 1), rssMb: round(rssKb / 1024, 1) };
    if (s.rssMb > 0) {
      series.push(s);
      opts.onSample?.(s);
    }
  };
  const timer = setInterval(sample, opts.sampleEveryMs ?? 1000);
  const pid = () => (useTime ? descendants(child.pid!)[0] : child.pid);
  const signal = (sig: NodeJS.Signals) => {
    const target = pid();
    if (target !== undefined) {
      try {
        process.kill(target, sig);
      } catch {
        // already gone
      }
    }
  };
  const killer = opts.timeoutMs ? setTimeout(() => signal('SIGTERM'), opts.timeoutMs) : undefined;
  const done = new Promise<Measured>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearInterval(timer);
      if (killer) clearTimeout(killer);
      const wall = (performance.now() - started) / 1000;
      let user = 0;
      let sys = 0;
      let peakKb = peakHwmKb;
      let exitCode = code;
      if (useTime) {
        const lines = existsSync(timeFile) ? readFileSync(timeFile, 'utf8').trim().split('\n') : [];
        const last = lines.at(-1)?.split(' ').map(Number) ?? [];
        // GNU time prints "Command exited with non-zero status N" before the format line.
        const status = lines.find((l) => l.startsWith('Command exited with non-zero status'));
        if (status) exitCode = Number(status.split(' ').at(-1));
        if (last.length === 4 && last.every(Number.isFinite)) [, user, sys, peakKb] = last;
      } else {
        user = lastCpu;
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({
        exitCode,
        wallSeconds: round(wall, 2),
        userSeconds: round(user, 2),
        sysSeconds: round(sys, 2),
        cpuSeconds: round(user + sys, 2),
        peakRssMb: round(peakKb / 1024, 1),
        source: useTime ? 'gnu-time' : 'proc',
        rssSeries: series,
        ...(threads ? { threads: threads.groups() } : {}),
        stdout,
        stderrTail: stderr,
      });
    });
  });
  return { pid, signal, done };
}

export function round(n: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** CPU seconds all cores have spent busy since boot (everything but idle and iowait), from /proc/stat. */
export function systemBusySeconds(): number {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal
    return (f[0] + f[1] + f[2] + f[5] + f[6] + (f[7] ?? 0)) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/**
 * Waits (up to maxMs) until the machine has been nearly idle for 2 s, so a measured run does not start in
 * the middle of someone else's burst. Returns the cores busy in the last window.
 */
export async function waitQuiet(maxMs: number, busyCores = 0.3): Promise<number> {
  const deadline = Date.now() + maxMs;
  for (;;) {
    const b0 = systemBusySeconds();
    await new Promise((r) => setTimeout(r, 2000));
    const cores = (systemBusySeconds() - b0) / 2;
    if (cores <= busyCores || Date.now() >= deadline) return round(cores, 2);
  }
}
