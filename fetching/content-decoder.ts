// Streaming Content-Encoding decoder with a hard cap on decoded bytes. Every stage counts what it emits
// and the whole chain is torn down the moment any stage passes the cap, so a 1 KB "gzip, gzip" bomb that
// would inflate to 1 GB costs at most ~maxBytes of memory and stops within milliseconds.
import { createHash, type Hash } from 'node:crypto';
import * as zlib from 'node:zlib';
import type { Transform } from 'node:stream';

export type DecodeFailureKind = 'decompression-bomb' | 'bad-encoding' | 'sink' | 'body-too-large';

export interface DecoderOutput {
  /**
   * Receives decoded chunks as they come instead of the decoder keeping them (body() stays empty).
   * Returning false (exactly) says it has read all it takes (a reader's own cap): decoding ends as at a cap.
   */
  sink?: (chunk: Buffer) => unknown;
  /** Keep a running SHA-1 of the decoded bytes (see sha1()). */
  sha1?: boolean;
}
export interface DecodeFailure { kind: DecodeFailureKind; message: string }

type Coding = 'gzip' | 'deflate' | 'br';

const CHUNK = 64 * 1024;
// Codings that are real compressions we cannot decode: passing their bytes on as text would be garbage.
const UNSUPPORTED = new Set(['compress', 'x-compress', 'zstd', 'dcb', 'dcz', 'pack200-gzip', 'exi', 'aes128gcm']);

/** Parses Content-Encoding into decode order (last applied first); unknown junk tokens are ignored as browsers do. */
export function parseContentEncoding(header: string): { codings: Coding[] } | { unsupported: string } {
  const applied: Coding[] = [];
  for (const raw of header.split(',')) {
    const token = raw.trim().toLowerCase();
    if (token === '' || token === 'identity') continue;
    if (token === 'gzip' || token === 'x-gzip') applied.push('gzip');
    else if (token === 'deflate') applied.push('deflate');
    else if (token === 'br') applied.push('br');
    else if (UNSUPPORTED.has(token)) return { unsupported: token };
  }
  if (applied.length > 4) return { unsupported: `${applied.length} stacked codings` };
  return { codings: applied.reverse() };
}

function createStream(coding: Coding, firstBytes: Buffer): Transform {
  // Ending a stream that stopped mid-way emits everything decodable and then "unexpected end of file";
  // whether that error matters depends on whether the response was complete (see finish()).
  const opts = { chunkSize: CHUNK };
  if (coding === 'gzip') return zlib.createGunzip(opts);
  if (coding === 'br') return zlib.createBrotliDecompress(opts);
  // "deflate" is meant to be zlib-wrapped (RFC 1950) but many servers send raw deflate; the zlib header
  // is recognisable: compression method 8 in the low nibble and the two bytes a multiple of 31.
  const zlibWrapped = firstBytes.length >= 2 && (firstBytes[0] & 0x0f) === 8 && ((firstBytes[0] << 8) | firstBytes[1]) % 31 === 0;
  return zlibWrapped ? zlib.createInflate(opts) : zlib.createInflateRaw(opts);
}

class Stage {
  stream: Transform | null = null;
  emitted = 0;
  private held: Buffer | null = null;
  ended = false;
  onEnded: (() => void) | null = null;

  constructor(readonly coding: Coding, private readonly open: (s: Stage, first: Buffer) => Transform) {}

  /** Returns false when the caller should wait for 'drain' on this stage's stream. */
  write(chunk: Buffer): boolean {
    if (!this.stream) {
      const first = this.held ? Buffer.concat([this.held, chunk]) : chunk;
      if (this.coding === 'deflate' && first.length < 2) {
        this.held = first;
        return true;
      }
      this.held = null;
      this.stream = this.open(this, first);
      return this.stream.write(first);
    }
    return this.stream.write(chunk);
  }

  end(onEnded: () => void): void {
    if (!this.stream && this.held) this.stream = this.open(this, this.held);
    if (!this.stream) {
      onEnded();
      return;
    }
    this.onEnded = onEnded;
    this.stream.once('end', () => this.onEnded?.());
    this.stream.end();
  }
}

export class ContentDecoder {
  readonly maxBytes: number;
  failure: DecodeFailure | null = null;
  private readonly stages: Stage[];
  private readonly chunks: Buffer[] = [];
  private total = 0;
  private wireBytes = 0;
  private finished = false;
  private endWaiters: Array<() => void> = [];
  private drainWaiter: (() => void) | null = null;
  private lenient = false;
  private readonly sink: ((chunk: Buffer) => unknown) | undefined;
  private readonly hash: Hash | null;

  /**
   * @param onFailure called once, synchronously, when decoding fails so the request can be aborted.
   * @param output where decoded bytes go (kept for body() unless a sink is given) and whether to hash them.
   */
  constructor(codings: Coding[], maxBytes: number, private readonly onFailure: (f: DecodeFailure) => void = () => {}, output: DecoderOutput = {}) {
    this.maxBytes = maxBytes;
    this.stages = codings.map((c) => new Stage(c, (s, first) => this.openStage(s, first)));
    this.sink = output.sink;
    this.hash = output.sha1 ? createHash('sha1') : null;
  }

