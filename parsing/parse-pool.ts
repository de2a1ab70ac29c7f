// A pool of worker threads for parsing, shared by the parse tasks of a process. On a 2-core machine
// one worker takes parsing off the event loop that runs fetching, scheduling and commits.
//
// Each page's parse is bounded in time (`timeoutMs`, --module-timeout): a page that keeps its worker
// past it (a parser module that loops, a page our parser chokes on) is failed with a ParseTimeoutError,
// the worker is terminated and replaced, and the pages queued behind it go to the new worker. A
// worker works through its pages in order, so the page at the head of its queue is the one running.
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import type { BodyAnalysis, BodyInput } from './analyze-body.js';
import type { FocusSpec } from '../focus/focus-spec.js';

export const DEFAULT_PARSE_TIMEOUT_MS = 30_000;

export class ParseTimeoutError extends Error {
  override name = 'ParseTimeoutError';
}

interface Pending {
  input: BodyInput;
  resolve: (a: BodyAnalysis) => void;
  reject: (e: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  /** Pages posted to it, oldest (the one being parsed) first. */
  queue: number[];
  timer?: NodeJS.Timeout;
  ready: Promise<void>;
}

/** Parse workers for a process alone on `cores` cores: one for every core but one (the event loop's), at least one. */
export function parseWorkersFor(cores: number): number {
  return Math.max(1, cores - 1);
}

export class ParsePool {
  private readonly workers: PoolWorker[] = [];
  private readonly pending = new Map<number, Pending & { worker: PoolWorker }>();
  private nextId = 0;
  private closed = false;
  private readonly timeoutMs: number;
  /** Workers replaced because a page overran its bound. */
  replaced = 0;

  constructor(
    size = parseWorkersFor(availableParallelism()),
    private readonly parserModule?: string,
    /** A focused crawl: each worker builds its own scorer from these examples. */
    private readonly focus?: FocusSpec,
    opts: { timeoutMs?: number } = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_PARSE_TIMEOUT_MS;
    for (let i = 0; i < size; i++) this.workers.push(this.spawn());
  }

  analyze(input: BodyInput): Promise<BodyAnalysis> {
    if (this.closed) return Promise.reject(new Error('the parse pool is closed'));
    return new Promise((resolve, reject) => this.post(this.nextId++, { input, resolve, reject }));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.workers) clearTimeout(w.timer);
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }

  private post(id: number, p: Pending): void {
    let w = this.workers[0];
    for (const c of this.workers) if (c.queue.length < w.queue.length) w = c;
    this.pending.set(id, { ...p, worker: w });
    w.queue.push(id);
    const { message, transfer } = parseRequest(id, p.input);
    w.worker.postMessage(message, transfer);
    if (w.queue.length === 1) this.arm(w);
  }

  /** The page at the head of the worker's queue gets its bound from now (or from when a new worker is ready). */
  private arm(w: PoolWorker): void {
    clearTimeout(w.timer);
    const head = w.queue[0];
    if (head === undefined || this.closed) return;
    void w.ready.then(() => {
      if (w.queue[0] !== head || this.closed) return;
      clearTimeout(w.timer);
      w.timer = setTimeout(() => this.overran(w, head), this.timeoutMs);
    });
  }

  private spawn(): PoolWorker {
    const worker = new Worker(new URL('./parse-worker.js', import.meta.url), { workerData: { parserModule: this.parserModule, focus: this.focus } });
    let markReady!: () => void;
    const entry: PoolWorker = { worker, queue: [], ready: new Promise((r) => (markReady = r)) };
    worker.on('message', (m: { ready?: boolean; id?: number; result?: BodyAnalysis; error?: string }) => {
      if (m.ready) return markReady();
      const p = this.pending.get(m.id!);
      if (!p) return;
      this.pending.delete(m.id!);
      const at = entry.queue.indexOf(m.id!);
      if (at >= 0) entry.queue.splice(at, 1);
      if (at === 0) this.arm(entry);
      if (m.error) p.reject(new Error(m.error));
      else p.resolve(m.result!);
    });
    worker.on('error', (err) => this.failWorker(entry, err));
    worker.on('exit', (code) => {
      if (!this.closed && this.workers.includes(entry)) this.failWorker(entry, new Error(`parse worker exited with code ${code}`));
    });
    return entry;
  }

  /** The page at the head has held its worker too long: it fails, the worker is replaced, the rest move on. */
  private overran(entry: PoolWorker, id: number): void {
    if (this.closed || entry.queue[0] !== id) return;
    const i = this.workers.indexOf(entry);
    if (i < 0) return;
    this.replaced++;
    const fresh = this.spawn();
    this.workers[i] = fresh;
    void entry.worker.terminate();
    const [head, ...rest] = entry.queue;
    const p = this.pending.get(head)!;
    this.pending.delete(head);
    p.reject(new ParseTimeoutError(`the parse did not finish within ${this.timeoutMs / 1000} s (--module-timeout); its worker thread was replaced`));
    for (const id of rest) {
      const waiting = this.pending.get(id)!;
      this.pending.delete(id);
      this.post(id, waiting);
    }
  }

  /** A worker that died fails its pages (the caller parses them inline) and is replaced. */
  private failWorker(entry: PoolWorker, err: Error): void {
    clearTimeout(entry.timer);
    for (const [id, p] of this.pending) {
      if (p.worker !== entry) continue;
      this.pending.delete(id);
      p.reject(err);
    }
    const i = this.workers.indexOf(entry);
    if (i >= 0 && !this.closed) this.workers[i] = this.spawn();
  }
}

/**
 * The message that carries a page to a worker, and what it transfers. Structured clone copies the
 * whole ArrayBuffer behind a view, and a fetched body is usually a slice of a larger one (a
 * consumed batch, a pooled slab): it would drag megabytes along. The body is copied once into a
 * buffer of its own size, which is transferred (moved, not copied again); the caller's bytes are
 * untouched. The result comes back in one message: strings, links and an 8-byte simhash.
 */
export function parseRequest(id: number, input: BodyInput): { message: { id: number; input: BodyInput }; transfer: ArrayBuffer[] } {
  const body = new Uint8Array(input.body.byteLength);
  body.set(input.body);
  return { message: { id, input: { ...input, body } }, transfer: [body.buffer] };
}
