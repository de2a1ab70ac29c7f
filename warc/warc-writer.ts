// Appends captures of one source partition to rotating .warc.gz files, exactly once across crashes.
//
// How: every record names its source position (WARC-Crawlstream-Source: topic/partition@offset), and
// captures are appended in offset order, each capture (request + response) in one append. On open,
// the newest file is cut back to its last whole capture (recovery.ts) and that capture's offset is
// lastSourceOffset: the caller resumes from its committed position, and write() skips what is
// already on disk. The caller commits its position only after flush() (fsync) has returned.
//
// Names never collide: crawlstream-<writerId>-<UTC yyyyMMddHHmmssSSS>-<seq>.warc.gz, with seq counting
// up per writerId across restarts, and files created with O_EXCL. One writer per writerId at a time
// (the partition's owner); two live writers with one id would interleave their appends.
import { mkdir, open, readdir, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { CaptureError, type WarcCapture } from './capture.js';
import { captureRecords, warcinfoRecord, type WarcinfoFields } from './records.js';
import { recoverWarcFile, WarcDamagedError } from './recovery.js';

export interface WarcWriterOptions {
  dir: string;
  /** Unique among writers sharing `dir`: e.g. `fetched-3` or `worker2-fetched-3`. [A-Za-z0-9._-]+ */
  writerId: string;
  /** The partition whose records this writer stores, in offset order. */
  source: { topic: string; partition: number };
  /** A file is closed and a new one begun before it would pass this size (default 1 GB). */
  maxFileBytes?: number;
  /** Bodies longer than this are refused with a CaptureError (default 16 MiB; the fetcher caps at 10). */
  maxBodyBytes?: number;
  /** warcinfo fields: software and operator, and any others (e.g. robots, hostname, description). */
  software: string;
  operator: string;
  info?: Record<string, string>;
  logger?: { info(message: string): void; warn(message: string): void };
  /** Clock for file names and warcinfo dates (tests). */
  now?: () => number;
}

export interface WriteResult {
  /** false when sourceOffset was at or below lastSourceOffset: already in a file. */
  written: boolean;
  file?: string;
  type?: 'response' | 'revisit';
  /** The payload digest written (keep it to refer to this capture from a later revisit). */
  payloadDigest?: string;
}

export interface RecoveryReport {
  /** The newest file found on open, if any. */
  file?: string;
  /** Bytes cut from its end (a partly written capture). */
  cutBytes: number;
  /** Files removed because they held no whole record. */
  removedFiles: string[];
}

const PREFIX = 'crawlstream-';
const SUFFIX = '.warc.gz';

interface FileName {
  name: string;
  seq: number;
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:TZ.]/g, '');
}

function listOwn(names: string[], writerId: string): FileName[] {
  const own = new RegExp(`^\\d{17}-(\\d+)${SUFFIX.replace(/\./g, '\\.')}$`);
  const start = `${PREFIX}${writerId}-`;
  const out: FileName[] = [];
  for (const name of names) {
    if (!name.startsWith(start)) continue;
    const m = own.exec(name.slice(start.length));
    if (m) out.push({ name, seq: Number(m[1]) });
  }
  return out.sort((a, b) => a.seq - b.seq);
}

export class WarcWriter {
  private fh: FileHandle | undefined;
  private fileName: string | undefined;
  private size = 0;
  private warcinfoId = '';
  private seq: number;
  private capturesInFile = 0;
  private lastOffset: number;
  /** lastOffset when the current file was begun: what a file cut back to its warcinfo leaves. */
  private fileStartOffset = -1;
  private queue: Promise<unknown> = Promise.resolve();
  private broken: Error | undefined;
  private closed = false;
  private readonly maxFileBytes: number;
  private readonly maxBodyBytes: number;
  private readonly now: () => number;
  readonly stats = { captures: 0, skipped: 0, bytes: 0, filesOpened: 0, headersCleaned: 0 };

  private constructor(
    private readonly opts: WarcWriterOptions,
    lastOffset: number,
    seq: number,
    readonly recovery: RecoveryReport,
  ) {
    this.maxFileBytes = opts.maxFileBytes ?? 1_000_000_000;
    this.maxBodyBytes = opts.maxBodyBytes ?? 16 * 1024 * 1024;
    this.now = opts.now ?? Date.now;
    this.lastOffset = lastOffset;
    this.seq = seq;
  }

