// near-dup-bands: parsed → simhash-bands (an internal repartition topic). Splits a page's 64-bit
// simhash into four 16-bit bands keyed by band and value: two pages within Hamming distance 3 share at
// least one band exactly (pigeonhole), and nine in ten pairs 4 bits apart do (NEAR_DUPLICATE_BITS),
// so their band records meet in the same near-dup task, whatever hosts they come from.
import { defineProcessor, type Processor, type ProcessorContext, type RecordOf, type TopicValues } from '../../engine/api.js';
import type { SimhashBand } from '../../schemas/records.js';
import { parsed, simhashBands } from '../../contract/topics.js';

/** Pages with less text than this are too short for a meaningful simhash (error pages, stubs). */
export const MIN_TEXT_FOR_SIMHASH = 200;

export function bandKey(band: number, simhash: Buffer): string {
  return `b${band}:${simhash.toString('hex', band * 2, band * 2 + 2)}`;
}

const inputs = [parsed] as const;
const outputs = [simhashBands] as const;
type In = TopicValues<typeof inputs>;
type Out = TopicValues<typeof outputs>;

class NearDupBands implements Processor<In, Out> {
  process(record: RecordOf<In>, ctx: ProcessorContext<Out>): void {
    const p = record.value;
    if (p.error || p.text_length < MIN_TEXT_FOR_SIMHASH) return;
    for (let band = 0; band < 4; band++) {
      const out: SimhashBand = {
        band, url: p.url, host: p.host, fetch_id: p.fetch_id, simhash: p.simhash, content_hash: p.content_hash, fetched_at: p.fetched_at,
      };
      ctx.forward('simhash-bands', bandKey(band, p.simhash), out);
    }
  }
}

export const nearDupBandsProcessor = defineProcessor({
  name: 'near-dup-bands',
  // Its first name, kept by its consumer group and task ids on every existing crawl: see README (stored names).
  storedAs: 'simhash-bands',
  description: 'Re-keys each page by the four 16-bit bands of its simhash, so near-duplicate candidates from any host meet in one task.',
  inputs,
  outputs,
  stores: [],
  // The bands need the simhash alone: a page's text and links are not decoded here.
  skips: { parsed: ['text', 'links'] },
  delivery: 'Stateless: band records of a page are written once per parsed record.',
  create: () => new NearDupBands(),
});
