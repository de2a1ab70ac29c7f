// crawlstream topics create --brokers HOST:PORT [--topic-prefix P] [--partitions N]
import { crawlTopology } from '../crawl/topology.js';
import { connectCluster, readLogId, renewLogId } from '../engine/kafka/kafka-cluster.js';
import { createTopics, plannedTopics } from '../engine/kafka/topic-admin.js';
import { DEFAULT_PARTITIONS } from '../engine/embedded/embedded-runtime.js';
import { intOption, LIMITS, parse, UsageError } from './options.js';
import { brokersOf, KAFKA_FLAGS } from './kafka-options.js';
import { stderrLogger } from './progress.js';

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'create') throw new UsageError('usage: crawlstream topics create --brokers HOST:PORT [--topic-prefix P] [--partitions N]');
  const { values } = parse(rest, { ...KAFKA_FLAGS, partitions: { type: 'string' } });
  const partitions = intOption(values, 'partitions', LIMITS.kafkaPartitions) ?? DEFAULT_PARTITIONS;
  const cluster = await connectCluster({ brokers: brokersOf(values), prefix: values['topic-prefix'] as string | undefined, logger: stderrLogger() });
  try {
    const created = await createTopics(cluster.admin, plannedTopics(crawlTopology(), cluster.names, partitions));
    // Any topic created anew starts its offsets at 0 again: the topics get a new identity, so that
    // offsets kept outside Kafka (the ClickHouse sink's) are never taken for the old topics'.
    const logId = created.length || !(await readLogId(cluster)) ? await renewLogId(cluster) : await readLogId(cluster);
    process.stdout.write(created.length ? `created ${created.length} topics:\n${created.join('\n')}\n` : 'all topics exist already\n');
    process.stdout.write(`log identity ${logId}\n`);
    return 0;
  } finally {
    await cluster.close();
  }
}
