// A KeyValueStore over LevelDB. Writes go to an in-memory overlay that the runtime takes at commit
// time and writes in the same atomic batch as the task's output and input position, so the store
// never runs ahead of what downstream can see.
//
// Physical key: [store prefix][virtual bucket, u16 BE][encoded key]. The bucket prefix lets a task
// iterate exactly the buckets it owns and lets `scale` move a bucket's state as one range.
import type { AbstractLevel } from 'abstract-level';
import { virtualBucket } from '../partitioning.js';
import { storedName, type KeyValueStore, type StoreSpec } from './key-value-store.js';

export type BinaryDb = AbstractLevel<Buffer | Uint8Array, Buffer, Buffer>;

export interface StoreWrite {
  key: Buffer;
  value: Buffer | null;
}

/** Key prefix of a store's entries: built from its stored name (`storedName(spec)`), never its code name. */
export function storePrefix(storeName: string): Buffer {
  return Buffer.from(`s!${storeName}\u0000`, 'latin1');
}

export class LevelStore<K, V> implements KeyValueStore<K, V> {
  readonly name: string;
  /** The name its entries and changelog are kept under (see StoreSpec.storedAs). */
  readonly storedName: string;
  private readonly prefix: Buffer;
  private pending = new Map<string, Buffer | null>();
  private committing: Map<string, Buffer | null> | null = null;
  private journal: [string, Buffer | null | undefined][] = [];
  private readonly owned: Set<number>;

  constructor(
    private readonly db: BinaryDb,
    private readonly spec: StoreSpec<K, V>,
    /** Buckets this task owns, ascending; reads and writes outside them are bugs and throw. */
    private readonly ownedBuckets: readonly number[],
    private readonly keyspace: Buffer = Buffer.alloc(0),
  ) {
    this.name = spec.name;
    this.storedName = storedName(spec);
    this.prefix = Buffer.concat([keyspace, storePrefix(this.storedName)]);
    this.owned = new Set(ownedBuckets);
  }

  get(key: K): V | undefined {
    const physical = this.physicalKey(key);
    const id = physical.toString('latin1');
    let raw = this.pending.get(id);
    if (raw === undefined && this.committing) raw = this.committing.get(id);
    if (raw === undefined) raw = this.db.getSync(physical) ?? null;
    return raw === null ? undefined : this.spec.values.decode(raw);
  }

  put(key: K, value: V): void {
    this.write(this.physicalKey(key).toString('latin1'), this.spec.values.encode(value));
  }

  delete(key: K): void {
    this.write(this.physicalKey(key).toString('latin1'), null);
  }

  /** A point to roll back to if the record being processed fails. */
  journalMark(): number {
    return this.journal.length;
  }

  rollbackTo(mark: number): void {
    while (this.journal.length > mark) {
      const [id, previous] = this.journal.pop()!;
      if (previous === undefined) this.pending.delete(id);
      else this.pending.set(id, previous);
    }
  }

  private write(id: string, value: Buffer | null): void {
    this.journal.push([id, this.pending.get(id)]);
    this.pending.set(id, value);
  }

  async *scan(routingKey: string, prefix: Buffer, limit = Infinity): AsyncIterable<[K, V]> {
    const bucket = this.checkOwned(routingKey);
    const start = Buffer.concat([this.prefix, bucketBytes(bucket), prefix]);
    yield* this.mergedRange(start, prefixEnd(start), limit);
  }

  async *entries(): AsyncIterable<[K, V]> {
    for (const bucket of this.ownedBuckets) {
      const start = Buffer.concat([this.prefix, bucketBytes(bucket)]);
      yield* this.mergedRange(start, prefixEnd(start), Infinity);
    }
  }

