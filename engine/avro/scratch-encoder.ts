// Avro values encoded once into a reused scratch buffer, then copied out at their exact size: avsc's
// toBuffer gives every value a zero-filled buffer of its own backing store, and a framing step after
// it would copy each record twice.
import type avro from 'avsc';

const INITIAL_SCRATCH = 64 * 1024;
/** A value larger than this (a big fetched body) leaves no buffer of its size behind. */
const MAX_KEPT_SCRATCH = 1024 * 1024;

export class ScratchEncoder {
  private scratch = Buffer.allocUnsafe(INITIAL_SCRATCH);

  /**
   * Encodes `value` after `at` bytes left for a header, and returns where it ends. The bytes are in
   * `buffer` until the next call; `copyOut` or `drop` ends their use.
   */
  write(type: avro.Type, value: unknown, at = 0): number {
    let end = type.encode(value, this.scratch, at);
    if (end < 0) {
      this.scratch = Buffer.allocUnsafe(Math.max(this.scratch.length * 2, this.scratch.length - end));
      end = type.encode(value, this.scratch, at);
    }
    return end;
  }

  get buffer(): Buffer {
    return this.scratch;
  }

  /** The first `end` bytes as a buffer of their own (from Node's pool when small). */
  copyOut(end: number): Buffer {
    const out = Buffer.allocUnsafe(end);
    this.scratch.copy(out, 0, 0, end);
    this.drop();
    return out;
  }

  /** Gives back a scratch buffer grown for one large value. */
  drop(): void {
    if (this.scratch.length > MAX_KEPT_SCRATCH) this.scratch = Buffer.allocUnsafe(INITIAL_SCRATCH);
  }
}
