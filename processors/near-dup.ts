// near-dup: simhash-bands → duplicates. Each task holds the pages seen per band value (store
// `simhash-bands`, the newest 64 per value) and answers "was a page within 3 bits seen before?".
// The earlier page (by fetch time, then URL) is the original; the later one is reported as its
// duplicate: 'exact' when the content hashes match, 'near' otherwise.
import type { InputRecord, Processor, ProcessorContext } from './api.js';
import { defineProcessor } from '../topology/topology.js';
import type { Duplicate, SimhashBand } from '../schemas/records.js';
import { avroValues, stringKey } from '../state-stores/codecs.js';
import { defineStore, type KeyValueStore } from '../state-stores/key-value-store.js';
import { hammingDistance, NEAR_DUPLICATE_BITS } from '../parsing/simhash.js';
import { bandKey } from './simhash-bands.js';

export { NEAR_DUPLICATE_BITS };
/** Pages kept per band value: a bound on the scan when huge clusters of pages share a band value. */
const MAX_PER_BAND_VALUE = 64;

/** One page seen with a band value: the band record without its band number. */
type BandEntry = Omit<SimhashBand, 'band'>;

/** Key: the band value itself; value: the newest pages seen with it (one LevelDB read per band record). */
export const simhashBandsStore = defineStore<string, BandEntry[]>({
  name: 'simhash-bands',
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

const earlier = (a: BandEntry, b: BandEntry) => a.fetched_at < b.fetched_at || (a.fetched_at === b.fetched_at && a.url < b.url);

class NearDup implements Processor<SimhashBand> {
  private store!: KeyValueStore<string, BandEntry[]>;

  init(ctx: ProcessorContext): void {
    this.store = ctx.store(simhashBandsStore.name);
  }

  process(record: InputRecord<SimhashBand>, ctx: ProcessorContext): void {
    const page = record.value;
    const band = record.key;
    const candidates = this.store.get(band) ?? [];
    for (const other of candidates) {
      if (other.url === page.url) continue;
      const distance = hammingDistance(other.simhash, page.simhash);
      if (distance > NEAR_DUPLICATE_BITS) continue;
      // The pair shares up to four bands; only the first shared band reports it, so it is reported
      // once. Keeping the newest pages per band value keeps the original in that band for the next
      // 64 pages with the same band value: about the next 4 million pages of a crawl.
      if (firstSharedBand(other.simhash, page.simhash) !== page.band) continue;
      const [original, copy] = earlier(other, page) ? [other, page] : [page, other];
      const duplicate: Duplicate = {
        url: copy.url, host: copy.host, fetch_id: copy.fetch_id, duplicate_of: original.url,
        duplicate_of_fetched_at: original.fetched_at,
        kind: copy.content_hash === original.content_hash ? 'exact' : 'near',
        distance, detected_at: ctx.now(),
      };
      ctx.metrics.count(`duplicates.${duplicate.kind}`);
      ctx.forward('duplicates', copy.host, duplicate);
    }
    const { url, host, fetch_id, simhash, content_hash, fetched_at } = page;
    const kept = candidates.filter((c) => c.url !== url);
    kept.push({ url, host, fetch_id, simhash, content_hash, fetched_at });
    // Crowded band values keep their newest pages.
    if (kept.length > MAX_PER_BAND_VALUE) kept.sort((a, b) => (earlier(a, b) ? -1 : 1)).splice(0, kept.length - MAX_PER_BAND_VALUE);
    this.store.put(band, kept);
  }
}

function firstSharedBand(a: Buffer, b: Buffer): number {
  for (let band = 0; band < 4; band++) if (bandKey(band, a) === bandKey(band, b)) return band;
  return -1;
}

export const nearDupProcessor = defineProcessor({
  name: 'near-dup',
  description: 'Exact and near-duplicate pages across hosts (Hamming distance ≤ 3 on the 64-bit simhash), found through the band repartition.',
  stores: [simhashBandsStore],
  delivery: 'Exactly once per pair found: the band entry and the duplicate record commit together.',
  create: () => new NearDup(),
});
