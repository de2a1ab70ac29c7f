// near-dup: simhash-bands → duplicates. Each task holds the pages seen per band value (store
// `simhash-bands`, the newest 64 per value) and answers "was a page within 3 bits seen before?".
// The earlier page (by fetch time, then URL) is the original; the later one is reported as its
// duplicate: 'exact' when the content hashes match, 'near' otherwise.
import type { InputRecord, Processor, ProcessorContext } from './api.js';
import { defineProcessor } from '../topology/topology.js';
import type { Duplicate, SimhashBand } from '../schemas/records.js';
import { avroValues } from '../state-stores/codecs.js';
import { defineStore, type KeyValueStore } from '../state-stores/key-value-store.js';
import { hammingDistance } from '../parsing/simhash.js';
import { bandKey } from './simhash-bands.js';

export const NEAR_DUPLICATE_BITS = 3;
/** Pages kept per band value: a bound on the scan when huge clusters of pages share a band value. */
const MAX_PER_BAND_VALUE = 64;

interface BandEntry {
  url: string;
  host: string;
  fetch_id: string;
  simhash: Buffer;
  content_hash: string;
  fetched_at: number;
}

interface BandEntryKey {
  band: string;
  url: string;
}

export const simhashBandsStore = defineStore<BandEntryKey, BandEntry>({
  name: 'simhash-bands',
  description: 'Band value → pages (simhash, URL, content hash, fetch time) seen with it.',
  keys: {
    routingKey: (k) => k.band,
    encode: (k) => Buffer.from(`${k.band}\u0000${k.url}`, 'utf8'),
    decode: (b) => {
      const s = b.toString('utf8');
      const i = s.indexOf('\u0000');
      return { band: s.slice(0, i), url: s.slice(i + 1) };
    },
  },
  values: avroValues<BandEntry>({
    type: 'record', name: 'BandEntry', namespace: 'crawlstream.store',
    fields: [
      { name: 'url', type: 'string' }, { name: 'host', type: 'string' }, { name: 'fetch_id', type: 'string' },
      { name: 'simhash', type: 'bytes' }, { name: 'content_hash', type: 'string' }, { name: 'fetched_at', type: 'long' },
    ],
  } as never),
});

const earlier = (a: BandEntry, b: BandEntry) => a.fetched_at < b.fetched_at || (a.fetched_at === b.fetched_at && a.url < b.url);

class NearDup implements Processor<SimhashBand> {
  private store!: KeyValueStore<BandEntryKey, BandEntry>;

  init(ctx: ProcessorContext): void {
    this.store = ctx.store(simhashBandsStore.name);
  }

  async process(record: InputRecord<SimhashBand>, ctx: ProcessorContext): Promise<void> {
    const page = record.value;
    const band = record.key;
    const candidates: [BandEntryKey, BandEntry][] = [];
    for await (const e of this.store.scan(band, Buffer.from(`${band}\u0000`, 'utf8'))) candidates.push(e);
    for (const [, other] of candidates) {
      if (other.url === page.url) continue;
      const distance = hammingDistance(other.simhash, page.simhash);
      if (distance > NEAR_DUPLICATE_BITS) continue;
      // The pair shares up to four bands; only the first shared band reports it, so it is reported
      // once. Storing always (evicting the oldest) keeps the original in that band for the next 64
      // pages with the same band value: about the next 4 million pages of a crawl.
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
    if (candidates.length >= MAX_PER_BAND_VALUE) {
      // Keep the newest pages of a crowded band value: evict the oldest to make room.
      let oldest = candidates[0];
      for (const c of candidates) if (earlier(c[1], oldest[1])) oldest = c;
      this.store.delete(oldest[0]);
    }
    const { url, host, fetch_id, simhash, content_hash, fetched_at } = page;
    this.store.put({ band, url }, { url, host, fetch_id, simhash, content_hash, fetched_at });
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
