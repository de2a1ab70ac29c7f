// dedup: normalized → deduped. Passes each canonical URL on once per crawl (and again as its
// in-links double), a batch's survivors together. A Bloom filter answers "certainly new" from memory; "maybe
// seen" is settled by the exact seen-set in LevelDB. The fingerprint is written in the same commit as
// the forwarded record, so the seen-set can never swallow a URL whose record was not passed on.
import {
  defineProcessor, defineStore, type KeyValueStore, type Processor, type ProcessorContext, type RecordOf, type TopicValues,
} from '../../engine/api.js';
import { deduped, normalized } from '../../contract/topics.js';
import { SeenFilter } from './seen-filter.js';
import { fingerprint64 } from '../../url/fingerprint.js';
import type { CanonicalEntry, CanonicalUrl } from '../../schemas/records.js';
import { canonicalBatches, canonicalEntries } from '../../contract/url-batch.js';

/** Key: the URL's host (routing) and its 64-bit fingerprint. Only the fingerprint is stored. */
export interface SeenKey {
  host: string;
  hi: number;
  lo: number;
}

/** How many times a URL was found: 4 bytes, or none for a URL found once (the common case). */
const discoveries = {
  encode: (n: number) => (n <= 1 ? EMPTY : Buffer.from([(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff])),
  decode: (b: Buffer) => (b.length < 4 ? 1 : b.readUInt32BE(0)),
};
const EMPTY = Buffer.alloc(0);

export const seenSetStore = defineStore<SeenKey, number>({
  name: 'seen-set',
  description: 'Fingerprints (64-bit) of every canonical URL passed on, with how often it was found, by host bucket; a Bloom filter in memory in front.',
  keys: {
    routingKey: (k) => k.host,
    encode: (k) => {
      const b = Buffer.allocUnsafe(8);
      b.writeUInt32BE(k.hi, 0);
      b.writeUInt32BE(k.lo, 4);
      return b;
    },
    // The host is not stored (8 bytes per URL instead of ~30); entries() callers only need the fingerprint.
    decode: (b) => ({ host: '', hi: b.readUInt32BE(0), lo: b.readUInt32BE(4) }),
  },
  values: discoveries,
});

/** In-link counts past this no longer change a URL's rank enough to tell the scheduler. */
const MAX_REPORTED_INLINKS = 1024;

const inputs = [normalized] as const;
const outputs = [deduped] as const;
type In = TopicValues<typeof inputs>;
type Out = TopicValues<typeof outputs>;

class Dedup implements Processor<In, Out> {
  private seen!: KeyValueStore<SeenKey, number>;
  private bloom!: SeenFilter;

  async init(ctx: ProcessorContext<Out>): Promise<void> {
    const seen = (this.seen = ctx.store(seenSetStore));
    this.bloom = await SeenFilter.load(async (add) => {
      for await (const [k] of seen.entries()) add(k.hi, k.lo);
    });
  }

  process(record: RecordOf<In>, ctx: ProcessorContext<Out>): void {
    // Each URL of the batch is decided on its own, in order; the ones the scheduler must hear of
    // (new, or with more in-links) go on together, as one record: a page's links to a host cost one
    // deduped record, not one per URL.
    const { more: _batch, ...shared } = record.value;
    const passed: CanonicalEntry[] = [];
    for (const entry of canonicalEntries(record.value)) {
      const inlinks = this.decide(shared.host, shared.via, entry.url, ctx);
      if (inlinks > 0) passed.push({ ...entry, inlinks });
    }
    for (const batch of canonicalBatches(shared, passed)) ctx.forward('deduped', shared.host, batch);
  }

  /** The in-link count to pass on for the URL, or 0 when the scheduler need not hear of it. */
  private decide(host: string, via: CanonicalUrl['via'], url: string, ctx: ProcessorContext<Out>): number {
    const { hi, lo } = fingerprint64(url);
    const key = { host, hi, lo };
    if (this.bloom.mightContain(hi, lo)) {
      ctx.metrics.count('bloom.maybe');
      const found = this.seen.get(key);
      if (found !== undefined) {
        ctx.metrics.count('duplicate-urls');
        // Another page links to it. The scheduler ranks a queued URL by its in-links; telling it at
        // 2, 4, 8, … keeps that to a few mentions per URL however many pages link to it.
        if (via !== 'link' || found >= MAX_REPORTED_INLINKS) return 0;
        const inlinks = found + 1;
        this.seen.put(key, inlinks);
        return (inlinks & (inlinks - 1)) === 0 ? inlinks : 0;
      }
    }
    this.bloom.add(hi, lo);
    this.seen.put(key, 1);
    ctx.metrics.count('new-urls');
    return 1;
  }

  /** For benchmarks and status: RAM held by the in-memory part of the seen-set. */
  get bloomBytes(): number {
    return this.bloom.bytes;
  }
}

export const dedupProcessor = defineProcessor({
  name: 'dedup',
  description: 'Each canonical URL once per crawl: Bloom filter in memory, exact 64-bit fingerprints in LevelDB.',
  inputs,
  outputs,
  stores: [seenSetStore],
  delivery: 'Exactly once per URL: the fingerprint and the forwarded record are committed together.',
  create: () => new Dedup(),
});
