// crawlstream seed --brokers B --schema-registry URL [crawl-level options] URL...
// Writes the crawl-level options every worker applies, then the seed URLs into discovered-urls.
import { crawlTopology } from '../crawl/topology.js';
import { connectCluster, readClusterState, topologyCodecs, writeClusterState, partitionCount } from '../engine/kafka/kafka-cluster.js';
import { crawlLevelOptions, type CrawlConfig } from '../contract/config.js';
import { partitionFor } from '../engine/partitioning.js';
import { seedRecords } from '../contract/url-batch.js';
import { CRAWL_LEVEL_FLAGS, crawlConfigFrom, parse, UsageError } from './options.js';
import { brokersOf, KAFKA_FLAGS, required } from './kafka-options.js';
import { stderrLogger } from './progress.js';
import type { Logger } from '../engine/api.js';

/** How long seed keeps trying while the brokers answer with retriable errors. */
const RETRIABLE_FOR_MS = 60_000;
import { describeFocus, FOCUS_FLAGS, focusFrom } from './focus-options.js';

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...KAFKA_FLAGS, ...CRAWL_LEVEL_FLAGS, ...FOCUS_FLAGS, 'schema-registry': { type: 'string' } });
  if (positionals.length === 0) throw new UsageError('give at least one seed URL');
  const logger = stderrLogger();
  if (values['max-pages'] !== undefined) throw new UsageError('--max-pages needs one page counter, which only an embedded crawl has; on Kafka bound the crawl with --max-depth and --max-pages-per-host');
  crawlConfigFrom(values); // refuses bad values before connecting; the stored options are merged below
  const cluster = await connectCluster({ brokers: brokersOf(values), prefix: values['topic-prefix'] as string | undefined, logger });
  try {
    return await whileRetriable(() => seed(cluster, values, positionals, logger), logger);
  } finally {
    await cluster.close();
  }
}

/** Brokers that just started answer "the coordinator is loading" for a while: the seed waits it out. */
async function whileRetriable<T>(work: () => Promise<T>, logger: Logger): Promise<T> {
  const deadline = performance.now() + RETRIABLE_FOR_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      // kafkajs gives up on a retriable error after its own retries, wrapped (the error's cause).
      const e = err as Error & { retriable?: boolean; cause?: { retriable?: boolean } };
      if ((e.retriable !== true && e.cause?.retriable !== true) || performance.now() >= deadline) throw err;
      const wait = Math.min(250 * 2 ** attempt, 5_000);
      logger.warn(`seed: ${e.message} (a retriable Kafka error); trying again in ${wait} ms`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

async function seed(cluster: Awaited<ReturnType<typeof connectCluster>>, values: ReturnType<typeof parse>['values'], positionals: string[], logger: Logger): Promise<number> {
  const topology = crawlTopology();
  const codecs = await topologyCodecs(topology, cluster.names, required(values, 'schema-registry'));
  const state = await readClusterState<Partial<CrawlConfig>>(cluster);
  const config = crawlConfigFrom(values, state?.options ?? {}, positionals);
  // The examples (and a module) are stored as content: every worker builds the model from them.
  config.focus = focusFrom(values, config.focus, logger.info);
  if (config.focus) logger.info(await describeFocus(config.focus));
  const partitions = await partitionCount(cluster, 'discovered-urls');
  await writeClusterState(cluster, { options: crawlLevelOptions(config), control: state?.control ?? { paused: false, generation: 0, partitions } });
  const producer = cluster.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    const seeds = seedRecords(positionals, Date.now());
    for (const bad of seeds.invalid) logger.warn(`seed ${JSON.stringify(bad)} is not a URL; skipped`);
    const messages = seeds.records.map(({ host, value }) => ({ key: host, value: codecs.encode('discovered-urls', value), partition: partitionFor(host, partitions) }));
    await producer.send({ topic: cluster.names.topic('discovered-urls'), messages });
    process.stdout.write(`seeded ${seeds.seeds} URL(s); crawl options: depth ≤ ${config.maxDepth}, ≤ ${config.maxPagesPerHost} pages per host, delay ${config.defaultDelayMs} ms, user agent "${config.userAgent}"\n`);
  } finally {
    await producer.disconnect();
  }
  return 0;
}
