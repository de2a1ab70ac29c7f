// node --import ./dist/bench/mem-probe.js bin/crawlstream crawl …, with CRAWLSTREAM_MEM_PROBE=FILE: what a
// process's resident memory is made of, sampled while it runs, one JSON line per sample appended to FILE.
// A `%p` in FILE becomes the process id, so that every process of a run (Kafka workers started with
// NODE_OPTIONS=--import …) keeps its own file.
// The main thread reads /proc/self/smaps (resident bytes by mapping: chdb's library, Node's binary, other
// libraries, the malloc heap, anonymous memory) and its own V8 heap; every worker thread (the flag is
// inherited) reports its V8 heap over a BroadcastChannel. Anonymous memory minus every V8 heap is what
// native code holds (chdb's working memory, LevelDB, glibc's arenas, thread stacks, Buffers).
import { appendFileSync, readFileSync } from 'node:fs';
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';
import { getHeapStatistics } from 'node:v8';

const FILE = process.env.CRAWLSTREAM_MEM_PROBE?.replaceAll('%p', String(process.pid));
const EVERY_MS = Number(process.env.CRAWLSTREAM_MEM_PROBE_MS ?? 1000);
const CHANNEL = 'crawlstream-mem-probe';
const MB = 1024 * 1024;

export interface HeapOf {
  /** V8's committed heap pages that are resident (total_physical_size), MB. */
  physicalMb: number;
  /** Live and not yet collected objects (used_heap_size), MB. */
  usedMb: number;
  /** Memory V8 accounts outside its heap for this isolate (Buffers, ArrayBuffers), MB. */
  externalMb: number;
}

export interface MemSample {
  /** Seconds since the probe started. */
  t: number;
  rssMb: number;
  /** Resident MB by mapping kind (smaps). */
  maps: Record<string, number>;
  /** The main thread's V8 heap, and each worker's (by threadId) as last reported. */
  heaps: Record<string, HeapOf & { name?: string }>;
  /** Anonymous memory (heap + anon maps) not accounted by any V8 heap: native allocations and stacks, MB. */
  nativeAnonMb: number;
}

function heapOf(): HeapOf {
  const h = getHeapStatistics();
  return { physicalMb: round(h.total_physical_size / MB), usedMb: round(h.used_heap_size / MB), externalMb: round(h.external_memory / MB) };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

/** Resident kB by mapping kind, from /proc/self/smaps. */
export function smapsByKind(text: string): Record<string, number> {
  const kb: Record<string, number> = {};
  let kind = 'anon';
  for (const line of text.split('\n')) {
    // Mapping headers start with an address range "7f…-7f… rw-p …"; fields with a name and a colon.
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) {
      const path = line.split(/\s+/).slice(5).join(' ');
      kind = !path ? 'anon'
        : path.includes('libchdb') ? 'libchdb'
          : path === '[heap]' ? 'malloc-heap'
            : path.startsWith('[stack') ? 'stack'
              : path.startsWith('[') ? 'other-special'
                : /\/node$/.test(path) ? 'node-binary'
                  : /\.so(\.|$)|\.node$/.test(path) ? 'other-libraries'
                    : 'other-files';
    } else if (line.startsWith('Rss:')) {
      kb[kind] = (kb[kind] ?? 0) + Number(line.slice(4).trim().split(/\s+/)[0]);
    }
  }
  return kb;
}

function start(): void {
  const channel = new BroadcastChannel(CHANNEL);
  channel.unref();
  if (!isMainThread) {
    let name: string | undefined;
    try {
      name = readFileSync('/proc/thread-self/comm', 'utf8').trim();
    } catch {
      // not Linux
    }
    const timer = setInterval(() => {
      try {
        name = readFileSync('/proc/thread-self/comm', 'utf8').trim();
      } catch {
        // keep the last name
      }
      channel.postMessage({ threadId, name, heap: heapOf() });
    }, EVERY_MS);
    timer.unref();
    return;
  }
  const workers = new Map<number, HeapOf & { name?: string; at: number }>();
  channel.onmessage = (e) => {
    const m = (e as MessageEvent).data as { threadId: number; name?: string; heap: HeapOf };
    workers.set(m.threadId, { ...m.heap, name: m.name, at: Date.now() });
  };
  const started = performance.now();
  const sample = () => {
    const kinds = smapsByKind(readFileSync('/proc/self/smaps', 'utf8'));
    const maps: Record<string, number> = {};
    for (const [k, v] of Object.entries(kinds)) maps[k] = round(v / 1024);
    const rssMb = round(Object.values(kinds).reduce((a, b) => a + b, 0) / 1024);
    const heaps: MemSample['heaps'] = { main: heapOf() };
    const now = Date.now();
    for (const [id, h] of workers) if (now - h.at < 3 * EVERY_MS) heaps[`worker-${id}`] = { physicalMb: h.physicalMb, usedMb: h.usedMb, externalMb: h.externalMb, name: h.name };
    const v8Mb = Object.values(heaps).reduce((n, h) => n + h.physicalMb, 0);
    const s: MemSample = { t: round((performance.now() - started) / 1000), rssMb, maps, heaps, nativeAnonMb: round((maps.anon ?? 0) + (maps['malloc-heap'] ?? 0) - v8Mb) };
    appendFileSync(FILE!, JSON.stringify(s) + '\n');
  };
  // Reading /proc/self/smaps costs the main thread more as mappings pile up (~40 ms a read late in a
  // 100,000-page crawl: 4 % of the thread it measures, and of its pages/s), so the probe waits at
  // least 100 times its last sample's cost: it never takes more than 1 % of the crawl it watches.
  const next = () => {
    const t0 = performance.now();
    sample();
    setTimeout(next, Math.max(EVERY_MS, 100 * (performance.now() - t0))).unref();
  };
  setTimeout(next, EVERY_MS).unref();
}

if (FILE) start();
