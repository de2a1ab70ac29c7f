// crawlstream topics create --brokers HOST:PORT [--topic-prefix P] [--partitions N]
import { crawlTopology } from '../topology/crawl-topology.js';
import { connectCluster } from '../runtime/kafka/kafka-cluster.js';
import { createTopics, plannedTopics } from '../runtime/kafka/topic-admin.js';
import { DEFAULT_PARTITIONS } from '../runtime/embedded/embedded-runtime.js';
import { intOption, LIMITS, parse, UsageError } from './options.js';
import { brokersOf, KAFKA_FLAGS } from './kafka-options.js';
import { stderrLogger } from './progress.js';

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'create') throw new UsageError('usage: crawlstream topics create --brokers HOST:PORT [--topic-prefix P] [--partitions N]');
  const { values } = parse(rest, { ...KAFKA_FLAGS, partitions: { type: 'string' } });
  const partitions = intOption(values, 'partitions', LIMITS.kafkaPartitions) ?? DEFAULT_PARTITIONS;
  const cluster = await connectCluster({ brokers: brokersOf(values), prefix: values['topic-prefix'] as string | undefined, log: stderrLogger() });
  try {
    const created = await createTopics(cluster.admin, plannedTopics(crawlTopology(), cluster.names, partitions));
    process.stdout.write(created.length ? `created ${created.length} topics:\n${created.join('\n')}\n` : 'all topics exist already\n');
    return 0;
  } finally {
    await cluster.close();
  }
}
