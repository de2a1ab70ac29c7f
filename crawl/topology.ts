// The crawler's topology, in one place. Every topic is keyed by host, except the internal band
// repartition, so everything about one host lives in one partition's tasks:
//
//   discovered-urls → normalize → normalized → dedup → deduped → schedule → scheduled → resolve
//        ↑                                                   ↑         resolved (by server address) → fetch → fetched
//        ↑                                                   ↑                                   │
//        └──────────── links, redirects ── parse ←───────────┴── fetch-reports, unfetched ──────┤
//                                            │                                                   │
//                        parsed ← ───────────┘                                                   │
//                          ├→ near-dup-bands → simhash-bands (by band) → near-dup → duplicates   │
//                          └──────────────────────→ clickhouse-sink ← duplicates, fetched ←──────┘
//
// Each processor declares its own inputs, outputs and stores next to its code (stages/<stage>/);
// `crawlstream describe` prints the whole graph from those declarations.
import { TopologyBuilder, type AnyProcessorDefinition, type Topology } from '../engine/api.js';
import { normalizeProcessor } from '../stages/normalize/normalize.js';
import { dedupProcessor } from '../stages/dedup/dedup.js';
import { scheduleProcessor } from '../stages/schedule/schedule.js';
import { resolveProcessor } from '../stages/resolve/resolve.js';
import { fetchProcessor } from '../stages/fetch/fetch.js';
import { parseProcessor } from '../stages/parse/parse.js';
import { nearDupBandsProcessor } from '../stages/near-dup/near-dup-bands.js';
import { nearDupProcessor } from '../stages/near-dup/near-dup.js';
import { clickhouseSink } from '../stages/clickhouse-sink/clickhouse-sink.js';
import { warcProcessor } from '../stages/warc/warc-stage.js';
import type { WarcOutput } from '../warc/warc-output.js';
import type { CrawlServices } from '../contract/services.js';
import type { ProcessorModule } from './processor-module.js';
import * as topics from '../contract/topics.js';

export function crawlTopologyBuilder(extra: readonly AnyProcessorDefinition<CrawlServices>[] = []) {
  const builder = new TopologyBuilder<CrawlServices>()
    .topic(topics.discoveredUrls)
    .topic(topics.normalized)
    .topic(topics.deduped)
    .topic(topics.scheduled)
    .topic(topics.resolved)
    .topic(topics.fetched)
    .topic(topics.fetchReports)
    .topic(topics.parsed)
    .topic(topics.simhashBands)
    .topic(topics.duplicates)
    .topic(topics.skipped)
    .topic(topics.unfetched)
    .processor(normalizeProcessor)
    .processor(dedupProcessor)
    // schedule also reads fetch-reports and unfetched: a host's lease ends when each of its URLs reported.
    .processor(scheduleProcessor)
    .processor(resolveProcessor)
    .processor(fetchProcessor)
    .processor(parseProcessor)
    .processor(nearDupBandsProcessor)
    .processor(nearDupProcessor)
    .processor(clickhouseSink);
  // Users' processors (--processor-module) read the crawl's topics like any other.
  for (const def of extra) builder.processor(def);
  return builder;
}

/** The crawl's optional stages (the WARC writer with --warc-dir) and users' processors, in that order. */
export function extraProcessors(warc: WarcOutput | undefined, modules: readonly ProcessorModule[] = []): AnyProcessorDefinition<CrawlServices>[] {
  return [...(warc ? [warcProcessor] : []), ...modules.map((m) => m.processor)];
}

export type CrawlTopology = ReturnType<ReturnType<typeof crawlTopologyBuilder>['build']>;

export function crawlTopology(extra: readonly AnyProcessorDefinition<CrawlServices>[] = []): CrawlTopology {
  return crawlTopologyBuilder(extra).build();
}

export type { Topology };
