// Host → partition mapping designed for growth.
//
// A routing key hashes to one of VIRTUAL_BUCKETS fixed buckets; buckets map to partitions by jump
// consistent hashing. Growing from N to M partitions moves only the buckets whose jump result
// changes, about (M − N) / M of them, and every moved bucket goes to a new partition. Store keys
// carry the bucket as a prefix, so the state of a moved bucket is one range to copy.
// Plain `murmur2 % N` (Kafka's default partitioner) would move almost every host instead.

export const VIRTUAL_BUCKETS = 4096;

/**
 * 32-bit FNV-1a over UTF-16 code units, finished with murmur3's avalanche so low bits mix well.
 * Different seeds give independent hashes (the seen-set's fingerprints take two).
 */
export function hash32(s: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function virtualBucket(routingKey: string): number {
  return hash32(routingKey) % VIRTUAL_BUCKETS;
}

/** Lamping & Veach, "A Fast, Minimal Memory, Consistent Hash Algorithm" (2014). */
export function jumpHash(key: number, buckets: number): number {
  let k = BigInt(key) + 0x9e3779b97f4a7c15n; // keep bucket 0 from hashing like the empty key
  let b = -1;
  let j = 0;
  while (j < buckets) {
    b = j;
    k = (k * 2862933555777941757n + 1n) & 0xffffffffffffffffn;
    j = Math.floor(((b + 1) * 2 ** 31) / Number((k >> 33n) + 1n));
  }
  return b;
}

const tables = new Map<number, Uint16Array>();

/** Partition owning a virtual bucket when a topic has `partitions` partitions. */
export function partitionOfBucket(bucket: number, partitions: number): number {
  let table = tables.get(partitions);
  if (!table) {
    if (!Number.isInteger(partitions) || partitions < 1 || partitions > VIRTUAL_BUCKETS) {
      throw new Error(`partition count must be an integer in 1..${VIRTUAL_BUCKETS}, got ${partitions}`);
    }
    table = new Uint16Array(VIRTUAL_BUCKETS);
    for (let v = 0; v < VIRTUAL_BUCKETS; v++) table[v] = jumpHash(v, partitions);
    tables.set(partitions, table);
  }
  return table[bucket];
}

export function partitionFor(routingKey: string, partitions: number): number {
  return partitionOfBucket(virtualBucket(routingKey), partitions);
}

/** Buckets owned by one partition, ascending. */
export function bucketsOfPartition(partition: number, partitions: number): number[] {
  const owned: number[] = [];
  for (let v = 0; v < VIRTUAL_BUCKETS; v++) if (partitionOfBucket(v, partitions) === partition) owned.push(v);
  return owned;
}
