// A worker child process for the Kafka runtime's failover tests: the word count on KafkaRuntime.
// Prints READY once its tasks run; SIGTERM stops it cleanly.
import { connectCluster } from '../kafka-cluster.js';
import { KafkaRuntime } from '../kafka-runtime.js';
import { wordCountTopology } from '../../examples/word-count.js';

const [brokers, registryUrl, prefix, dataDir, cpu] = process.argv.slice(2);
const logger = { info: (m: string) => process.stderr.write(`${m}\n`), warn: (m: string) => process.stderr.write(`warn: ${m}\n`) };
const cluster = await connectCluster({ brokers: [brokers], prefix, logger });
const runtime = new KafkaRuntime({
  cluster, topology: wordCountTopology(), services: { cpuPerRecord: Number(cpu ?? 0) }, control: { paused: false },
  registryUrl, dataDir, logger, sessionTimeoutMs: 6000,
});
await runtime.start();
process.stdout.write('READY\n');
process.on('SIGTERM', () => {
  void runtime.stop().then(() => cluster.close()).then(() => process.exit(0));
});
