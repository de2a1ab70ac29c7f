// Extracts text and links from PDFs in worker threads, so that a hostile file (huge, encrypted,
// malformed, a page-tree bomb, a stream that inflates to gigabytes) ends as an outcome with an error:
// never a crash of the crawler, never an unbounded wait or allocation. Bounds:
// - time: a worker still reading after timeoutMs is terminated (terminate() stops even a busy loop);
// - JS heap: resourceLimits make V8 stop the worker at maxMemoryMb;
// - buffers: decoded streams live in ArrayBuffers outside the JS heap, which resourceLimits do not
//   count, so a watchdog samples the process's resident memory while extractions run and terminates
//   the worker when it grew by more than maxMemoryMb since the extraction started. RSS is the only
//   measure a busy worker cannot hide from; with several threads, growth cannot be attributed to one
//   worker, so every extraction running during the growth is stopped. The watchdog samples every
//   20 ms, so a bomb overshoots the bound by what it inflates in that time;
// - pages: at most maxPages are read; text: at most maxTextBytes UTF-8 bytes; links: at most maxLinks.
// A worker that died, timed out or was stopped is replaced when the next extraction needs it.
import { Worker } from 'node:worker_threads';
import type { ExtractEvent, ExtractLimits } from './pdf-extract.js';
import { truncateUtf8 } from './truncate-utf8.js';

export interface PdfExtract {
  title: string;
  /** Visible text, pages separated by a blank line, at most maxTextBytes of UTF-8. */
  text: string;
  /** Absolute http(s) URLs of the link annotations, in page order, without duplicates. */
  links: string[];
  /** Links over maxLinks not kept: at least this many (a page read past the cap counts as one). */
  linksCut: number;
  /** Pages the document declares (0 when it could not be opened). */
  pages: number;
  /** Pages read; fewer than `pages` when maxPages or a time or memory bound stopped the reading. */
  pagesRead: number;
  textTruncated: boolean;
  /** '' or '<kind>: detail', kind one of too-large, encrypted, malformed, timeout, memory, worker-crashed, closed. */
  error: string;
  elapsedMs: number;
}

export interface PdfPoolOptions {
  threads?: number;
  timeoutMs?: number;
  maxMemoryMb?: number;
  maxPages?: number;
  maxTextBytes?: number;
  maxLinks?: number;
  /** Larger bodies are refused before any parsing. */
  maxBytes?: number;
}

export interface PdfPoolStats {
  extracted: number;
  failed: number;
  timeouts: number;
  memoryStops: number;
  crashes: number;
  workersStarted: number;
}

interface Queued {
  bytes: Uint8Array;
  timeoutMs: number;
  url: string;
  startedAt: number;
  resolve: (r: PdfExtract) => void;
}

interface Running extends Queued {
  id: number;
  result: PdfExtract;
  textBytes: number;
  links: Set<string>;
  pageErrors: string[];
  warning?: string;
  baseRss: number;
  timer?: NodeJS.Timeout;
}

interface Slot {
  worker?: Worker;
  ready?: Promise<void>;
  job?: Running;
}

const WATCHDOG_MS = 20;
const MB = 1024 * 1024;

export class PdfPool {
  readonly stats: PdfPoolStats = { extracted: 0, failed: 0, timeouts: 0, memoryStops: 0, crashes: 0, workersStarted: 0 };
  private readonly opts: Required<PdfPoolOptions>;
  private readonly slots: Slot[];
  private readonly queue: Queued[] = [];
  private watchdog?: NodeJS.Timeout;
  private nextId = 0;
  private closed = false;

  constructor(options: PdfPoolOptions = {}) {
    this.opts = {
      threads: 1,
      timeoutMs: 20_000,
      maxMemoryMb: 256,
      maxPages: 500,
      maxTextBytes: 100 * 1024,
      maxLinks: 5000,
      maxBytes: 64 * MB,
      ...options,
    };
    this.slots = Array.from({ length: Math.max(1, this.opts.threads) }, () => ({}));
  }

