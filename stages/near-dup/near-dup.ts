// near-dup: simhash-bands → duplicates. Each task holds the pages seen per band value (store
// `bands`, the newest 64 per value) and answers "was a page within NEAR_DUPLICATE_BITS seen?".
// A duplicate is the later page (by fetch time, then URL) and gets one record naming one original.
// The rule, per band task and page: among the earlier pages within reach stored under this band
// value, take the best (the one whose first shared band is lowest, then the closest, then an exact
// copy over a near one, then the earliest) and report it only if this band is the first band the
// two share. A pair seen in several bands is therefore reported by one task, and a page whose
// candidates all share its lowest band with it is reported once.
// Residual: a task that sees only candidates differing from the page in every lower band cannot
// know that a lower band's task holds a better one, so a page can get one record from each of up to
// four tasks (never two from one task). On crowds of near-identical pages about 4% of duplicate
// pages get a second record (near-dup-crowd.test.ts); the pages view keeps the earliest original.
// Closing it takes a second stage that gathers the four tasks' answers per page.
// Pages arrive out of fetch order: a page earlier than stored pages within reach is reported as the
// original of those that had no earlier candidate in this band (late discovery).
import {
  avroValues, defineProcessor, defineStore, stringKey, type KeyValueStore, type Processor, type ProcessorContext, type RecordOf, type TopicValues,
} from '../../engine/api.js';
import type { Duplicate, SimhashBand } from '../../schemas/records.js';
import { duplicates, simhashBands } from '../../contract/topics.js';
import { hammingDistance, NEAR_DUPLICATE_BITS } from '../../parsing/simhash.js';
import { bandKey } from './near-dup-bands.js';

export { NEAR_DUPLICATE_BITS };
/** Pages kept per band value: a bound on the scan when huge clusters of pages share a band value. */
const MAX_PER_BAND_VALUE = 64;

/** One page seen with a band value: the band record without its band number. */
type BandEntry = Omit<SimhashBand, 'band'>;

/** Key: the band value itself; value: the newest pages seen with it (one LevelDB read per band record). */
export const bandsStore = defineStore<string, BandEntry[]>({
  name: 'bands',
  // Its first name, the key prefix and changelog of every existing crawl's bands: see README (stored names).
  storedAs: 'simhash-bands',
  description: 'Band value → the newest 64 pages (simhash, URL, content hash, fetch time) seen with it.',
  keys: stringKey,
  values: avroValues<BandEntry[]>({
    type: 'array',
    items: {
      type: 'record', name: 'BandEntry', namespace: 'crawlstream.store',
      fields: [
        { name: 'url', type: 'string' }, { name: 'host', type: 'string' }, { name: 'fetch_id', type: 'string' },
        { name: 'simhash', type: 'bytes' }, { name: 'content_hash', type: 'string' }, { name: 'fetched_at', type: 'long' },
      ],
    },
  } as never),
});

/** Fetched earlier: by fetch time, then URL. */
const earlier = (a: BandEntry, b: BandEntry) => a.fetched_at < b.fetched_at || (a.fetched_at === b.fetched_at && a.url < b.url);

interface Candidate { entry: BandEntry; distance: number; exact: boolean; firstBand: number }

/** The better original: sharing a lower band, then closer, then an exact copy, then fetched earlier. */
function better(a: Candidate, b: Candidate): boolean {
  if (a.firstBand !== b.firstBand) return a.firstBand < b.firstBand;
  if (a.distance !== b.distance) return a.distance < b.distance;
  if (a.exact !== b.exact) return a.exact;
  return earlier(a.entry, b.entry);
}

/** The best candidate among `entries` to be `page`'s original: earlier than it and within reach. */
function bestOriginal(page: BandEntry, entries: readonly BandEntry[], skip?: BandEntry): Candidate | undefined {
  let best: Candidate | undefined;
  for (const entry of entries) {
    if (entry === skip || entry.url === page.url || !earlier(entry, page)) continue;
    const distance = hammingDistance(entry.simhash, page.simhash);
    if (distance > NEAR_DUPLICATE_BITS) continue;
    const candidate = { entry, distance, exact: entry.content_hash === page.content_hash, firstBand: firstSharedBand(entry.simhash, page.simhash) };
    if (best === undefined || better(candidate, best)) best = candidate;
  }
  return best;
}

const inputs = [simhashBands] as const;
const outputs = [duplicates] as const;
type In = TopicValues<typeof inputs>;
type Out = TopicValues<typeof outputs>;

class NearDup implements Processor<In, Out> {
  private store!: KeyValueStore<string, BandEntry[]>;

  init(ctx: ProcessorContext<Out>): void {
    this.store = ctx.store(bandsStore);
  }

  process(record: RecordOf<In>, ctx: ProcessorContext<Out>): void {
    const { band, url, host, fetch_id, simhash, content_hash, fetched_at } = record.value;
    const page: BandEntry = { url, host, fetch_id, simhash, content_hash, fetched_at };
    const stored = (this.store.get(record.key) ?? []).filter((c) => c.url !== url); // a re-parse replaces its entry
    const best = bestOriginal(page, stored);
    if (best !== undefined && best.firstBand === band) this.report(ctx, page, best);
    // Stored pages fetched after this one: it may be the first original this band found for them.
    for (const later of stored) {
      if (!earlier(page, later)) continue;
      const distance = hammingDistance(later.simhash, simhash);
      if (distance > NEAR_DUPLICATE_BITS || firstSharedBand(later.simhash, simhash) !== band) continue;
      if (bestOriginal(later, stored, later) !== undefined) continue; // this band already had one for it
      this.report(ctx, later, { entry: page, distance, exact: later.content_hash === content_hash, firstBand: band });
    }
    stored.push(page);
    // Crowded band values keep their newest pages.
    if (stored.length > MAX_PER_BAND_VALUE) stored.sort((a, b) => (earlier(a, b) ? -1 : 1)).splice(0, stored.length - MAX_PER_BAND_VALUE);
    this.store.put(record.key, stored);
  }

  private report(ctx: ProcessorContext<Out>, copy: BandEntry, original: Candidate): void {
    const duplicate: Duplicate = {
      url: copy.url, host: copy.host, fetch_id: copy.fetch_id, duplicate_of: original.entry.url,
      duplicate_of_fetched_at: original.entry.fetched_at, kind: original.exact ? 'exact' : 'near',
      distance: original.distance, detected_at: ctx.now(),
    };
    ctx.metrics.count(`duplicates.${duplicate.kind}`);
    ctx.forward('duplicates', copy.host, duplicate);
  }
}

function firstSharedBand(a: Buffer, b: Buffer): number {
  for (let band = 0; band < 4; band++) if (bandKey(band, a) === bandKey(band, b)) return band;
  return -1;
}

export const nearDupProcessor = defineProcessor({
  name: 'near-dup',
  description: 'Exact and near-duplicate pages across hosts (Hamming distance ≤ 4 on the 64-bit simhash, sharing a 16-bit band), one original per duplicate page.',
  inputs,
  outputs,
  stores: [bandsStore],
  delivery: 'At most one record per duplicate page and band task (usually one per page); the band entry and the record commit together.',
  create: () => new NearDup(),
});