  /** Moves pending writes into the commit in progress and returns them as batch operations. */
  takeWrites(): StoreWrite[] {
    if (this.pending.size === 0) return [];
    if (this.committing) throw new Error(`store ${this.name}: a commit is already in progress`);
    const writes: StoreWrite[] = [];
    for (const [id, value] of this.pending) writes.push({ key: Buffer.from(id, 'latin1'), value });
    this.committing = this.pending;
    this.pending = new Map();
    this.journal = [];
    return writes;
  }

  /** The batch holding the taken writes is durable: reads may go to LevelDB again. */
  writesCommitted(): void {
    this.committing = null;
  }

  /** Drops uncommitted writes (used when a task is closed without committing). */
  discardPending(): void {
    this.pending.clear();
    this.journal = [];
  }

  get pendingWrites(): number {
    return this.pending.size;
  }

  private physicalKey(key: K): Buffer {
    const bucket = this.checkOwned(this.spec.keys.routingKey(key));
    const encoded = this.spec.keys.encode(key);
    const out = Buffer.allocUnsafe(this.prefix.length + 2 + encoded.length);
    this.prefix.copy(out, 0);
    out.writeUInt16BE(bucket, this.prefix.length);
    encoded.copy(out, this.prefix.length + 2);
    return out;
  }

  private checkOwned(routingKey: string): number {
    const bucket = virtualBucket(routingKey);
    if (!this.owned.has(bucket)) {
      throw new Error(`store ${this.name}: key routed by "${routingKey}" (bucket ${bucket}) is not owned by this task`);
    }
    return bucket;
  }

  private decodeKey(physical: Buffer): K {
    return this.spec.keys.decode(physical.subarray(this.prefix.length + 2));
  }

  private async *mergedRange(gte: Buffer, lt: Buffer, limit: number): AsyncIterable<[K, V]> {
    // The overlay is small (cleared at every commit), so collecting its slice of the range is cheap.
    const overlay = new Map<string, Buffer | null>();
    const lo = gte.toString('latin1');
    const hi = lt.toString('latin1');
    for (const layer of [this.committing, this.pending]) {
      if (!layer) continue;
      for (const [id, v] of layer) if (id >= lo && id < hi) overlay.set(id, v);
    }
    const overlayKeys = [...overlay.keys()].sort();
    let oi = 0;
    let emitted = 0;
    const iterator = this.db.iterator({ gte, lt });
    try {
      for (;;) {
        // No more than the caller may still take: each entry read is a key and a value made in native
        // code, and a queue head of 16 read 256 at a time (~5 KB a page of garbage on the main thread's heap).
        const batch = await iterator.nextv(Math.max(1, Math.min(256, limit - emitted)));
        for (const [k, v] of batch) {
          const id = k.toString('latin1');
          while (oi < overlayKeys.length && overlayKeys[oi] < id) {
            const ov = overlay.get(overlayKeys[oi])!;
            if (ov !== null) {
              yield [this.decodeKey(Buffer.from(overlayKeys[oi], 'latin1')), this.spec.values.decode(ov)];
              if (++emitted >= limit) return;
            }
            oi++;
          }
          if (oi < overlayKeys.length && overlayKeys[oi] === id) {
            const ov = overlay.get(id)!;
            oi++;
            if (ov === null) continue;
            yield [this.decodeKey(k), this.spec.values.decode(ov)];
          } else {
            yield [this.decodeKey(k), this.spec.values.decode(v)];
          }
          if (++emitted >= limit) return;
        }
        if (batch.length === 0) break;
      }
      for (; oi < overlayKeys.length; oi++) {
        const ov = overlay.get(overlayKeys[oi])!;
        if (ov === null) continue;
        yield [this.decodeKey(Buffer.from(overlayKeys[oi], 'latin1')), this.spec.values.decode(ov)];
        if (++emitted >= limit) return;
      }
    } finally {
      await iterator.close();
    }
  }
}

export function bucketBytes(bucket: number): Buffer {
  const b = Buffer.allocUnsafe(2);
  b.writeUInt16BE(bucket, 0);
  return b;
}

/** The smallest key greater than every key starting with `prefix`. */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
}
