import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { VIRTUAL_BUCKETS, bucketsOfPartition, jumpHash, partitionFor, partitionOfBucket, virtualBucket } from './partitioning.js';

/** Deterministic host names of varied shapes (ports, IDN, subdomains), as normalize produces them. */
function hosts(n: number, seed = 7): string[] {
  let s = seed;
  const next = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = next();
    const name = `${r.toString(36)}${i % 3 === 0 ? '.shop' : ''}.example.test`;
    out.push(i % 5 === 0 ? `${name}:${8000 + (r % 1000)}` : i % 7 === 0 ? `xn--${name}` : name);
  }
  return out;
}

/** Share of hosts whose partition changes from `from` to `to`; fails if one moves between old partitions. */
function moveShare(sample: string[], from: number, to: number): number {
  let moved = 0;
  for (const h of sample) {
    const before = partitionFor(h, from);
    const after = partitionFor(h, to);
    if (before === after) continue;
    assert.ok(after >= from, `${h} moved from partition ${before} to ${after}, an old partition`);
    moved++;
  }
  return moved / sample.length;
}

describe('partitioning', () => {
  it('should map every routing key to a bucket and a partition in range', () => {
    for (const h of [...hosts(2000), '', 'b0:ffff', '[::1]:8080', 'ä.test', 'x'.repeat(300)]) {
      const bucket = virtualBucket(h);
      assert.ok(Number.isInteger(bucket) && bucket >= 0 && bucket < VIRTUAL_BUCKETS, `${h} → bucket ${bucket}`);
      for (const n of [1, 2, 3, 7, 8, 32, 100, VIRTUAL_BUCKETS]) {
        const p = partitionFor(h, n);
        assert.ok(Number.isInteger(p) && p >= 0 && p < n, `${h} → ${p} of ${n}`);
      }
    }
  });

  it('should give every bucket to exactly one partition', () => {
    for (const n of [1, 3, 8, 32]) {
      const seen = new Set<number>();
      for (let p = 0; p < n; p++) for (const b of bucketsOfPartition(p, n)) {
        assert.ok(!seen.has(b), `bucket ${b} owned twice`);
        seen.add(b);
      }
      assert.equal(seen.size, VIRTUAL_BUCKETS);
    }
  });

  it('should move buckets only to new partitions when growing', () => {
    for (const [from, to] of [[4, 8], [8, 32], [1, 2], [3, 5], [8, 9]]) {
      for (let b = 0; b < VIRTUAL_BUCKETS; b++) {
        const before = partitionOfBucket(b, from);
        const after = partitionOfBucket(b, to);
        assert.ok(after === before || after >= from, `bucket ${b}: ${before} → ${after} when growing ${from} → ${to}`);
      }
    }
  });

  it('should move about (8 − 4) / 8 of the hosts when growing from 4 to 8 partitions', (t) => {
    const share = moveShare(hosts(10_000), 4, 8);
    t.diagnostic(`4 → 8: ${(share * 100).toFixed(2)} % of 10,000 hosts moved (ideal 50 %)`);
    assert.ok(Math.abs(share - 0.5) <= 0.03, `${(share * 100).toFixed(2)} % moved`);
  });

  it('should move about (32 − 8) / 32 of the hosts when growing from 8 to 32 partitions', (t) => {
    const share = moveShare(hosts(10_000, 11), 8, 32);
    t.diagnostic(`8 → 32: ${(share * 100).toFixed(2)} % of 10,000 hosts moved (ideal 75 %)`);
    assert.ok(Math.abs(share - 0.75) <= 0.03, `${(share * 100).toFixed(2)} % moved`);
  });

  it('should spread buckets evenly over the partitions', () => {
    for (const n of [4, 8, 32]) {
      const ideal = VIRTUAL_BUCKETS / n;
      for (let p = 0; p < n; p++) {
        const owned = bucketsOfPartition(p, n).length;
        assert.ok(Math.abs(owned - ideal) <= 0.25 * ideal, `partition ${p} of ${n} owns ${owned} buckets (ideal ${ideal})`);
      }
    }
  });

  it('should have the jump-hash properties: in range, stable, and each key only ever jumps to the newest bucket', () => {
    for (let key = 0; key < 2000; key++) {
      assert.equal(jumpHash(key, 1), 0);
      let previous = 0;
      for (let n = 2; n <= 64; n++) {
        const b = jumpHash(key, n);
        assert.ok(b === previous || b === n - 1, `key ${key}: ${previous} → ${b} at ${n} buckets`);
        assert.equal(jumpHash(key, n), b, 'deterministic');
        previous = b;
      }
    }
    // Keys 0 and 1 must not collapse onto the same sequence (the offset keeps key 0 from hashing like "nothing").
    const seq = (key: number) => Array.from({ length: 64 }, (_, i) => jumpHash(key, i + 1)).join(',');
    assert.notEqual(seq(0), seq(1));
  });

  it('should refuse a partition count outside 1..4096', () => {
    for (const bad of [0, -1, 1.5, VIRTUAL_BUCKETS + 1, Number.NaN]) {
      assert.throws(() => partitionOfBucket(0, bad), /partition count must be an integer in 1\.\.4096/);
    }
  });

  it('should keep a host on its partition as long as the partition count does not change', () => {
    const sample = hosts(200);
    const first = sample.map((h) => partitionFor(h, 8));
    assert.deepEqual(sample.map((h) => partitionFor(h, 8)), first);
    assert.ok(new Set(first).size === 8, 'two hundred hosts reach all eight partitions');
  });
});
