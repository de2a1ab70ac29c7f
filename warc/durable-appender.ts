// One source partition's captures, appended through a WarcWriter and made durable in groups: each
// append resolves only once its capture is written and fsynced, so a caller that commits positions
// on resolution never commits a capture a crash could lose. Appends wait while an fsync runs and go
// to disk together with the next one (one fsync per batch, not per capture).
//
// A failed write or fsync (a full disk, an I/O error) loses nothing: after a backoff the writer cuts
// its file back to the last whole capture and goes on in the same file (one file, not one per
// retry), and the batch is written again, skipping what is already there (counted as written when
// an earlier attempt of the same append put it there). Only a capture that cannot be written at all (a
// CaptureError) rejects its append.
import { CaptureError, type WarcCapture } from './capture.js';
import type { WarcWriter, WriteResult } from './warc-writer.js';

export interface DurableAppenderOptions {
  /** Opens (and recovers) the writer; called again after a failure. */
  open: () => Promise<WarcWriter>;
  logger: { info(message: string): void; warn(message: string): void };
  /** Backoff between reopening attempts after a failure (default 500 ms doubling up to 30 s). */
  retryMs?: { first: number; max: number };
  /** Told when a batch starts and ends, fails and works again (a stop says why captures were left). */
  trouble?: { begin(): () => void; failed(message: string): void; working(): void };
}

interface Pending {
  /** Built when its turn comes, so that waiting captures hold their compressed form only. */
  capture: () => Promise<WarcCapture>;
  offset: number;
  resolve: (r: WriteResult) => void;
  reject: (err: Error) => void;
  /** Written by an attempt that failed later in its batch: when the retry finds it on disk, it was this one's. */
  wrote?: WriteResult;
}

/**
 * Captures per fsync at most: larger batches fsync less often, but every capture of a batch waits for
 * the whole batch, so commits (and a replay's progress) would come in long steps.
 */
const MAX_BATCH = 256;

export class AppenderStoppedError extends Error {
  override name = 'AppenderStoppedError';
}

export class DurableAppender {
  private writer: WarcWriter | undefined;
  private queue: Pending[] = [];
  private running: Promise<void> | undefined;
  private stopped = false;
  private failures = 0;
  private wake: (() => void) | undefined;
  private readonly retry: { first: number; max: number };

  private constructor(private readonly o: DurableAppenderOptions, writer: WarcWriter) {
    this.writer = writer;
    this.retry = o.retryMs ?? { first: 500, max: 30_000 };
  }

  /** Opens the writer now: a directory that cannot be recovered fails the caller's start, loudly. */
  static async open(o: DurableAppenderOptions): Promise<DurableAppender> {
    return new DurableAppender(o, await o.open());
  }

  /** Captures waiting or being written. */
  get pending(): number {
    return this.queue.length;
  }

  /**
   * Appends the capture of source offset `offset` (offsets must come in increasing order; one already
   * on disk is skipped and resolves with written: false). Resolves once durable.
   * @returns rejects with a CaptureError for an unwritable capture, or AppenderStoppedError after abort()
   */
  append(capture: () => Promise<WarcCapture>, offset: number): Promise<WriteResult> {
    if (this.stopped) return Promise.reject(new AppenderStoppedError('the WARC appender was stopped'));
    return new Promise((resolve, reject) => {
      this.queue.push({ capture, offset, resolve, reject });
      this.pump();
    });
  }

  /** Stops at once: waiting appends reject (their records stay unfinished for the next owner). */
  abort(): void {
    this.stopped = true;
    const waiting = this.queue.splice(0);
    for (const p of waiting) p.reject(new AppenderStoppedError('the WARC appender was stopped'));
    this.wake?.();
  }

  /** Writes what is waiting (unless aborted), then closes the current file. */
  async close(): Promise<void> {
    while (this.running) await this.running;
    const w = this.writer;
    this.writer = undefined;
    this.stopped = true;
    if (!w) return;
    // Stopped while waiting to retry (a full disk): its next open recovers the file, as after a crash.
    if (w.failed) return void (await w.discard());
    try {
      await w.close();
    } catch (err) {
      this.o.logger.warn(`warc: closing the writer failed (${(err as Error).message}); its file is recovered at the next open`);
      await w.discard();
    }
  }

  private pump(): void {
    if (this.running) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.queue.length && !this.stopped) this.pump();
    });
  }

  private async run(): Promise<void> {
    while (this.queue.length && !this.stopped) {
      const batch = this.queue.splice(0, MAX_BATCH);
      const results: (WriteResult | CaptureError)[] = [];
      const ended = this.o.trouble?.begin();
      try {
        const w = this.writer ?? (this.writer = await this.o.open());
        // One at a time: the writer needs offsets in order, and one decoded body at a time is held.
        for (const p of batch) results.push(await this.writeOne(w, p));
        await w.flush();
      } catch (err) {
        ended?.();
        this.o.trouble?.failed((err as Error).message);
        await this.failed(err as Error, batch);
        continue;
      }
      ended?.();
      this.o.trouble?.working();
      if (this.failures) this.o.logger.info(`warc: writing works again after ${this.failures} failed attempt(s)`);
      this.failures = 0;
      batch.forEach((p, i) => {
        const r = results[i];
        if (r instanceof CaptureError) p.reject(r);
        else p.resolve(r);
      });
    }
  }

  private async writeOne(w: WarcWriter, p: Pending): Promise<WriteResult | CaptureError> {
    // On disk already: not even built; written by an earlier attempt of this very append, it counts as written.
    if (p.offset <= w.lastSourceOffset) return p.wrote ?? { written: false };
    let capture: WarcCapture;
    try {
      capture = await p.capture();
    } catch (err) {
      if (err instanceof CaptureError) return err;
      throw err;
    }
    try {
      const written = await w.write(capture, p.offset);
      if (written.written) p.wrote = written;
      return written;
    } catch (err) {
      if (err instanceof CaptureError) return err;
      throw err;
    }
  }

  /**
   * The batch goes back in front, in order; after a backoff the writer goes on in the same file, cut
   * back to its last whole capture (or, when that fails, is reopened on a new file).
   */
  private async failed(err: Error, batch: Pending[]): Promise<void> {
    this.queue.unshift(...batch);
    this.failures++;
    const wait = Math.min(this.retry.first * 2 ** Math.min(this.failures - 1, 20), this.retry.max);
    this.o.logger.warn(`warc: writing failed (${err.message}); ${this.queue.length} capture(s) wait, none is lost: trying again in ${wait} ms (attempt ${this.failures})`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
    if (this.stopped) return this.abort(); // rejects what was put back
    const w = this.writer;
    try {
      await w?.resume();
    } catch (resumeErr) {
      this.o.logger.warn(`warc: cannot go on in ${w?.currentFile ?? 'the current file'} (${(resumeErr as Error).message}); a new file is begun`);
      this.writer = undefined;
      await w?.discard();
    }
  }
}
