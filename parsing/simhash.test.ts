import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bands16, hammingDistance, isNearDuplicate, NEAR_DUPLICATE_BITS, simhash64, sharesBand, tokenHash64 } from './simhash.js';
import { seededRng, textWorld } from './sample-pages.js';

const TRIALS = 1_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** Pages of 500–1,500 article words under one site template (nav + footer, ~60 words). */
function siteGenerator(seed: number) {
  const world = textWorld(seed);
  const template = world.template(seed + 1);
  const page = (words: string[]) => [...template.nav, ...words, ...template.footer].join(' ');
  const length = () => 500 + Math.floor(world.rng() * 1_001);
  return { world, page, length };
}

test('should return 8 deterministic bytes, all zero for text without words', () => {
  const a = simhash64('the quick brown fox jumps over the lazy dog');
  assert.equal(a.length, 8);
  assert.deepEqual(simhash64('the quick brown fox jumps over the lazy dog'), a);
  assert.notDeepEqual(simhash64('an entirely different sentence about crawling'), a);
  assert.deepEqual(simhash64(''), Buffer.alloc(8));
  assert.deepEqual(simhash64(' ,.;!? — … '), Buffer.alloc(8));
});

test('should ignore case, punctuation and the values of numbers', () => {
  assert.deepEqual(simhash64('Hello, World! Updated 2024-03-05 12:31 · 1,234 views'),
    simhash64('hello world updated 1999-12-31 07:02 -- 9,876 VIEWS'));
  assert.deepEqual(simhash64('ÉCOLE Straße ΣΟΦΙΑ'), simhash64('école straße σοφια'));
});

test('should mark pages differing by at most 3 words near-duplicate in nearly all trials', t => {
  const { world, page, length } = siteGenerator(11);
  const histogram = new Array<number>(65).fill(0);
  let marked = 0;
  for (let trial = 0; trial < TRIALS; trial++) {
    const words = world.article(length(), 1_000 + trial);
    const edited = words.slice();
    const edits = 1 + (trial % 3);
    for (let e = 0; e < edits; e++) edited[Math.floor(world.rng() * edited.length)] = world.randomWord();
    const [a, b] = [simhash64(page(words)), simhash64(page(edited))];
    histogram[hammingDistance(a, b)]++;
    if (isNearDuplicate(a, b)) marked++;
  }
  const within = marked / TRIALS;
  t.diagnostic(`1-3 random word replacements: marked in ${(within * 100).toFixed(1)}% of ${TRIALS}; ` +
    `distances 0..6: ${histogram.slice(0, 7).join(' ')}`);
  assert.ok(within >= 0.97, `only ${(within * 100).toFixed(1)}% marked`);
});

test('should give pages differing only in a timestamp line or counter the same simhash', () => {
  const { world, page, length } = siteGenerator(12);
  const rng = seededRng(5);
  const n = () => Math.floor(rng() * 100_000);
  for (let trial = 0; trial < 200; trial++) {
    const words = world.article(length(), 2_000 + trial);
    const a = [`Updated ${n()}-${n()}-${n()} ${n()}:${n()}`, ...words, `${n()} views`];
    const b = [`Updated ${n()}-${n()}-${n()} ${n()}:${n()}`, ...words, `${n()} views`];
    assert.equal(hammingDistance(simhash64(page(a)), simhash64(page(b))), 0);
  }
});

test('should keep different articles under one template far apart', t => {
  const { world, page, length } = siteGenerator(13);
  const unrelated: number[] = [];
  const sameTopic: number[] = [];
  for (let trial = 0; trial < TRIALS; trial++) {
    const a = simhash64(page(world.article(length(), 3_000 + trial)));
    unrelated.push(hammingDistance(a, simhash64(page(world.article(length(), 9_000 + trial)))));
    // Same topic: both articles draw their 10% topical words from the same 40-word list.
    sameTopic.push(hammingDistance(a, simhash64(page(world.article(length(), 3_000 + trial)))));
  }
  for (const [name, distances] of [['unrelated', unrelated], ['same topic', sameTopic]] as const) {
    const sorted = distances.slice().sort((x, y) => x - y);
    const near = sorted.filter(d => d <= NEAR_DUPLICATE_BITS).length;
    t.diagnostic(`${name}: min ${sorted[0]}, p1 ${percentile(sorted, 0.01)}, p50 ${percentile(sorted, 0.5)}; ` +
      `within ${NEAR_DUPLICATE_BITS} bits: ${near} of ${TRIALS}`);
    assert.equal(near, 0, `${name}: ${near} false near-duplicates`);
    assert.ok(percentile(sorted, 0.01) >= 8, `${name}: 1st percentile ${percentile(sorted, 0.01)} leaves too little margin`);
  }
});

