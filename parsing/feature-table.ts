// The distinct tokens of a page's voting text and their counts, and the weighted vote that turns
// them into the 64-bit simhash (simhash.ts has the scheme). Reused from page to page: a page
// allocates nothing here.
import * as features from './text-features.js';

// Module-local constants: an imported binding is read through its module's cell on every use.
const { fmixA, fmixB, isStopword, mix, SALT_B, STOPWORD_WEIGHT } = features;

export class FeatureTable {
  /**
   * Distinct keys and their counts, dense from index 1 (0 is a placeholder that an empty slot
   * points at), in the order first counted: the vote reads them in that order.
   */
  keys = new Int32Array(2048);
  counts = new Int32Array(2048);
  /** Distinct keys counted. */
  size = 0;
  /**
   * Open addressing: the index in `keys` of each slot's key (0: empty). Only the first mask + 1
   * slots are used, sized to the page, so a page's probes land in as few cache lines as its tokens
   * need.
   */
  private slots = new Int32Array(4096);
  private mask = 0;
  /** Tokens that may still be added (reserve()). */
  private room = 0;
  // The vote's grouping by class: each distinct token's class (0: weighed alone), and the tokens' indices grouped.
  private classOf = new Uint8Array(2048);
  private order = new Int32Array(2048);

  /** Empties the table for a page's `tokens` voting tokens: under half full however many are distinct. */
  reserve(tokens: number): void {
    let capacity = 64;
    while (capacity < 2 * tokens) capacity *= 2;
    if (capacity > this.slots.length) this.slots = new Int32Array(capacity);
    else this.slots.fill(0, 0, capacity);
    if (tokens + 1 > this.keys.length) {
      this.keys = new Int32Array(tokens + 1);
      this.counts = new Int32Array(tokens + 1);
    } else {
      this.counts.fill(0, 0, tokens + 1);
    }
    this.mask = capacity - 1;
    this.size = 0;
    this.room = tokens;
  }

  /**
   * Counts the tokens `tokens[from..to)`. Whether a token is new to the page is a coin toss on most
   * pages, so it is not a branch (a mispredicted branch per token cost more than the probe): a new
   * key takes the next index, a known one its own, and both are written the same way.
   */
  addRange(tokens: Int32Array, from: number, to: number): void {
    if (to - from > this.room) throw new RangeError(`${to - from} tokens added, room for ${this.room}: reserve() first`);
    this.room -= to - from;
    const { slots, keys, counts, mask } = this;
    keys[0] = 0;
    let size = this.size;
    for (let t = from; t < to; t++) {
      const key = tokens[t];
      let slot = mix(key) & mask;
      let v = slots[slot];
      // Stops at an empty slot (index 0) or at the key's, both tested in one branch (bit
      // arithmetic: a conditional expression here compiles to a branch of its own).
      for (;;) {
        const differ = keys[v] ^ key;
        if ((((v - 1) >>> 31) | (((differ | -differ) >>> 31) ^ 1)) !== 0) break;
        slot = (slot + 1) & mask;
        v = slots[slot];
      }
      const fresh = (v - 1) >>> 31; // 1 when the slot is empty (v = 0; v is never negative)
      const index = v + fresh * (size + 1);
      size += fresh;
      keys[index] = key;
      counts[index]++;
      slots[slot] = index;
    }
    this.size = size;
  }

  clear(): void {
    this.size = 0;
    this.room = 0;
  }

  /**
   * The 8-byte big-endian simhash of the tokens counted: each token votes with weight
   * 1 + ln(count) (0.3 of that for stopwords) on each of 64 bits; a bit is set when the votes for 1
   * outweigh those for 0. No tokens: all zeros.
   *
   * Tokens of equal count (and stopword-ness) weigh the same, and nearly all tokens occur fewer
   * than COUNT_CLASSES times: such tokens are grouped by that class, and each class's bits are
   * counted as integers, eight bit-columns per add (SPREAD), then weighed once. Grouping first
   * keeps the counting loop free of branches and its counters in registers. The few frequent
   * tokens are weighed one by one, in the order first seen, before the classes, in class order:
   * the floating-point sums are those of every earlier version of this vote.
   */
  vote(): Buffer {
    weighted.fill(0);
    let total = 0;
    const { keys, counts, size } = this;
    if (this.order.length <= size) {
      this.order = new Int32Array(2 * size + 1);
      this.classOf = new Uint8Array(2 * size + 1);
    }
    const { order, classOf } = this;
    classSize.fill(0);
    for (let u = 1; u <= size; u++) {
      const n = counts[u];
      const key = keys[u];
      const stop = isStopword(key) ? 1 : 0;
      if (n < COUNT_CLASSES) {
        const c = n + stop * COUNT_CLASSES;
        classOf[u] = c;
        classSize[c]++;
        continue;
      }
      classOf[u] = 0;
      let w = n < 256 ? LOG_WEIGHT[n] : 1 + Math.log(n);
      if (stop === 1) w *= STOPWORD_WEIGHT;
      total += w;
      const ka = fmixA(key), kb = fmixB(key ^ SALT_B);
      for (let j = 0; j < 32; j++) {
        weighted[j] += w * ((ka >>> (31 - j)) & 1);
        weighted[32 + j] += w * ((kb >>> (31 - j)) & 1);
      }
    }
    // Each class's tokens together, in the order first seen.
    let at = 0;
    for (let c = 1; c < 2 * COUNT_CLASSES; c++) {
      classStart[c] = at;
      at += classSize[c];
    }
    for (let c = 1; c < 2 * COUNT_CLASSES; c++) classFill[c] = classStart[c];
    for (let u = 1; u <= size; u++) {
      const c = classOf[u];
      if (c !== 0) order[classFill[c]++] = u;
    }
    for (let c = 1; c < 2 * COUNT_CLASSES; c++) {
      const tokens = classSize[c];
      if (tokens === 0) continue;
      countBits(keys, order, classStart[c], classStart[c] + tokens);
      const w = c < COUNT_CLASSES ? LOG_WEIGHT[c] : LOG_WEIGHT[c - COUNT_CLASSES] * STOPWORD_WEIGHT;
      total += w * tokens;
      for (let j = 0; j < 64; j++) weighted[j] += w * bits[j];
    }
    const half = total / 2;
    let hi = 0, lo = 0;
    for (let j = 0; j < 32; j++) {
      if (weighted[j] > half) hi |= 1 << (31 - j);
      if (weighted[32 + j] > half) lo |= 1 << (31 - j);
    }
    // Not allocUnsafe: a pooled slice would pin an 8 KB slab for as long as a caller keeps the hash.
    const out = Buffer.alloc(8);
    out.writeUInt32BE(hi >>> 0, 0);
    out.writeUInt32BE(lo >>> 0, 4);
    return out;
  }
}