  /**
   * Never rejects: every failure is an outcome with `error` set. The time bound counts from the moment a
   * worker has the PDF (not from the start-up of a replacement worker); `timeoutMs` overrides the pool's.
   */
  extract(bytes: Uint8Array, url: string, options: { timeoutMs?: number } = {}): Promise<PdfExtract> {
    const startedAt = performance.now();
    const refuse = (error: string) => Promise.resolve({ ...emptyResult(), error, elapsedMs: 0 });
    if (this.closed) return refuse('closed: the PDF pool is closed');
    if (bytes.byteLength > this.opts.maxBytes) {
      this.stats.failed++;
      return refuse(`too-large: ${bytes.byteLength} bytes, over the ${this.opts.maxBytes}-byte bound`);
    }
    return new Promise((resolve) => {
      this.queue.push({ bytes, url, startedAt, resolve, timeoutMs: options.timeoutMs ?? this.opts.timeoutMs });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const q of this.queue.splice(0)) q.resolve({ ...emptyResult(), error: 'closed: the PDF pool closed before this PDF was read', elapsedMs: 0 });
    await Promise.all(this.slots.map((slot) => this.stop(slot, 'closed: the PDF pool closed while this PDF was read')));
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.job || this.queue.length === 0) continue;
      void this.start(slot, this.queue.shift()!);
    }
  }

  private async start(slot: Slot, queued: Queued): Promise<void> {
    const job: Running = { ...queued, id: this.nextId++, result: emptyResult(), textBytes: 0, links: new Set(), pageErrors: [], baseRss: 0 };
    slot.job = job;
    if (!slot.worker) this.spawn(slot);
    try {
      await slot.ready;
    } catch {
      return; // the worker died starting up; its error handler already finished the job
    }
    if (slot.job !== job) return;
    // The bounds count from the moment the worker has the PDF, not from pdf.js's start-up.
    job.baseRss = process.memoryUsage.rss();
    job.timer = setTimeout(() => {
      this.stats.timeouts++;
      void this.stop(slot, `timeout: still reading after ${job.timeoutMs} ms (${job.result.pagesRead} of ${job.result.pages} pages read)`);
    }, job.timeoutMs);
    this.watchdog ??= setInterval(() => this.checkMemory(), WATCHDOG_MS).unref();
    const limits: ExtractLimits = { maxPages: this.opts.maxPages, maxTextBytes: this.opts.maxTextBytes, maxLinks: this.opts.maxLinks };
    // A view (a pooled Buffer, a slice) would be cloned with its whole underlying ArrayBuffer: copy
    // just the bytes once and hand the copy over; the caller's bytes stay untouched.
    const copy = new Uint8Array(job.bytes);
    slot.worker!.postMessage({ id: job.id, bytes: copy, url: job.url, limits }, [copy.buffer]);
  }

  private spawn(slot: Slot): void {
    const worker = new Worker(new URL('./pdf-worker.js', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: this.opts.maxMemoryMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    });
    this.stats.workersStarted++;
    let ready!: () => void;
    let failed!: (e: Error) => void;
    slot.worker = worker;
    slot.ready = new Promise<void>((res, rej) => ((ready = res), (failed = rej)));
    slot.ready.catch(() => {});
    const current = () => slot.worker === worker;
    worker.on('message', (m: { ready?: true; id?: number; event?: ExtractEvent; done?: true; error?: string }) => {
      if (!current()) return;
      if (m.ready) return ready();
      const job = slot.job;
      if (!job || job.id !== m.id) return;
      if (m.event) this.apply(job, m.event);
      if (m.done) this.finish(slot, m.error ?? '');
    });
    const crashed = (error: string) => {
      if (!current()) return;
      this.stats.crashes++;
      slot.worker = undefined;
      failed(new Error(error));
      void worker.terminate();
      if (slot.job) this.finish(slot, error);
    };
    worker.on('error', (err: Error & { code?: string }) =>
      crashed(err.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? `memory: the reader's JS heap reached its ${this.opts.maxMemoryMb} MB bound`
        : `worker-crashed: ${err.message}`));
    worker.on('exit', (code) => crashed(`worker-crashed: the reader exited with code ${code}`));
  }

  private apply(job: Running, event: ExtractEvent): void {
    const r = job.result;
    if (event.type === 'meta') {
      r.title = event.title;
      r.pages = event.pages;
      job.warning = event.warning;
      return;
    }
    r.pagesRead++;
    if (event.type === 'page-error') {
      job.pageErrors.push(`page ${event.page}: ${event.error}`);
      return;
    }
    if (event.text && !r.textTruncated) {
      const piece = truncateUtf8((r.text ? '\n\n' : '') + event.text, this.opts.maxTextBytes - job.textBytes);
      r.text += piece.text;
      job.textBytes += Buffer.byteLength(piece.text);
      r.textTruncated = piece.truncated;
    }
    for (const link of event.links) {
      if (job.links.size < this.opts.maxLinks) job.links.add(link);
      else if (!job.links.has(link)) r.linksCut++;
    }
    if (event.linksUnread) r.linksCut++;
  }

  private finish(slot: Slot, fatal: string): void {
    const job = slot.job;
    if (!job) return;
    slot.job = undefined;
    clearTimeout(job.timer);
    const r = job.result;
    r.links = [...job.links];
    r.error = fatal
      || (job.pageErrors.length ? `malformed: ${job.pageErrors.length} of ${r.pagesRead} pages unreadable, first ${job.pageErrors[0]}` : '')
      || (job.warning ? `malformed: ${job.warning}` : '');
    r.elapsedMs = Math.round(performance.now() - job.startedAt);
    if (r.error) this.stats.failed++;
    else this.stats.extracted++;
    job.resolve(r);
    if (this.slots.every((s) => !s.job) && this.watchdog) {
      clearInterval(this.watchdog);
      this.watchdog = undefined;
    }
    if (!this.closed) this.pump();
  }

  private checkMemory(): void {
    const rss = process.memoryUsage.rss();
    for (const slot of this.slots) {
      const job = slot.job;
      if (!job?.timer || rss - job.baseRss <= this.opts.maxMemoryMb * MB) continue;
      this.stats.memoryStops++;
      void this.stop(slot, `memory: process memory grew by ${Math.round((rss - job.baseRss) / MB)} MB while reading, over the ${this.opts.maxMemoryMb} MB bound`);
    }
  }

  /** Terminates the slot's worker (a replacement is spawned when a job needs it) and ends its job. */
  private async stop(slot: Slot, error: string): Promise<void> {
    const worker = slot.worker;
    slot.worker = undefined;
    if (slot.job) this.finish(slot, error);
    if (worker) await worker.terminate();
  }
}

function emptyResult(): PdfExtract {
  return { title: '', text: '', links: [], linksCut: 0, pages: 0, pagesRead: 0, textTruncated: false, error: '', elapsedMs: 0 };
}
