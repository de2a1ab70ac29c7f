// dedup: normalized → deduped. Passes each canonical URL on once per crawl (and again as its
// in-links double), a batch's survivors together. A Bloom filter answers "certainly new" from memory; "maybe
// seen" is settled by the exact seen-set in LevelDB. The fingerprint is written in the same commit as
// the forwarded record, so the seen-set can never swallow a URL whose record was not passed on.
import {
  defineProcessor, defineStore, type KeyValueStore, type Processor, type ProcessorContext, type RecordOf, type TopicValues,
} from '../../engine/api.js';
import { deduped, normalized } from '../../contract/topics.js';
import { SeenFilter } from './seen-filter.js';
import { SeenCache } from './seen-cache.js';
import { fingerprint64, hostFingerprintKeys, type HostFingerprint } from '../../url/fingerprint.js';
import type { CanonicalEntry, CanonicalUrl } from '../../schemas/records.js';
import { canonicalBatches, canonicalEntries } from '../../contract/url-batch.js';
import { scoreStep } from '../../focus/rank.js';

/** Key: the URL's host (routing) and its 64-bit fingerprint. Only the fingerprint is stored. */
export type SeenKey = HostFingerprint;

/** How many times a URL was found, and (a focused crawl) the best score step it was passed on with, -1 for none. */
export interface Seen {
  found: number;
  best: number;
}

/** Nothing for a URL found once without a score (the common case), else 4 bytes of count and a fifth for the score step. */
const discoveries = {
  encode: ({ found, best }: Seen) => {
    if (found <= 1 && best < 0) return EMPTY;
    const b = Buffer.allocUnsafe(best < 0 ? 4 : 5);
    b.writeUInt32BE(Math.max(1, found), 0);
    if (best >= 0) b[4] = best;
    return b;
  },
  decode: (b: Buffer): Seen => ({ found: b.length < 4 ? 1 : b.readUInt32BE(0), best: b.length < 5 ? -1 : b[4] }),
};
const EMPTY = Buffer.alloc(0);

export const seenSetStore = defineStore<SeenKey, Seen>({
  name: 'seen-set',
  description: 'Fingerprints (64-bit) of every canonical URL passed on, with how often it was found, by host bucket; a Bloom filter in memory in front.',
  keys: hostFingerprintKeys,
  values: discoveries,
});

/** In-link counts past this no longer change a URL's rank enough to tell the scheduler. */
const MAX_REPORTED_INLINKS = 1024;

const inputs = [normalized] as const;
const outputs = [deduped] as const;
type In = TopicValues<typeof inputs>;
type Out = TopicValues<typeof outputs>;

class Dedup implements Processor<In, Out> {
  private seen!: KeyValueStore<SeenKey, Seen>;
  private bloom!: SeenFilter;
  private readonly cache = new SeenCache();

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
      const inlinks = this.decide(shared.host, shared.via, entry.url, scoreStep(entry.score ?? -1), ctx);
      if (inlinks > 0) passed.push({ ...entry, inlinks });
    }
    for (const batch of canonicalBatches(shared, passed)) ctx.forward('deduped', shared.host, batch);
  }

  /** The failed record's seen-set writes were rolled back: the cache must not remember them. */
  recordFailed(): void {
    this.cache.clear();
  }

  /**
   * The in-link count to pass on for the URL, or 0 when the scheduler need not hear of it. `step`
   * is the link's focus score in steps of 1/32 (-1 unscored).
   */
  private decide(host: string, via: CanonicalUrl['via'], url: string, step: number, ctx: ProcessorContext<Out>): number {
    const { hi, lo } = fingerprint64(url);
    const key = { host, hi, lo };
    if (this.bloom.mightContain(hi, lo)) {
      ctx.metrics.count('bloom.maybe');
      const seen = this.cache.get(hi, lo) ?? this.seen.get(key);
      if (seen !== undefined) {
        ctx.metrics.count('duplicate-urls');
        if (via !== 'link') return 0;
        // Another page links to it. The scheduler ranks a queued URL by its in-links; telling it at
        // 2, 4, 8, … keeps that to a few mentions per URL however many pages link to it. In a
        // focused crawl a better link than any before is told too (at most 32 steps per URL): a
        // page found later may show the URL is on the topic after all.
        const raised = step > seen.best;
        const inlinks = Math.min(seen.found + 1, MAX_REPORTED_INLINKS);
        const doubled = seen.found < MAX_REPORTED_INLINKS && (inlinks & (inlinks - 1)) === 0;
        const now = seen.found < MAX_REPORTED_INLINKS || raised ? { found: inlinks, best: Math.max(step, seen.best) } : seen;
        if (now !== seen) this.seen.put(key, now);
        this.cache.set(hi, lo, now);
        if (raised) ctx.metrics.count('score-raised');
        return doubled || raised ? inlinks : 0;
      }
    }
    this.bloom.add(hi, lo);
    const first = { found: 1, best: step };
    this.seen.put(key, first);
    this.cache.set(hi, lo, first);
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