const LOG_WEIGHT = new Float64Array(256).map((_, n) => (n === 0 ? 0 : 1 + Math.log(n)));
const COUNT_CLASSES = 16;
const weighted = new Float64Array(64); // per bit: weight of tokens voting 1
// Grouping by class: the size and start of each class.
const classSize = new Int32Array(2 * COUNT_CLASSES);
const classStart = new Int32Array(2 * COUNT_CLASSES);
const classFill = new Int32Array(2 * COUNT_CLASSES);

// SPREAD[byte] puts bit i of the byte into the 4-bit lane i: eight bit-columns of up to 15 tokens
// are counted with one add per byte.
const SPREAD = new Int32Array(256).map((_, byte) => {
  let lanes = 0;
  for (let i = 0; i < 8; i++) if ((byte >>> i) & 1) lanes |= 1 << (4 * i);
  return lanes;
});
const bits = new Int32Array(64); // per bit, big-endian order: tokens of the class voting 1
// 8-bit lanes, even nibbles' bytes (8) then odd nibbles' (8): they take 17 flushes of 15 votes (255).
const bytes = new Int32Array(16);

/** bits[j] = how many of the tokens keys[order[from..to)] have bit j set (the 64 bits of keyBits). */
function countBits(keys: Int32Array, order: Int32Array, from: number, to: number): void {
  bits.fill(0);
  bytes.fill(0);
  let flushes = 0;
  for (let t = from; t < to; t += 15) {
    const stop = Math.min(to, t + 15);
    let l0 = 0, l1 = 0, l2 = 0, l3 = 0, l4 = 0, l5 = 0, l6 = 0, l7 = 0;
    for (let k = t; k < stop; k++) {
      const key = keys[order[k]];
      const ka = fmixA(key), kb = fmixB(key ^ SALT_B);
      l0 += SPREAD[ka >>> 24]; l1 += SPREAD[(ka >>> 16) & 255]; l2 += SPREAD[(ka >>> 8) & 255]; l3 += SPREAD[ka & 255];
      l4 += SPREAD[kb >>> 24]; l5 += SPREAD[(kb >>> 16) & 255]; l6 += SPREAD[(kb >>> 8) & 255]; l7 += SPREAD[kb & 255];
    }
    bytes[0] += l0 & 0x0f0f0f0f; bytes[8] += (l0 >>> 4) & 0x0f0f0f0f;
    bytes[1] += l1 & 0x0f0f0f0f; bytes[9] += (l1 >>> 4) & 0x0f0f0f0f;
    bytes[2] += l2 & 0x0f0f0f0f; bytes[10] += (l2 >>> 4) & 0x0f0f0f0f;
    bytes[3] += l3 & 0x0f0f0f0f; bytes[11] += (l3 >>> 4) & 0x0f0f0f0f;
    bytes[4] += l4 & 0x0f0f0f0f; bytes[12] += (l4 >>> 4) & 0x0f0f0f0f;
    bytes[5] += l5 & 0x0f0f0f0f; bytes[13] += (l5 >>> 4) & 0x0f0f0f0f;
    bytes[6] += l6 & 0x0f0f0f0f; bytes[14] += (l6 >>> 4) & 0x0f0f0f0f;
    bytes[7] += l7 & 0x0f0f0f0f; bytes[15] += (l7 >>> 4) & 0x0f0f0f0f;
    if (++flushes === 17) {
      flushBytes();
      flushes = 0;
    }
  }
  flushBytes();
}

/**
 * The 8-bit lanes into the counts per bit. Nibble i of lane k counts bit i of the lane's byte,
 * which is bit 8k + 7 - i in big-endian order; even nibbles sit in bytes[k], odd ones in bytes[8 + k].
 */
function flushBytes(): void {
  for (let k = 0; k < 8; k++) {
    const even = bytes[k], odd = bytes[8 + k];
    for (let b = 0; b < 4; b++) {
      bits[8 * k + 7 - 2 * b] += (even >>> (8 * b)) & 255;
      bits[8 * k + 6 - 2 * b] += (odd >>> (8 * b)) & 255;
    }
    bytes[k] = 0;
    bytes[8 + k] = 0;
  }
}
