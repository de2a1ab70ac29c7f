// The machine a benchmark ran on, so results from different machines are never compared blindly.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

export interface Machine {
  date: string;
  cpuModel: string;
  logicalCores: number;
  /** cgroup CPU quota in cores when the container is limited, else null. */
  cpuQuotaCores: number | null;
  ramGb: number;
  node: string;
  os: string;
  gitCommit: string;
  /** Uncommitted changes in the checkout when the benchmark ran (numbers may not match the commit). */
  gitDirty: boolean;
  loadAverageAtStart: number[];
  crawleeVersion: string | null;
  gnuTime: boolean;
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function git(root: string, args: string[]): string {
  const r = spawnSync('git', ['-C', root, ...args], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '';
}

export function describeMachine(root: string, gnuTime: boolean): Machine {
  const lscpu = spawnSync('lscpu', [], { encoding: 'utf8' }).stdout ?? '';
  const model = /^Model name:\s*(.+)$/m.exec(lscpu)?.[1] ?? /^model name\s*:\s*(.+)$/m.exec(read('/proc/cpuinfo'))?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
  const [quota, period] = read('/sys/fs/cgroup/cpu.max').trim().split(' ');
  const crawleePkg = join(root, 'bench/node_modules/@crawlee/cheerio/package.json');
  return {
    date: new Date().toISOString(),
    cpuModel: model.trim(),
    logicalCores: os.availableParallelism(),
    cpuQuotaCores: quota && quota !== 'max' ? Math.round((Number(quota) / Number(period)) * 100) / 100 : null,
    ramGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    gitCommit: git(root, ['rev-parse', 'HEAD']) || 'unknown',
    gitDirty: git(root, ['status', '--porcelain', '--untracked-files=no']) !== '',
    loadAverageAtStart: os.loadavg().map((l) => Math.round(l * 100) / 100),
    crawleeVersion: existsSync(crawleePkg) ? (JSON.parse(read(crawleePkg)) as { version: string }).version : null,
    gnuTime,
  };
}