  /**
   * Recovers the newest file of this writer (cutting a partly written capture) and learns the last
   * source offset on disk. New captures go to a new file, so an old file is never appended to by a
   * writer that did not write its warcinfo.
   * @throws WarcDamagedError when the newest file is damaged beyond a partly written tail
   */
  static async open(opts: WarcWriterOptions): Promise<WarcWriter> {
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(String(opts.writerId))) throw new TypeError(`writerId must match [A-Za-z0-9._-]{1,100}, got '${opts.writerId}'`);
    if (!/^[A-Za-z0-9._-]+$/.test(String(opts.source?.topic)) || !Number.isInteger(opts.source?.partition) || opts.source.partition < 0) {
      throw new TypeError(`source must be { topic, partition } of a Kafka-style topic name and a partition number`);
    }
    for (const [name, v] of [['maxFileBytes', opts.maxFileBytes], ['maxBodyBytes', opts.maxBodyBytes]] as const) {
      if (v !== undefined && (!Number.isSafeInteger(v) || v <= 0)) throw new TypeError(`${name} must be a positive integer, got ${v}`);
    }
    if (!opts.software || !opts.operator) throw new TypeError('software and operator are required (they go into every warcinfo record)');
    await mkdir(opts.dir, { recursive: true });
    const files = listOwn(await readdir(opts.dir), opts.writerId);
    const recovery: RecoveryReport = { cutBytes: 0, removedFiles: [] };
    const seq = files.length ? files[files.length - 1].seq + 1 : 1;
    let lastOffset = -1;
    const maxBody = opts.maxBodyBytes ?? 16 * 1024 * 1024;
    // Newest first: a crash can only have damaged the newest file, and a file holding only its
    // warcinfo (a crash right after rotation) says nothing about offsets, so look one further back.
    for (let i = files.length - 1; i >= 0 && lastOffset < 0; i--) {
      const path = join(opts.dir, files[i].name);
      const r = await recoverWarcFile(path, maxBody);
      if (i === files.length - 1) {
        recovery.file = files[i].name;
        recovery.cutBytes = r.sizeBefore - r.size;
      } else if (r.sizeBefore !== r.size) {
        opts.logger?.warn(`warc: ${path} was not the newest file but ended in ${r.sizeBefore - r.size} bytes of a partial record; cut them`);
      }
      if (r.size === 0) {
        await rm(path);
        recovery.removedFiles.push(files[i].name);
        continue;
      }
      const src = r.last?.source;
      if (src && (src.topic !== opts.source.topic || src.partition !== opts.source.partition)) {
        throw new WarcDamagedError(`${path} holds records of ${src.topic}/${src.partition}, but writer ${opts.writerId} writes ${opts.source.topic}/${opts.source.partition}: writer ids must not be shared`);
      }
      if (src) lastOffset = src.offset;
    }
    if (recovery.cutBytes > 0 || recovery.removedFiles.length > 0) {
      opts.logger?.warn(`warc: writer ${opts.writerId} recovered after a crash: cut ${recovery.cutBytes} bytes of a partial capture from ${recovery.file}` +
        `${recovery.removedFiles.length ? `, removed ${recovery.removedFiles.join(', ')} (no whole record)` : ''}; last source offset ${lastOffset}`);
    }
    return new WarcWriter(opts, lastOffset, seq, recovery);
  }

  /** A write or flush failed: resume() (or discard()) before anything else. */
  get failed(): boolean {
    return this.broken !== undefined;
  }

  /** The highest source offset already in a file (-1 when none): skip records up to it. */
  get lastSourceOffset(): number {
    return this.lastOffset;
  }

  get currentFile(): string | undefined {
    return this.fileName;
  }

  /**
   * Appends one capture. Offsets must increase; one at or below lastSourceOffset is skipped and
   * reported as written: false. Not durable until flush().
   * @throws CaptureError for a capture that cannot be written (nothing is written); other errors
   *   leave the writer unusable (reopen it to recover).
   */
  write(capture: WarcCapture, sourceOffset: number): Promise<WriteResult> {
    return this.serial(async () => {
      if (!Number.isSafeInteger(sourceOffset) || sourceOffset < 0) throw new CaptureError(`sourceOffset must be a non-negative integer, got ${sourceOffset}`);
      if (sourceOffset <= this.lastOffset) {
        this.stats.skipped++;
        return { written: false };
      }
      if (!this.fh) await this.startFile();
      let records = await captureRecords(capture, { ...this.opts.source, offset: sourceOffset }, this.warcinfoId, this.maxBodyBytes);
      if (this.size + records.bytes.length > this.maxFileBytes && this.capturesInFile > 0) {
        await this.finishFile();
        await this.startFile();
        // The records name their file's warcinfo, so they are built again for the new file.
        records = await captureRecords(capture, { ...this.opts.source, offset: sourceOffset }, this.warcinfoId, this.maxBodyBytes);
      }
      await this.append(records.bytes);
      this.capturesInFile++;
      this.lastOffset = sourceOffset;
      this.stats.captures++;
      this.stats.headersCleaned += records.headersCleaned;
      return { written: true, file: this.fileName, type: records.type, payloadDigest: records.payloadDigest };
    });
  }

  /** Makes every capture written so far durable (fsync); commit source positions only after this. */
  flush(): Promise<void> {
    return this.serial(async () => {
      if (this.fh) await this.fh.sync();
    });
  }

  async close(): Promise<void> {
    await this.serial(async () => {
      if (this.fh) await this.finishFile();
      this.closed = true;
    });
  }

  /**
   * After a failed write or flush (a full disk): cuts the current file back to its last whole capture
   * and goes on appending to it, so that retries do not leave a new file (and warcinfo) each. A file
   * that kept nothing whole, not even its warcinfo, is removed and the next write begins another.
   * Call only once no write or flush is pending.
   * @throws when the file cannot be recovered; then discard() and open a new writer
   */
  async resume(): Promise<void> {
    const fh = this.fh;
    const name = this.fileName;
    this.fh = undefined;
    await fh?.close().catch(() => undefined);
    if (name) {
      const path = join(this.opts.dir, name);
      const r = await recoverWarcFile(path, this.maxBodyBytes);
      if (r.size === 0) {
        await rm(path, { force: true });
        this.fileName = undefined;
        this.lastOffset = this.fileStartOffset;
      } else {
        this.fh = await open(path, 'r+');
        this.size = r.size;
        this.lastOffset = r.last?.source?.offset ?? this.fileStartOffset;
      }
    }
    this.broken = undefined;
    this.closed = false;
  }

  /**
   * Lets go of the file without finishing it, whatever state the writer is in (after a failed write):
   * the next open recovers it. Call only once no write or flush is pending.
   */
  async discard(): Promise<void> {
    this.closed = true;
    const fh = this.fh;
    this.fh = undefined;
    await fh?.close().catch(() => undefined);
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      if (this.closed) throw new Error(`warc writer ${this.opts.writerId} is closed`);
      if (this.broken) throw new Error(`warc writer ${this.opts.writerId} failed earlier and must be reopened: ${this.broken.message}`);
      try {
        return await task();
      } catch (err) {
        if (!(err instanceof CaptureError)) this.broken = err as Error;
        throw err;
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async append(bytes: Buffer): Promise<void> {
    let done = 0;
    try {
      while (done < bytes.length) {
        const { bytesWritten } = await this.fh!.write(bytes, done, bytes.length - done, this.size + done);
        done += bytesWritten;
      }
    } catch (err) {
      // Leave no partial capture behind for the next write to follow; if even this fails, recovery
      // on the next open cuts it.
      await this.fh!.truncate(this.size).catch(() => undefined);
      throw err;
    }
    this.size += bytes.length;
    this.stats.bytes += bytes.length;
  }

  private async startFile(): Promise<void> {
    const at = this.now();
    const name = `${PREFIX}${this.opts.writerId}-${stamp(at)}-${String(this.seq).padStart(5, '0')}${SUFFIX}`;
    const fh = await open(join(this.opts.dir, name), 'wx'); // O_EXCL: never overwrite a file
    this.seq++;
    this.fh = fh;
    this.fileName = name;
    this.size = 0;
    this.capturesInFile = 0;
    this.fileStartOffset = this.lastOffset;
    const fields: WarcinfoFields = { ...(this.opts.info ?? {}), software: this.opts.software, operator: this.opts.operator };
    fields['crawlstream-writer'] = this.opts.writerId;
    fields['crawlstream-source'] = `${this.opts.source.topic}/${this.opts.source.partition}`;
    const info = await warcinfoRecord(name, at, fields);
    this.warcinfoId = info.id;
    await this.append(info.bytes);
    await syncDir(this.opts.dir); // the new name itself must survive a crash
    this.stats.filesOpened++;
  }

  private async finishFile(): Promise<void> {
    const fh = this.fh!;
    this.fh = undefined;
    await fh.sync();
    await fh.close();
  }
}

async function syncDir(dir: string): Promise<void> {
  const d = await open(dir, 'r');
  try {
    await d.sync();
  } finally {
    await d.close();
  }
}
