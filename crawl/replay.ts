// Replays of the crawl: re-run parse and the sink (or any stateless processors) over the retained
// `fetched` topic with the crawl's services, embedded or on Kafka. The sink writes under its own name
// (`replay-<id>`), so its positions never mix with the live crawl's and its newer rows replace the
// earlier ones in ClickHouse.
import type { Logger } from '../engine/api.js';
import type { ClickHouse } from '../clickhouse/connection.js';
import { planReplay } from '../engine/replay/replay-plan.js';
import type { ReplayProgress } from '../engine/replay/replay-progress.js';
import { readClusterState, connectCluster } from '../engine/kafka/kafka-cluster.js';
import type { ParserModule } from '../parsing/parser-module.js';
import { defaultCrawlConfig, type CrawlConfig } from '../contract/config.js';
import { openCrawlServices, openFocus } from './open-services.js';
import type { FocusSpec } from '../focus/focus-spec.js';
import { crawlTopology, extraProcessors } from './topology.js';
import { clickhouseSink } from '../stages/clickhouse-sink/clickhouse-sink.js';
import type { ReplayView } from '../engine/replay/replay-progress.js';
import type { WarcOutput } from '../warc/warc-output.js';
import type { CrawlServices } from '../contract/services.js';
import { lagEntries, type CrawlTelemetry } from './telemetry.js';

export interface CrawlReplayOptions {
  id: string;
  from: string;
  processors: string[];
  since?: number;
  fromOffset?: number;
  parserModule?: ParserModule;
  /** Judge the replayed pages with this focus (new examples: every page rescored) instead of the crawl's. */
  focus?: FocusSpec;
  clickhouseUrl?: string;
  logger: Logger;
  onProgress?: (p: ReplayProgress) => void;
  signal?: AbortSignal;
  /** Embedded: the crawl's data directory. */
  dataDir?: string;
  /** Kafka: the cluster. */
  kafka?: { brokers: string[]; prefix: string; registryUrl: string };
  /** Where the warc processor writes, when it is replayed (`warc export`). */
  warc?: WarcOutput;
  /** Prometheus metrics of the replay (--metrics-port). */
  telemetry?: CrawlTelemetry;
  /** Called once the replay's tasks exist (their counters stay readable after it ends). */
  onStarted?: (view: ReplayView<CrawlServices>) => void;
}

export async function runCrawlReplay(o: CrawlReplayOptions): Promise<ReplayProgress> {
  const plan = planReplay(crawlTopology(extraProcessors(o.warc)), { id: o.id, from: o.from, processors: o.processors });
  if (o.kafka && plan.topology.processors.some((p) => p.name === clickhouseSink.name) && !o.clickhouseUrl) throw new Error(`replaying ${clickhouseSink.name} needs --clickhouse-url`);
  const stored = o.kafka ? await kafkaCrawlConfig(o.kafka, o.logger) : defaultCrawlConfig();
  const config = o.focus ? { ...stored, focus: o.focus } : stored;
  // A replay fetches nothing; the HTTP client is there because the services have one, and opens no socket.
  const open = openCrawlServices({
    focus: await openFocus(config, false),
    config, clickhouseUrl: o.clickhouseUrl, dataDir: o.dataDir, sinkName: `replay-${o.id}`, parserModule: o.parserModule, warc: o.warc, observer: o.telemetry,
  });
  const { services } = open;
  try {
    if (plan.topology.processors.some((p) => p.name === clickhouseSink.name)) {
      const ch = await services.clickhouse();
      if (!config.focus && plan.topology.processors.some((p) => p.name === 'parse')) await warnUnfocused(ch, o.logger);
    }
    const telemetry = o.telemetry;
    const common = {
      plan, services, since: o.since, fromOffset: o.fromOffset, logger: o.logger, onProgress: o.onProgress, signal: o.signal,
      onCommitted: telemetry?.onCommitted,
      onStarted: (view: ReplayView<CrawlServices>) => {
        telemetry?.watch(() => ({ tasks: view.tasks(), lag: lagEntries(view.lag()) }));
        o.onStarted?.(view);
      },
    };
    if (o.kafka) {
      const { runKafkaReplay } = await import('../engine/replay/kafka-replay.js');
      return await runKafkaReplay({ ...common, ...o.kafka });
    }
    const { runEmbeddedReplay } = await import('../engine/replay/embedded-replay.js');
    return await runEmbeddedReplay({ ...common, dataDir: o.dataDir! });
  } finally {
    await open.close();
  }
}

/** Replaying a focused crawl's pages without its examples writes them unjudged: say so before it does. */
async function warnUnfocused(ch: ClickHouse, logger: Logger): Promise<void> {
  // A database from before focused crawls (schema 4, not migrated until the sink starts) has no
  // relevance column, and nothing judged: the question then has no answer worth failing a replay for.
  const judged = await ch.query<{ n: number | string }>('SELECT count() AS n FROM (SELECT 1 FROM parsed_pages WHERE relevance >= 0 LIMIT 1) AS any_judged').catch(() => []);
  if (Number(judged[0]?.n ?? 0) > 0) {
    logger.warn('these pages were judged by a focused crawl; this replay has no --focus-examples or --focus-module, so the rows it writes are unjudged (relevance -1): give the examples again to keep the judgement, or new ones to change it');
  }
}

async function kafkaCrawlConfig(k: { brokers: string[]; prefix: string }, logger: Logger): Promise<CrawlConfig> {
  const cluster = await connectCluster({ brokers: k.brokers, prefix: k.prefix, logger: logger });
  try {
    return defaultCrawlConfig((await readClusterState<Partial<CrawlConfig>>(cluster))?.options ?? {});
  } finally {
    await cluster.close();
  }
}
