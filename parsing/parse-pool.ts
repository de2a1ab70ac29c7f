// A pool of worker threads for parsing, shared by the parse tasks of a process. On a 2-core machine
// one worker takes parsing off the event loop that runs fetching, scheduling and commits.
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import type { BodyAnalysis, BodyInput } from './analyze-body.js';
import type { FocusSpec } from '../focus/focus-spec.js';

interface Pending {
  resolve: (a: BodyAnalysis) => void;
  reject: (e: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  busy: number;
  ready: Promise<void>;
}

export class ParsePool {
  private readonly workers: PoolWorker[] = [];
  private readonly pending = new Map<number, Pending & { worker: PoolWorker }>();
  private nextId = 0;
  private closed = false;

  constructor(
    size = Math.max(1, availableParallelism() - 1),
    private readonly parserModule?: string,
    /** A focused crawl: each worker builds its own scorer from these examples. */
    private readonly focus?: FocusSpec,
  ) {
    for (let i = 0; i < size; i++) this.workers.push(this.spawn());
  }

  analyze(input: BodyInput): Promise<BodyAnalysis> {
    if (this.closed) return Promise.reject(new Error('the parse pool is closed'));
    let w = this.workers[0];
    for (const c of this.workers) if (c.busy < w.busy) w = c;
    const id = this.nextId++;
    w.busy++;
    const { message, transfer } = parseRequest(id, input);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker: w });
      w.worker.postMessage(message, transfer);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }

  private spawn(): PoolWorker {
    const worker = new Worker(new URL('./parse-worker.js', import.meta.url), { workerData: { parserModule: this.parserModule, focus: this.focus } });
    let markReady!: () => void;
    const entry: PoolWorker = { worker, busy: 0, ready: new Promise((r) => (markReady = r)) };
    worker.on('message', (m: { ready?: boolean; id?: number; result?: BodyAnalysis; error?: string }) => {
      if (m.ready) return markReady();
      const p = this.pending.get(m.id!);
      if (!p) return;
      this.pending.delete(m.id!);
      entry.busy--;
      if (m.error) p.reject(new Error(m.error));
      else p.resolve(m.result!);
    });
    worker.on('error', (err) => this.failWorker(entry, err));
    worker.on('exit', (code) => {
      if (!this.closed) this.failWorker(entry, new Error(`parse worker exited with code ${code}`));
    });
    return entry;
  }

  /** A worker that died fails its pages (the caller parses them inline) and is replaced. */
  private failWorker(entry: PoolWorker, err: Error): void {
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