  get bytes(): number {
    return this.total;
  }

  /** Feeds wire bytes; returns false when the producer should pause until onDrain fires. */
  write(chunk: Buffer): boolean {
    if (this.failure || this.finished) return true;
    this.wireBytes += chunk.length;
    if (this.stages.length === 0) {
      this.collect(chunk);
      return true;
    }
    return this.stages[0].write(chunk);
  }

  onDrain(cb: () => void): void {
    this.drainWaiter = cb;
  }

  /**
   * Flushes every stage; resolves when all decodable output is collected or decoding has failed.
   * @param complete whether the response body arrived whole. Only then is a compressed stream that
   *   stops short an error (bad-encoding); a body we cut off (cap, timeout, abort) just keeps its prefix.
   */
  finish(complete = true): Promise<void> {
    this.lenient = !complete;
    return new Promise((resolve) => {
      if (this.finished || this.failure) return resolve();
      this.endWaiters.push(resolve);
      this.endStage(0);
    });
  }

  /** Stops decoding and frees zlib memory; what was decoded so far stays available. */
  destroy(): void {
    for (const s of this.stages) s.stream?.destroy();
    this.settle();
  }

  /** The decoded bytes kept so far; empty when they went to a sink. */
  body(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
  }

  /** Hex SHA-1 of every decoded byte counted in `bytes`; '' unless asked for. Call once, at the end. */
  sha1(): string {
    return this.hash ? this.hash.digest('hex') : '';
  }

  private endStage(i: number): void {
    if (this.failure) return;
    if (i === this.stages.length) {
      this.settle();
      return;
    }
    const stage = this.stages[i];
    if (stage.ended) return;
    stage.ended = true;
    stage.end(() => this.endStage(i + 1));
  }

  private openStage(stage: Stage, first: Buffer): Transform {
    const index = this.stages.indexOf(stage);
    const stream = createStream(stage.coding, first);
    stream.on('data', (out: Buffer) => this.onStageOutput(index, out));
    stream.on('error', (err: Error) => {
      if (this.lenient && stage.ended) {
        const next = stage.onEnded;
        stage.onEnded = null;
        next?.();
        return;
      }
      this.fail('bad-encoding', `${stage.coding} data is corrupt after ${this.wireBytes} wire bytes ` +
        `and ${this.total} decoded bytes: ${err.message}`);
    });
    if (index === 0) stream.on('drain', () => this.drainWaiter?.());
    return stream;
  }

  private onStageOutput(index: number, out: Buffer): void {
    if (this.failure) return;
    const stage = this.stages[index];
    stage.emitted += out.length;
    if (index === this.stages.length - 1) {
      this.collect(out);
      return;
    }
    // Intermediate output is capped too: otherwise the inner layer of "gzip, gzip" could fill memory.
    if (stage.emitted > this.maxBytes) {
      this.bomb(stage.coding);
      return;
    }
    const stream = stage.stream;
    if (!this.stages[index + 1].write(out) && stream) {
      stream.pause();
      this.stages[index + 1].stream?.once('drain', () => stream.resume());
    }
  }

  private collect(out: Buffer): void {
    const room = this.maxBytes - this.total;
    const piece = out.length > room ? out.subarray(0, Math.max(0, room)) : out;
    if (piece.length > 0) {
      this.total += piece.length;
      this.hash?.update(piece);
      if (!this.sink) this.chunks.push(piece);
      else {
        let more: unknown;
        try {
          more = this.sink(piece);
        } catch (err) {
          this.fail('sink', `the body sink threw after ${this.total} decoded bytes: ${(err as Error)?.message ?? err}`);
          return;
        }
        // The reader's own cap (a sitemap's URL cap): the rest is not downloaded, as at our byte cap.
        if (more === false) {
          this.fail('body-too-large', `the reader took no more after ${this.total} decoded bytes (${this.wireBytes} wire bytes)`);
          return;
        }
      }
    }
    if (out.length > room) this.bomb(this.stages.at(-1)?.coding ?? 'identity');
  }

  private bomb(coding: string): void {
    const ratio = this.wireBytes > 0 ? Math.round(this.maxBytes / this.wireBytes) : 0;
    this.fail('decompression-bomb', `${coding} body inflated past the ${this.maxBytes}-byte limit ` +
      `from ${this.wireBytes} wire bytes (ratio over ${ratio}:1)`);
  }

  private fail(kind: DecodeFailureKind, message: string): void {
    if (this.failure || this.finished) return;
    this.failure = { kind, message };
    for (const s of this.stages) s.stream?.destroy();
    try {
      this.onFailure(this.failure);
    } finally {
      this.settle();
    }
  }

  private settle(): void {
    this.finished = true;
    const waiters = this.endWaiters;
    this.endWaiters = [];
    for (const w of waiters) w();
  }
}
