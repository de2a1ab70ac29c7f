// crawlstream status --brokers B [--topic-prefix P] [--wait-idle] [--timeout S]
import { crawlTopology } from '../crawl/topology.js';
import { warcProcessor } from '../stages/warc/warc-stage.js';
import { storedName } from '../engine/api.js';
import { connectCluster, partitionCount, type Cluster } from '../engine/kafka/kafka-cluster.js';
import { clusterIdle, readTaskStatuses, topicEnds, type TaskStatus } from '../engine/kafka/task-status.js';
import { durationOption, LIMITS, parse } from './options.js';
import { brokersOf, KAFKA_FLAGS } from './kafka-options.js';
import { stderrLogger } from './progress.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, { ...KAFKA_FLAGS, 'wait-idle': { type: 'boolean' }, timeout: { type: 'string' } });
  // --timeout S took whole seconds before durations existed; a bare number still means seconds.
  const timeoutMs = durationOption(values, 'timeout', { ...LIMITS.waitTimeoutMs, plainNumbersIn: 's' });
  const cluster = await connectCluster({ brokers: brokersOf(values), prefix: values['topic-prefix'] as string | undefined, logger: stderrLogger() });
  try {
    const deadline = timeoutMs ? Date.now() + timeoutMs : Infinity;
    if (!values['wait-idle']) {
      process.stdout.write(await describe(cluster));
      return 0;
    }
    let quiet = 0;
    let last = '';
    while (Date.now() < deadline) {
      // The cluster may be restarting or moving leaders: a failed look is "not idle yet", not an error.
      const { idle, reason } = await check(cluster).catch((err: Error) => ({ idle: false, reason: `cannot read the cluster's state: ${err.message}` }));
      quiet = idle ? quiet + 1 : 0;
      if (quiet >= 3) {
        process.stdout.write(await describe(cluster));
        process.stdout.write(`idle: ${reason}\n`);
        return 0;
      }
      if (reason !== last) process.stderr.write(`waiting: ${reason}\n`);
      last = reason;
      await new Promise((r) => setTimeout(r, 1000));
    }
    process.stdout.write(await describe(cluster));
    process.stderr.write(`not idle after ${(timeoutMs ?? 0) / 1000} s: ${last}\n`);
    return 1;
  } finally {
    await cluster.close();
  }
}

/**
 * The crawl's topology, with its optional WARC stage when a worker runs it now (--warc-dir): idle
 * then also means the WARC files hold every fetch.
 */
function topologyOf(statuses: Map<string, TaskStatus>) {
  const warc = [...statuses.values()].some((s) => s.processor === storedName(warcProcessor) && s.worker);
  return crawlTopology(warc ? [warcProcessor] : []);
}

async function check(cluster: Cluster): Promise<{ idle: boolean; reason: string }> {
  const topology = topologyOf(await readTaskStatuses(cluster));
  const partitions = await partitionCount(cluster, 'discovered-urls');
  return clusterIdle(cluster, topology.processors.map((p) => ({ name: p.name, storedName: p.storedName, inputs: p.inputs })), [...topology.topics.keys()], partitions);
}

async function describe(cluster: Cluster): Promise<string> {
  const statuses = await readTaskStatuses(cluster);
  const topology = topologyOf(statuses);
  const partitions = await partitionCount(cluster, 'discovered-urls');
  const ends = await topicEnds(cluster, [...topology.topics.keys()]);
  const lines = ['processor      part  owner                          lag   frontier  in-flight  state'];
  let frontier = 0;
  let fetched = 0;
  for (const p of topology.processors) {
    for (let part = 0; part < partitions; part++) {
      const s: TaskStatus | undefined = statuses.get(`${p.storedName}/${part}`);
      const lag = p.inputs.reduce((n, t) => n + Math.max(0, (ends.get(`${t}/${part}`) ?? 0) - (s?.consumedUpTo[t] ?? 0)), 0);
      const f = s?.gauges.frontier ?? 0;
      if (p.name === 'schedule') frontier += f;
      if (p.name === 'fetch') fetched += s?.counters.requests ?? 0;
      const state = !s?.worker ? 'unowned' : s.quiescent && !s.pendingWork ? 'idle' : 'busy';
      lines.push(`${p.name.padEnd(14)} ${String(part).padStart(4)}  ${(s?.worker || '-').padEnd(30)} ${String(lag).padStart(5)} ${String(p.name === 'schedule' ? f : '').padStart(10)} ${String(s?.gauges['in-flight'] ?? '').padStart(10)}  ${state}`);
    }
  }
  lines.push(`frontier: ${frontier} URLs queued; pages fetched by current owners: ${fetched}`);
  return lines.join('\n') + '\n';
}
