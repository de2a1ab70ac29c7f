// crawlstream status --brokers B [--topic-prefix P] [--wait-idle] [--timeout S]
import { crawlTopology } from '../crawl/topology.js';
import { warcProcessor } from '../stages/warc/warc-stage.js';
import { storedName } from '../engine/api.js';
import { connectCluster, partitionCount, readClusterState, type Cluster } from '../engine/kafka/kafka-cluster.js';
import { clusterIdle, pausedReason, readTaskStatuses, taskBusy, topicEnds, type TaskStatus } from '../engine/kafka/task-status.js';
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
    // One verdict is sound on its own (ends are read after the statuses, and a settled task with no
    // input left produces nothing); a second, on statuses every task published after the first one's,
    // guards what one read could miss, such as a task moving between workers.
    let first: Map<string, TaskStatus> | undefined;
    let last = '';
    let lastDetail: string | undefined;
    while (Date.now() < deadline) {
      // The cluster may be restarting or moving leaders: a failed look is "not idle yet", not an error.
      const { idle, reason, detail, statuses } = await check(cluster).catch((err: Error) => ({ idle: false, reason: `cannot read the cluster's state: ${err.message}`, detail: undefined, statuses: undefined }));
      // The detail (offsets) moves every second: printed once at the end, not on each change.
      lastDetail = detail;
      if (!idle || !statuses) first = undefined;
      else if (!first) first = statuses;
      else if ([...first].every(([key, s]) => (statuses.get(key)?.at ?? 0) > s.at)) {
        process.stdout.write(await describe(cluster));
        process.stdout.write(`idle: ${reason}\n`);
        return 0;
      }
      if (reason !== last) process.stderr.write(`waiting: ${reason}\n`);
      last = reason;
      await new Promise((r) => setTimeout(r, first ? 250 : 1000));
    }
    process.stdout.write(await describe(cluster));
    process.stderr.write(`not idle after ${(timeoutMs ?? 0) / 1000} s: ${last}${lastDetail ? ` (${lastDetail})` : ''}\n`);
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

/** The idle verdict, and the statuses of the tasks it judged (the topology's, on every partition). */
async function check(cluster: Cluster): Promise<{ idle: boolean; reason: string; detail?: string; statuses: Map<string, TaskStatus> }> {
  const statuses = await readTaskStatuses(cluster);
  const topology = topologyOf(statuses);
  const partitions = await partitionCount(cluster, 'discovered-urls');
  const verdict = await clusterIdle(cluster, topology.processors.map((p) => ({ name: p.name, storedName: p.storedName, inputs: p.inputs })), [...topology.topics.keys()], partitions, statuses);
  const judged = new Map<string, TaskStatus>();
  for (const p of topology.processors) {
    for (let part = 0; part < partitions; part++) {
      const s = verdict.statuses.get(`${p.storedName}/${part}`);
      if (s) judged.set(`${p.storedName}/${part}`, s);
    }
  }
  // Read after the statuses: a scale that began after them shows here, one that ended before them
  // left tasks that have not republished yet saying paused.
  const paused = pausedReason((await readClusterState(cluster))?.control.paused ?? false, judged.values());
  if (paused) return { idle: false, reason: paused, statuses: judged };
  return { ...verdict, statuses: judged };
}

const BUSY_LINES = 20;

async function describe(cluster: Cluster): Promise<string> {
  const statuses = await readTaskStatuses(cluster);
  const topology = topologyOf(statuses);
  const partitions = await partitionCount(cluster, 'discovered-urls');
  const ends = await topicEnds(cluster, [...topology.topics.keys()]);
  const lines = ['processor      part  owner                          lag   frontier  in-flight  state'];
  const busy: string[] = [];
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
      if (state === 'busy') busy.push(`${p.name}-${part} busy: ${taskBusy(s!)}`);
      lines.push(`${p.name.padEnd(14)} ${String(part).padStart(4)}  ${(s?.worker || '-').padEnd(30)} ${String(lag).padStart(5)} ${String(p.name === 'schedule' ? f : '').padStart(10)} ${String(s?.gauges['in-flight'] ?? '').padStart(10)}  ${state}`);
    }
  }
  lines.push(`frontier: ${frontier} URLs queued; pages fetched by current owners: ${fetched}`);
  // Why each busy task is busy; a crawl under way has every task busy, so only the first few.
  lines.push(...busy.slice(0, BUSY_LINES), ...(busy.length > BUSY_LINES ? [`… and ${busy.length - BUSY_LINES} more busy tasks`] : []));
  return lines.join('\n') + '\n';
}
