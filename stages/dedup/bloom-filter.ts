// A Bloom filter over 64-bit fingerprints given as two 32-bit halves. It answers "certainly new"
// without touching LevelDB; "maybe seen" is confirmed against the exact seen-set, so a false
// positive costs one LevelDB read, never a lost URL.
//
// 8 bits and 5 probes per entry: about 2 % false positives when full, 1 byte of RAM per entry.

const BITS_PER_ENTRY = 8;
const PROBES = 5;

export class BloomFilter {
  private readonly bits: Uint32Array;
  private readonly size: number;
  count = 0;

  constructor(readonly capacity: number) {
    this.size = Math.max(1024, Math.ceil((capacity * BITS_PER_ENTRY) / 32) * 32);
    this.bits = new Uint32Array(this.size / 32);
  }

  mightContain(h1: number, h2: number): boolean {
    const step = h2 | 1; // an odd step visits distinct bits for every probe
    for (let i = 0; i < PROBES; i++) {
      const bit = ((h1 + Math.imul(i, step)) >>> 0) % this.size;
      if ((this.bits[bit >>> 5] & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  add(h1: number, h2: number): void {
    const step = h2 | 1;
    for (let i = 0; i < PROBES; i++) {
      const bit = ((h1 + Math.imul(i, step)) >>> 0) % this.size;
      this.bits[bit >>> 5] |= 1 << (bit & 31);
    }
    this.count++;
  }

  get full(): boolean {
    return this.count >= this.capacity;
  }

  get bytes(): number {
    return this.bits.byteLength;
  }
}
