// Synchronous streaming gunzip with a bounded output, for .xml.gz sitemaps fed chunk by chunk.
// fflate's Gunzip is push-style and synchronous, which lets SitemapParser.write() stay synchronous
// (node:zlib streams are asynchronous). It was chosen over pako because its output does not depend
// on how the input is chunked (pako reads a second gzip member, or fails on bytes after the first,
// only when they arrive in the same push). fflate does not check the gzip CRC: corrupt data shows up
// as garbled, mostly invalid, entries rather than as an error.
// A gzip bomb inflates about 1,000 times, so input is pushed in slices of INPUT_SLICE bytes: one push
// then produces at most about 1 MiB before the consumer's byte limit is checked again.
import { Gunzip } from 'fflate';

export const GZIP_MAGIC_0 = 0x1f;
export const GZIP_MAGIC_1 = 0x8b;
const INPUT_SLICE = 1024;
/** A gzip member is at least a 10-byte header and an 8-byte trailer. */
const MIN_GZIP_BYTES = 18;

export class GunzipStream {
  private readonly gunzip: Gunzip;
  private failed = false;
  private stopped = false;
  private compressedBytes = 0;

  /** onData returns false to stop inflating (the consumer hit a limit or stopped parsing). */
  constructor(onData: (chunk: Uint8Array) => boolean) {
    this.gunzip = new Gunzip((chunk) => {
      if (!this.stopped && chunk.length > 0 && !onData(chunk)) this.stopped = true;
    });
  }

  get isStopped(): boolean {
    return this.stopped || this.failed;
  }

  /** Feeds compressed bytes; returns an error message when the data turns out to be corrupt. */
  write(chunk: Uint8Array): string | undefined {
    for (let at = 0; at < chunk.length && !this.isStopped; at += INPUT_SLICE) {
      const slice = chunk.subarray(at, Math.min(at + INPUT_SLICE, chunk.length));
      this.compressedBytes += slice.length;
      const error = this.push(slice, false);
      if (error !== undefined) return error;
    }
    return undefined;
  }

  /** Finishes the stream; returns an error message when it was cut short or corrupt. */
  end(): string | undefined {
    if (this.isStopped) return undefined;
    const error = this.push(new Uint8Array(0), true);
    if (error !== undefined) return error;
    if (this.compressedBytes < MIN_GZIP_BYTES) {
      return `gzip: only ${this.compressedBytes} bytes, shorter than any complete gzip file (truncated?)`;
    }
    return undefined;
  }

  private push(slice: Uint8Array, final: boolean): string | undefined {
    try {
      this.gunzip.push(slice, final);
      return undefined;
    } catch (err) {
      this.failed = true;
      const message = err instanceof Error ? err.message : String(err);
      // fflate reads concatenated members; anything else after the data (zero padding, junk) fails here.
      return `gzip: ${message} (truncated or corrupt data?); entries read before it are kept`;
    }
  }
}