test('should treat unspaced CJK text as character bigrams, not one giant token', () => {
  const rng = seededRng(21);
  const han = (n: number) => Array.from({ length: n }, () => String.fromCharCode(0x4e00 + Math.floor(rng() * 3000))).join('');
  const text = han(2_000);
  const edited = text.slice(0, 1_000) + '中' + text.slice(1_001);
  assert.ok(hammingDistance(simhash64(text), simhash64(edited)) <= 3);
  assert.ok(hammingDistance(simhash64(text), simhash64(han(2_000))) > 10);
});

test('should hash tokens to balanced, uncorrelated 64-bit values', () => {
  const N = 20_000;
  const ones = new Array<number>(64).fill(0);
  const agree = Array.from({ length: 32 }, () => new Array<number>(32).fill(0));
  let avalanche = 0;
  for (let i = 0; i < N; i++) {
    const token = `tok${i.toString(36)}`;
    const [a, b] = tokenHash64(token);
    for (let j = 0; j < 32; j++) {
      ones[j] += (a >>> j) & 1;
      ones[32 + j] += (b >>> j) & 1;
      for (let k = 0; k < 32; k++) agree[j][k] += ((a >>> j) & 1) === ((b >>> k) & 1) ? 1 : 0;
    }
    const [a2, b2] = tokenHash64(token.slice(0, -1) + '!');
    avalanche += popcount((a ^ a2) >>> 0) + popcount((b ^ b2) >>> 0);
  }
  for (const count of ones) assert.ok(Math.abs(count / N - 0.5) < 0.02, `bit set in ${count / N} of tokens`);
  // ~4.5 standard deviations: no pair of bits from the two halves moves together.
  for (const row of agree) for (const count of row) assert.ok(Math.abs(count / N - 0.5) < 0.016);
  assert.ok(Math.abs(avalanche / N - 32) < 1, `a one-character change flips ${avalanche / N} bits on average`);
});

function popcount(v: number): number {
  let n = 0;
  for (; v !== 0; v &= v - 1) n++;
  return n;
}

test('should count differing bits and reject buffers that are not 8 bytes', () => {
  const a = Buffer.from('0000000000000000', 'hex');
  assert.equal(hammingDistance(a, Buffer.from('8000000000000001', 'hex')), 2);
  assert.equal(hammingDistance(a, Buffer.from('ffffffffffffffff', 'hex')), 64);
  assert.equal(hammingDistance(Buffer.from('0123456789abcdef', 'hex'), Buffer.from('0123456789abcdef', 'hex')), 0);
  assert.throws(() => hammingDistance(a, Buffer.alloc(7)), RangeError);
  assert.throws(() => bands16(Buffer.alloc(9)), RangeError);
});

test('should split into four 16-bit bands, high first, one of which any two hashes within 3 bits share', () => {
  assert.deepEqual(bands16(Buffer.from('0123456789abcdef', 'hex')), [0x0123, 0x4567, 0x89ab, 0xcdef]);
  const rng = seededRng(33);
  for (let trial = 0; trial < 2_000; trial++) {
    const a = Buffer.alloc(8);
    for (let i = 0; i < 8; i++) a[i] = Math.floor(rng() * 256);
    const b = Buffer.from(a);
    const flips = trial % 4;
    const flipped = new Set<number>();
    while (flipped.size < flips) flipped.add(Math.floor(rng() * 64));
    for (const bit of flipped) b[bit >> 3] ^= 0x80 >> (bit & 7);
    assert.equal(hammingDistance(a, b), flips);
    const [x, y] = [bands16(a), bands16(b)];
    assert.ok(x.some((band, i) => band === y[i]), 'no shared band');
    assert.equal(sharesBand(a, b), true);
    assert.equal(isNearDuplicate(a, b), true);
  }
});

test('should mark pairs 4 bits apart only when they share a band, and never pairs 5 apart', () => {
  const base = Buffer.from('0123456789abcdef', 'hex');
  const flip = (bits: number[]) => {
    const out = Buffer.from(base);
    for (const bit of bits) out[bit >> 3] ^= 0x80 >> (bit & 7);
    return out;
  };
  assert.equal(isNearDuplicate(base, flip([0, 1, 16, 40])), true, 'band 3 shared');
  assert.equal(isNearDuplicate(base, flip([0, 16, 32, 48])), false, 'one differing bit in each band: never compared');
  assert.equal(sharesBand(base, flip([0, 16, 32, 48])), false);
  assert.equal(isNearDuplicate(base, flip([0, 1, 2, 3, 4])), false, '5 bits apart, though 3 bands are shared');
  assert.equal(NEAR_DUPLICATE_BITS, 4);
});
