// Replay on the embedded runtime: the chosen processors over the data directory's retained topic,
// under their own consumer identity (`replay-<id>.<processor>`), so the crawl's positions are not
// touched. The embedded data directory belongs to one process at a time: replay a stopped crawl.
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import type { Logger } from '../processor.js';
import { sharedClickHouse } from '../../clickhouse/connection.js';
import type { ParserModule } from '../../parsing/parser-module.js';
import { crawlTopology } from '../../crawl/topology.js';
import type { CrawlConfig } from '../../crawl/config.js';
import { EmbeddedRuntime } from '../embedded/embedded-runtime.js';
import type { PartitionLog } from '../embedded/partition-log.js';
import { planReplay } from './replay-plan.js';
import { ParsePool } from '../../parsing/parse-pool.js';
import { copiedAway, readScaleEvents } from '../scale/scale-history.js';
import { ProgressMeter, type ReplayProgress } from './replay-progress.js';

export interface EmbeddedReplayOptions {
  dataDir: string;
  id: string;
  from: string;
  processors: string[];
  /** Start at this offset in every partition, or at the first record at/after this time (epoch ms). */
  fromOffset?: number;
  since?: number;
  config: CrawlConfig;
  clickhouseUrl?: string;
  parserModule?: ParserModule;
  log: Logger;
  onProgress?: (p: ReplayProgress) => void;
  signal?: AbortSignal;
}

export async function runEmbeddedReplay(o: EmbeddedReplayOptions): Promise<ReplayProgress> {
  const plan = planReplay(crawlTopology(), { id: o.id, from: o.from, processors: o.processors });
  const parsePool = new ParsePool(undefined, o.parserModule?.path);
  const clickhouse = sharedClickHouse({ url: o.clickhouseUrl, dataDir: o.dataDir });
  const groupOf = (processor: string) => `replay-${o.id}.${processor}`;
  const scaleEvents = await readScaleEvents(o.dataDir);
  const start = (topic: string, log: PartitionLog) =>
    topic !== o.from ? log.start : Math.min(log.end, Math.max(log.start, o.since !== undefined ? log.offsetForTime(o.since) : (o.fromOffset ?? log.start)));
  const runtime = await EmbeddedRuntime.open({
    dataDir: o.dataDir,
    topology: plan.topology,
    config: o.config,
    log: o.log,
    groupOf,
    startAt: (_group, topic, log) => start(topic, log),
    // A replayed record is processed where it lies, whoever owns its host today, unless growing the
    // partition count copied it elsewhere (then the copy is processed).
    owns: (r, partition) => !copiedAway(scaleEvents, r.topic, partition, r.offset, r.key),
    resources: { clickhouse, sinkId: `replay-${o.id}`, emitLinks: false, parserModule: o.parserModule, parsePool },
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const starts: number[] = [];
    let total = 0;
    for (let p = 0; p < runtime.partitions; p++) {
      const log = runtime.log(o.from, p);
      starts.push(start(o.from, log));
      total += log.end - starts[p];
    }
    const meter = new ProgressMeter(total);
    const done = () => runtime.tasks.filter((t) => t.node.inputs.includes(o.from) && t.node.name === plan.topology.processors[0].name)
      .reduce((n, t) => n + (t.nextOffset(o.from) - starts[t.partition]), 0);
    await clickhouse();
    await runtime.start();
    if (o.onProgress) timer = setInterval(() => o.onProgress!(meter.measure(done())), 2000);
    await runtime.whenIdle(o.signal);
    return meter.measure(done());
  } finally {
    if (timer) clearInterval(timer);
    await runtime.stop();
    await clickhouse.close();
    await parsePool.close();
    if (!o.signal?.aborted) for (const t of plan.privateTopics) rmSync(join(o.dataDir, 'log', t), { recursive: true, force: true });
  }
}
