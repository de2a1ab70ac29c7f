// CPU by thread of a running process, from /proc/<pid>/task/*/stat, sampled while it runs (a thread's
// last sample counts, so CPU a thread spent after the last sample, or in a thread that lived less than a
// sampling period, is not attributed: the report shows that remainder against the exact wait4 total).
// Node 20 names all its own threads "node" (main, V8 platform workers, libuv's pool, worker_threads);
// the parse pool's workers rename themselves "parse-worker" (parsing/parse-worker.ts); chdb's threads
// carry ClickHouse's names (ThreadPool, BgSchPool, …).
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS = 100;
/** parsing/parse-worker.ts's PARSE_THREAD_NAME (not imported: that module starts a worker's loop). */
const PARSE_THREAD = 'parse-worker';

export interface ThreadCpu {
  tid: number;
  name: string;
  cpuSeconds: number;
}

export interface ThreadGroups {
  pid: number;
  /** The main JavaScript thread (tid = pid). */
  mainThread: number;
  /** The parse pool's worker threads (named "parse-worker"). */
  parseWorkers: number;
  /** Other threads named "node": libuv's pool (LZ4/zlib, LevelDB, fs), V8's platform workers (GC, compilation), other worker_threads. */
  otherNodeThreads: number;
  /** Threads of the embedded ClickHouse (chdb) and anything else not named "node". */
  chdbAndNative: number;
  /** The busiest threads, for telling the parse workers apart from the rest. */
  top: ThreadCpu[];
}

export class ThreadSampler {
  private readonly seen = new Map<number, ThreadCpu>();

  constructor(private readonly pid: number) {}

  sample(): void {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${this.pid}/task`);
    } catch {
      return; // the process has exited
    }
    for (const t of tids) {
      try {
        const text = readFileSync(`/proc/${this.pid}/task/${t}/stat`, 'utf8');
        const close = text.lastIndexOf(')');
        const name = text.slice(text.indexOf('(') + 1, close);
        const f = text.slice(close + 2).split(' ');
        const cpuSeconds = (Number(f[11]) + Number(f[12])) / CLOCK_TICKS;
        this.seen.set(Number(t), { tid: Number(t), name, cpuSeconds });
      } catch {
        // the thread ended between readdir and read
      }
    }
  }

  groups(top = 6): ThreadGroups {
    const all = [...this.seen.values()];
    const sum = (list: ThreadCpu[]) => Math.round(list.reduce((n, t) => n + t.cpuSeconds, 0) * 100) / 100;
    return {
      pid: this.pid,
      mainThread: sum(all.filter((t) => t.tid === this.pid)),
      parseWorkers: sum(all.filter((t) => t.name === PARSE_THREAD)),
      otherNodeThreads: sum(all.filter((t) => t.tid !== this.pid && t.name === 'node')),
      chdbAndNative: sum(all.filter((t) => t.name !== 'node' && t.name !== PARSE_THREAD)),
      top: all.sort((a, b) => b.cpuSeconds - a.cpuSeconds).slice(0, top),
    };
  }
}

/** Several processes' thread groups added up (two Kafka workers): the busiest threads of all, the first pid. */
export function sumThreadGroups(groups: readonly ThreadGroups[], top = 6): ThreadGroups | undefined {
  if (groups.length === 0) return undefined;
  const add = (k: 'mainThread' | 'parseWorkers' | 'otherNodeThreads' | 'chdbAndNative') => Math.round(groups.reduce((n, g) => n + g[k], 0) * 100) / 100;
  return {
    pid: groups[0].pid, mainThread: add('mainThread'), parseWorkers: add('parseWorkers'), otherNodeThreads: add('otherNodeThreads'),
    chdbAndNative: add('chdbAndNative'),
    top: groups.flatMap((g) => g.top.map((t) => (t.tid === g.pid ? { ...t, name: 'main' } : t))).sort((a, b) => b.cpuSeconds - a.cpuSeconds).slice(0, top),
  };
}
