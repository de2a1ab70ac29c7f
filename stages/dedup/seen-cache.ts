// The seen-set's latest answers for recently decided URLs, in memory. A URL linked from every page of
// its site is confirmed once per link: with the Bloom filter saying "maybe", each confirmation was a
// synchronous LevelDB read (18 a page on the bench web, ~4 µs each at 10,000 pages and ~13 µs at
// 100,000, as the database grows). A hot URL's count is read from here instead.
//
// Direct-mapped, in one typed array (16 bytes a slot, nothing for the garbage collector to trace): a
// slot holds the last URL whose fingerprint mapped to it, so a miss only costs the read it replaced.
// It mirrors the task's store, committed and pending writes alike: the processor writes both together,
// and clears it when the engine rolls back a failed record's writes (the processor's recordFailed).
import type { Seen } from './dedup.js';

/** Slots per task: 1 MB, a few times the URLs of a bench task's hosts. */
export const SEEN_CACHE_BITS = 16;

export class SeenCache {
  /** Per slot: hi, lo, found (0: empty), best. */
  private readonly slots: Int32Array;
  private readonly shift: number;

  constructor(bits = SEEN_CACHE_BITS) {
    if (bits < 1 || bits > 24) throw new Error(`SeenCache: bits must be 1-24, got ${bits}`);
    this.slots = new Int32Array(4 << bits);
    this.shift = 32 - bits;
  }

  get(hi: number, lo: number): Seen | undefined {
    const i = this.slot(hi, lo);
    const s = this.slots;
    if (s[i + 2] === 0 || s[i] !== (hi | 0) || s[i + 1] !== (lo | 0)) return undefined;
    return { found: s[i + 2], best: s[i + 3] };
  }

  set(hi: number, lo: number, seen: Seen): void {
    const i = this.slot(hi, lo);
    const s = this.slots;
    s[i] = hi;
    s[i + 1] = lo;
    s[i + 2] = Math.max(1, seen.found);
    s[i + 3] = seen.best;
  }

  clear(): void {
    this.slots.fill(0);
  }

  private slot(hi: number, lo: number): number {
    // Both halves are already uniform hashes; mixing them keeps URLs that share one half apart.
    return (Math.imul(hi ^ lo, 0x9e3779b1) >>> this.shift) << 2;
  }
}
