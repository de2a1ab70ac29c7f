// A worker child process for the Kafka runtime's failover tests, running the counting topology.
import { KafkaWorker } from './kafka-worker.js';
import { countingTopology } from '../test-driver/counting-topology.js';

const [brokers, registryUrl, prefix, dataDir, cpu] = process.argv.slice(2);
const worker = new KafkaWorker({
  brokers: [brokers], registryUrl, prefix, dataDir, allowNetworks: [], sessionTimeoutMs: 6000,
  topology: countingTopology(Number(cpu ?? 20_000)), log: { info: (m) => process.stderr.write(`${m}\n`), warn: (m) => process.stderr.write(`warn: ${m}\n`) },
});
await worker.start();
process.stdout.write('READY\n');
process.on('SIGTERM', () => {
  void worker.stop().then(() => process.exit(0));
});
