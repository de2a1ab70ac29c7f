// The crawler's topology, in one place. Every topic is keyed by host (lowercased, punycode, port kept
// when not the default), except the internal band repartition, so everything about one host lives
// in one partition's tasks:
//
//   discovered-urls → normalize → normalized → dedup → deduped → schedule → scheduled → fetch → fetched
//        ↑                                                   ↑                                   │
//        └──────────── links, redirects ── parse ←───────────┴──── (fetch completions) ──────────┤
//                                            │                                                   │
//                        parsed ← ───────────┘                                                   │
//                          ├→ simhash-bands → simhash-bands (by band) → near-dup → duplicates    │
//                          └────────────────────────────→ sink ← duplicates, fetched ←───────────┘
import { TopologyBuilder, type Topology } from '../engine/topology.js';
import { normalizeProcessor } from '../processors/normalize.js';
import { dedupProcessor } from '../processors/dedup.js';
import { scheduleProcessor } from '../processors/schedule.js';
import { fetchProcessor } from '../processors/fetch.js';
import { parseProcessor } from '../processors/parse.js';
import { simhashBandsProcessor } from '../processors/simhash-bands.js';
import { nearDupProcessor } from '../processors/near-dup.js';
import { clickhouseSink } from '../processors/clickhouse-sink.js';

const DAY = 24 * 60 * 60 * 1000;
const MB = 1024 * 1024;

export function crawlTopology(): Topology {
  return new TopologyBuilder()
    .topic({ name: 'discovered-urls', schema: 'discovered-url', retention: 'until-consumed', maxRecordBytes: MB,
      description: 'URLs as found: seeds, links, redirect targets; keyed by the URL\'s host' })
    .topic({ name: 'normalized', schema: 'canonical-url', retention: 'until-consumed', maxRecordBytes: MB,
      description: 'canonical URLs that passed the trap guards' })
    .topic({ name: 'deduped', schema: 'canonical-url', retention: 'until-consumed', maxRecordBytes: MB,
      description: 'each canonical URL once per crawl' })
    .topic({ name: 'scheduled', schema: 'fetch-request', retention: 'until-consumed', maxRecordBytes: MB,
      description: 'fetches released by the host\'s politeness timer' })
    .topic({ name: 'fetched', schema: 'fetch-result', retention: { ms: 7 * DAY }, maxRecordBytes: 16 * MB,
      description: 'fetch outcomes with raw bodies (bounded, compressed): replayable without refetching' })
    .topic({ name: 'parsed', schema: 'parsed-page', retention: { ms: 7 * DAY }, maxRecordBytes: 8 * MB,
      description: 'title, text stats, links, canonical, meta robots, content hash, simhash' })
    .topic({ name: 'simhash-bands', schema: 'simhash-band', retention: 'until-consumed', maxRecordBytes: MB, internal: true,
      description: 'internal repartition of parsed pages by 16-bit simhash band' })
    .topic({ name: 'duplicates', schema: 'duplicate', retention: { ms: 7 * DAY }, maxRecordBytes: MB,
      description: 'pages that repeat an earlier page exactly or nearly' })
    .topic({ name: 'dead-letters', schema: 'dead-letter', retention: { ms: 7 * DAY }, maxRecordBytes: 16 * MB,
      description: 'records a task could not decode or process, with the reason' })

    .processor(normalizeProcessor, { from: ['discovered-urls'], to: ['normalized', 'dead-letters'] })
    .processor(dedupProcessor, { from: ['normalized'], to: ['deduped', 'dead-letters'] })
    // schedule also reads fetched: a host's next release waits for its last fetch to finish.
    .processor(scheduleProcessor, { from: ['fetched', 'deduped'], to: ['scheduled', 'dead-letters'] })
    .processor(fetchProcessor, { from: ['scheduled'], to: ['fetched', 'dead-letters'] })
    .processor(parseProcessor, { from: ['fetched'], to: ['parsed', 'discovered-urls', 'dead-letters'] })
    .processor(simhashBandsProcessor, { from: ['parsed'], to: ['simhash-bands', 'dead-letters'] })
    .processor(nearDupProcessor, { from: ['simhash-bands'], to: ['duplicates', 'dead-letters'] })
    .processor(clickhouseSink, { from: ['fetched', 'parsed', 'duplicates'], to: ['dead-letters'] })
    .build();
}
