// Replay on the embedded runtime: a plan's processors over the data directory's retained topic, under
// their own consumer identity (`replay-<id>.<processor>`), so the live positions are not touched. The
// embedded data directory belongs to one process at a time: replay a stopped application. Records
// that log damage made unreadable are passed over, counted and reported: a replay of a damaged log
// finishes, and says what it could not replay.
import type { Logger } from '../api.js';
import { EmbeddedRuntime } from '../embedded/embedded-runtime.js';
import type { PartitionLog } from '../embedded/partition-log.js';
import type { DamageSummary } from '../embedded/log-damage.js';
import { checkBeforeState } from '../embedded/data-dir.js';
import type { ReplayPlan } from './replay-plan.js';
import { copiedAway, readScaleEvents } from '../scale/scale-history.js';
import { ProgressMeter, type ReplayProgress, type ReplayView } from './replay-progress.js';
import type { CommitReport } from '../task/stream-task.js';

export interface EmbeddedReplayOptions<S> {
  dataDir: string;
  plan: ReplayPlan<S>;
  services: S;
  /** Start at this offset in every partition, or at the first record at/after this time (epoch ms). */
  fromOffset?: number;
  since?: number;
  logger: Logger;
  onProgress?: (p: ReplayProgress) => void;
  signal?: AbortSignal;
  /** Told what each durable task commit held (metrics). */
  onCommitted?: (report: CommitReport) => void;
  /** Called once the replay's tasks exist. */
  onStarted?: (view: ReplayView<S>) => void;
}

export interface EmbeddedReplayResult extends ReplayProgress {
  /** Records of the replayed range that could not be read (log damage), with where and why. */
  lost: DamageSummary;
}

export async function runEmbeddedReplay<S>(o: EmbeddedReplayOptions<S>): Promise<EmbeddedReplayResult> {
  const { plan } = o;
  const groupOf = (processor: string) => `replay-${plan.id}.${processor}`;
  // Reading the scale history opens the state: a missing one must be refused before that creates it.
  checkBeforeState(o.dataDir);
  const scaleEvents = await readScaleEvents(o.dataDir);
  const start = (topic: string, log: PartitionLog) =>
    topic !== plan.from ? log.start : Math.min(log.end, Math.max(log.start, o.since !== undefined ? log.offsetForTime(o.since) : (o.fromOffset ?? log.start)));
  const runtime = await EmbeddedRuntime.open({
    dataDir: o.dataDir,
    topology: plan.topology,
    services: o.services,
    logger: o.logger,
    groupOf,
    startAt: (_group, topic, log) => start(topic, log),
    // A replayed record is processed where it lies, whoever owns its key today, unless growing the
    // partition count copied it elsewhere (then the copy is processed).
    owns: (r, partition) => !copiedAway(scaleEvents, r.topic, partition, r.offset, r.key),
    onCommitted: o.onCommitted,
  });
  o.onStarted?.({ tasks: () => runtime.tasks, lag: () => runtime.lag() });
  let timer: NodeJS.Timeout | undefined;
  try {
    const starts: number[] = [];
    let total = 0;
    for (let p = 0; p < runtime.partitions; p++) {
      const log = runtime.log(plan.from, p);
      starts.push(start(plan.from, log));
      total += log.end - starts[p];
    }
    const meter = new ProgressMeter(total);
    const reader = plan.topology.processors.find((p) => p.inputs.includes(plan.from))!.name;
    const readers = () => runtime.tasks.filter((t) => t.node.name === reader);
    // Progress counts committed records, not records read: a concurrent processor reads far ahead of
    // what it has finished. Once idle, everything read is finished.
    // Records damage made unreadable are passed over as if done: they count as unreadable, not replayed.
    const done = () => readers().reduce((n, t) => n + Math.max(0, t.committedBase(plan.from) - starts[t.partition]), 0);
    const read = () => readers().reduce((n, t) => n + (t.nextOffset(plan.from) - starts[t.partition]), 0);
    await runtime.start();
    const unreadable = runtime.damageSummary().unprocessed;
    if (o.onProgress) timer = setInterval(() => o.onProgress!(meter.measure(Math.max(0, done() - unreadable), unreadable)), 2000);
    await runtime.whenIdle(o.signal);
    const lost = runtime.damageSummary();
    if (lost.unprocessed) {
      o.logger.warn(`replay ${plan.id}: ${lost.unprocessed} records could not be read (log damage, see above) and were not replayed`);
    }
    return { ...meter.measure(Math.max(0, read() - lost.unprocessed), lost.unprocessed), lost };
  } finally {
    if (timer) clearInterval(timer);
    // The private topics go with their recorded ends and positions, so a later open finds nothing missing.
    await runtime.stop(o.signal?.aborted ? {} : { dropTopics: plan.privateTopics });
  }
}
