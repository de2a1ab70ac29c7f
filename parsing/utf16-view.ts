// A string's UTF-16 code units as a typed array, for the text pass (text-digest.ts). Reading a
// character with String.prototype.charCodeAt checks the string's representation (flat or cons,
// one or two bytes a character) on every read, which made the pass over a page's text cost twice
// what the reads of a typed array cost; copying the string out natively costs ~2 µs per 18 KB.

import { endianness } from 'node:os';

/** Buffers above this many bytes (a 2 MB page) are not kept for the next string. */
const MAX_KEPT_BYTES = 4 << 20;
const BIG_ENDIAN = endianness() === 'BE';

export class Utf16View {
  private bytes = Buffer.alloc(0);
  private units = new Uint16Array(0);

  /**
   * A view whose first `s.length` elements are `s`'s code units (lone surrogates included), valid
   * until the next call. It is longer than `s` by at least one element (a reader's sentinel goes
   * there, text-digest.ts); what it holds past `s` is not `s`.
   */
  of(s: string): Uint16Array {
    const need = 2 * s.length;
    if (need + 2 > this.bytes.length) {
      // Unpooled, so the view starts at offset 0 (aligned for 16-bit reads).
      this.bytes = Buffer.allocUnsafeSlow(Math.max(need + 2, 2 * this.bytes.length, 1 << 15));
      this.units = new Uint16Array(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length >> 1);
    }
    this.bytes.write(s, 0, need, 'utf16le');
    if (BIG_ENDIAN) this.bytes.subarray(0, need).swap16(); // typed arrays read in the platform's order
    return this.units;
  }

  /** Drops a buffer that a huge string made big. */
  trim(): void {
    if (this.bytes.length > MAX_KEPT_BYTES) {
      this.bytes = Buffer.alloc(0);
      this.units = new Uint16Array(0);
    }
  }
}
