// crawlstream describe [--processor-module FILE]... — the topology from its declarations: topics
// (schema, key, retention), processors (inputs, outputs, stores, delivery), as Kafka Streams'
// Topology.describe().
import { describeTopology } from '../engine/topology.js';
import { crawlTopology } from '../crawl/topology.js';
import { parse } from './options.js';
import { loadModules, MODULE_FLAGS } from './modules.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, { 'processor-module': MODULE_FLAGS['processor-module'] });
  const { processorModules } = await loadModules(values);
  process.stdout.write(describeTopology(crawlTopology(processorModules.map((m) => m.processor))) + '\n');
  return 0;
}
