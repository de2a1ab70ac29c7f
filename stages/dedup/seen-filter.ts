// The in-memory front of the seen-set: one Bloom filter, rebuilt 1.5 times larger from the exact
// seen-set in LevelDB when it fills up. A chain of filters ("scalable Bloom filters") would avoid the
// rebuild, but its false-positive rates add up (8 % at a million entries, 14 % at ten million with
// these parameters) and it needs more RAM; one filter stays at ≤ 2 % and 1–1.5 bytes per URL.
import { BloomFilter } from './bloom-filter.js';

export const DEFAULT_SEEN_CAPACITY = 65_536;
const GROWTH = 1.5;

/** Feeds every fingerprint of the exact seen-set to `add`. */
export type SeenSource = (add: (h1: number, h2: number) => void) => Promise<void>;

export class SeenFilter {
  private current: BloomFilter;
  private next: BloomFilter | undefined;
  private rebuilding: Promise<void> | undefined;

  constructor(
    private readonly source: SeenSource,
    capacity = DEFAULT_SEEN_CAPACITY,
  ) {
    this.current = new BloomFilter(capacity);
  }

  /** Loads the seen-set once at start, sized for what it holds. */
  static async load(source: SeenSource, minimumCapacity = DEFAULT_SEEN_CAPACITY): Promise<SeenFilter> {
    let entries = new Uint32Array(1 << 16);
    let n = 0;
    await source((h1, h2) => {
      if (n + 2 > entries.length) {
        const bigger = new Uint32Array(entries.length * 2);
        bigger.set(entries);
        entries = bigger;
      }
      entries[n++] = h1;
      entries[n++] = h2;
    });
    const filter = new SeenFilter(source, Math.max(minimumCapacity, Math.ceil((n / 2) * GROWTH)));
    for (let i = 0; i < n; i += 2) filter.current.add(entries[i], entries[i + 1]);
    return filter;
  }

  mightContain(h1: number, h2: number): boolean {
    return this.current.mightContain(h1, h2);
  }

  add(h1: number, h2: number): void {
    this.current.add(h1, h2);
    this.next?.add(h1, h2);
    if (this.current.full && !this.rebuilding) this.rebuilding = this.rebuild();
  }

  /** Resolves when no rebuild is running (tests and benchmarks). */
  async rebuilt(): Promise<void> {
    while (this.rebuilding) await this.rebuilding;
  }

  get count(): number {
    return this.current.count;
  }

  get bytes(): number {
    return this.current.bytes + (this.next?.bytes ?? 0);
  }

  private async rebuild(): Promise<void> {
    // Entries added while the source is read go to both filters, so none is missed; until the
    // swap the overfull filter answers, which costs a few more LevelDB reads, never a lost URL.
    const next = new BloomFilter(Math.ceil(this.current.capacity * GROWTH));
    this.next = next;
    try {
      await this.source((h1, h2) => next.add(h1, h2));
      this.current = next;
    } finally {
      this.next = undefined;
      this.rebuilding = undefined;
    }
  }
}
