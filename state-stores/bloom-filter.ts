// A scalable Bloom filter over 64-bit fingerprints given as two 32-bit halves. It answers "certainly
// new" without touching LevelDB; "maybe seen" is confirmed against the exact seen-set, so a false
// positive costs one LevelDB read, never a lost URL. When a filter fills up, a new one of twice the
// capacity is added (Almeida et al., "Scalable Bloom Filters"), so memory follows the URLs seen.
//
// 8 bits and 5 probes per entry give ≈ 2 % false positives at 1 byte per URL; with the doubling,
// a seen-set of 10 million URLs holds at most ~1.7 bytes per URL in RAM.

const BITS_PER_ENTRY = 8;
const PROBES = 5;

class FixedBloom {
  readonly bits: Uint32Array;
  readonly size: number;
  count = 0;

  constructor(readonly capacity: number) {
    this.size = Math.max(1024, Math.ceil((capacity * BITS_PER_ENTRY) / 32) * 32);
    this.bits = new Uint32Array(this.size / 32);
  }

  has(h1: number, step: number): boolean {
    for (let i = 0; i < PROBES; i++) {
      const bit = ((h1 + Math.imul(i, step)) >>> 0) % this.size;
      if ((this.bits[bit >>> 5] & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  add(h1: number, step: number): void {
    for (let i = 0; i < PROBES; i++) {
      const bit = ((h1 + Math.imul(i, step)) >>> 0) % this.size;
      this.bits[bit >>> 5] |= 1 << (bit & 31);
    }
    this.count++;
  }
}

export class ScalableBloomFilter {
  private readonly filters: FixedBloom[];

  constructor(initialCapacity = 65_536) {
    this.filters = [new FixedBloom(initialCapacity)];
  }

  mightContain(h1: number, h2: number): boolean {
    const step = h2 | 1; // an odd step visits distinct bits for every probe
    for (let i = this.filters.length - 1; i >= 0; i--) if (this.filters[i].has(h1, step)) return true;
    return false;
  }

  add(h1: number, h2: number): void {
    let last = this.filters[this.filters.length - 1];
    if (last.count >= last.capacity) {
      last = new FixedBloom(last.capacity * 2);
      this.filters.push(last);
    }
    last.add(h1, h2 | 1);
  }

  get count(): number {
    return this.filters.reduce((n, f) => n + f.count, 0);
  }

  get bytes(): number {
    return this.filters.reduce((n, f) => n + f.bits.byteLength, 0);
  }
}
