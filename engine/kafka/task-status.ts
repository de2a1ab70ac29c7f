// Workers publish each task's status (owner, progress through its inputs, frontier, in flight) to a
// compacted topic; `crawlstream status` reads the latest per task. Kafka's consumer lag alone cannot
// tell "idle": with transactions every partition ends in a commit marker that no consumer "reads".
import type { Cluster } from './kafka-cluster.js';
import { restoreChangelogs } from './changelog-restore.js';
import type { StreamTask } from '../task/stream-task.js';
import type { WorkerTransactions } from './worker-transactions.js';

export interface TaskStatus {
  processor: string;
  partition: number;
  /** Worker id owning the task; '' once it let go. */
  worker: string;
  quiescent: boolean;
  /** Why it is not quiescent (what it holds, what its commit waits on); absent when it is. */
  busy?: string;
  /** The processor has work due (hasPendingWork): a crawl's URLs ready or leased. */
  pendingWork: boolean;
  /** The worker's crawl is paused (scaling): no fetch is released. */
  paused?: boolean;
  /** The crawl state generation (partition count) the task runs under. */
  generation?: number;
  /** Next offset per input topic, control records included. */
  consumedUpTo: Record<string, number>;
  gauges: Record<string, number>;
  counters: Record<string, number>;
  at: number;
}

/**
 * Why a task on this worker is not settled (KafkaTaskHost.settled() false): what the task holds, and
 * whether the worker's commit is under way or failed (worker-wide: every task of the worker says it).
 * Only asked of tasks that are not settled; counts and a few offsets.
 */
export function busyReason(task: Pick<StreamTask<unknown>, 'outstanding'>, transactions: Pick<WorkerTransactions, 'busy' | 'failed'>): string {
  const why = task.outstanding();
  if (transactions.failed) why.push('the worker transaction failed; its tasks re-open');
  else if (transactions.busy) why.push('a worker transaction is running or due');
  return why.join('; ') || 'not settled (nothing outstanding found)';
}

/** What keeps a task from idle, in a few words for `status` (empty when it is idle). */
export function taskBusy(s: TaskStatus): string {
  const why = [];
  if (!s.quiescent) why.push(s.busy ?? 'not quiescent');
  if (s.pendingWork) why.push('the processor has work due');
  return why.join('; ');
}

export async function readTaskStatuses(cluster: Cluster): Promise<Map<string, TaskStatus>> {
  const latest = new Map<string, TaskStatus>();
  await restoreChangelogs(cluster.kafka, cluster.admin, [{ topic: cluster.names.taskStatus, partition: 0, from: 0 }], async (_t, entries) => {
    for (const e of entries) {
      const key = e.key.toString('utf8');
      if (e.value) latest.set(key, JSON.parse(e.value.toString('utf8')) as TaskStatus);
      else latest.delete(key);
    }
  });
  return latest;
}

export async function topicEnds(cluster: Cluster, topics: string[]): Promise<Map<string, number>> {
  const ends = new Map<string, number>();
  for (const t of topics) {
    for (const o of await cluster.admin.fetchTopicOffsets(cluster.names.topic(t))) ends.set(`${t}/${o.partition}`, Number(o.high));
  }
  return ends;
}

/**
 * Why a crawl that looks idle is not done: it is paused. `scale` pauses it, drains it (every task then
 * looks idle) and resumes it with more partitions, so `status --wait-idle` must not take a paused
 * crawl for a finished one. `paused` is the cluster state's switch; a task whose last status still
 * says paused has not resumed yet. Undefined when nothing is paused. (`scale` itself waits for the
 * paused crawl to drain and does not ask this.)
 */
export function pausedReason(paused: boolean, statuses: Iterable<TaskStatus>): string | undefined {
  if (paused) return 'the crawl is paused: `crawlstream scale` is under way (if it stopped half-way, run it again to finish)';
  const waiting = [...statuses].filter((s) => s.worker && s.paused).length;
  return waiting ? `not resumed yet since the crawl was paused: ${waiting} task${waiting === 1 ? '' : 's'}` : undefined;
}

/** Idle: every task of every processor reported, recently, that it is done with all its input. */
export function idleVerdict(
  statuses: Map<string, TaskStatus>,
  ends: Map<string, number>,
  /** The status topic keys a task by `storedName` (when pinned, else `name`); reasons say `name`. */
  processors: { name: string; storedName?: string; inputs: readonly string[] }[],
  partitions: number,
  now: number,
): { idle: boolean; reason: string; detail?: string } {
  for (const p of processors) {
    for (let part = 0; part < partitions; part++) {
      const s = statuses.get(`${p.storedName ?? p.name}/${part}`);
      if (!s || !s.worker) return { idle: false, reason: `${p.name}-${part} has no worker` };
      if (now - s.at > 10_000) return { idle: false, reason: `${p.name}-${part} has not reported for ${Math.round((now - s.at) / 1000)} s` };
      if (!s.quiescent || s.pendingWork) return { idle: false, reason: `${p.name}-${part} is busy`, detail: taskBusy(s) };
      for (const t of p.inputs) {
        const end = ends.get(`${t}/${part}`) ?? 0;
        if ((s.consumedUpTo[t] ?? 0) < end) return { idle: false, reason: `${p.name}-${part} has not read ${t} to its end` };
      }
    }
  }
  return { idle: true, reason: 'every topic is consumed and no URL is queued or in flight' };
}

/**
 * The cluster-wide idle check behind `status --wait-idle` and `scale`. `statuses` when the caller has
 * just read them; the topic ends are always read after them.
 */
export async function clusterIdle(cluster: Cluster, processors: { name: string; storedName?: string; inputs: readonly string[] }[], topics: string[], partitions: number, statuses?: Map<string, TaskStatus>): Promise<{ idle: boolean; reason: string; detail?: string; statuses: Map<string, TaskStatus> }> {
  statuses ??= await readTaskStatuses(cluster);
  const ends = await topicEnds(cluster, topics);
  return { ...idleVerdict(statuses, ends, processors, partitions, Date.now()), statuses };
}
