// How far tasks are from the end of their inputs: the lag observers read, and the bounded wait a
// stop gives sinks to catch up with what the other processors committed.
import type { StreamTask } from '../task/stream-task.js';
import type { TaskLag } from '../task/task-metrics.js';

/** The committed end of a topic partition's log. */
export type LogEnd = (topic: string, partition: number) => number;

/** What every running task has still to read, per input topic. */
export function taskLag<S>(tasks: readonly StreamTask<S>[], endOf: LogEnd): TaskLag[] {
  const out: TaskLag[] = [];
  for (const t of tasks) {
    if (t.lifecycle.state !== 'running') continue;
    for (const topic of t.node.inputs) {
      out.push({ processor: t.node.storedName, partition: t.partition, topic, records: Math.max(0, endOf(topic, t.partition) - t.nextOffset(topic)) });
    }
  }
  return out;
}

/**
 * Waits until the tasks have read their inputs to the end and finished what they read, a fatal
 * error, or `boundMs`. Tasks that never started (a stop during start) have nothing to catch up.
 */
export async function catchUp<S>(o: {
  tasks: readonly StreamTask<S>[];
  endOf: LogEnd;
  /** Hands a task what it has not read yet. */
  pump: (task: StreamTask<S>) => void;
  /** A fatal error ends the wait at once. */
  failed: () => boolean;
  boundMs: number;
}): Promise<void> {
  const behind = () => o.tasks.filter((t) => t.started && t.lifecycle.state !== 'closed' &&
    (!t.isQuiescent() || t.node.inputs.some((topic) => t.nextOffset(topic) < o.endOf(topic, t.partition))));
  const deadline = performance.now() + o.boundMs;
  while (behind().length && !o.failed() && performance.now() < deadline) {
    for (const t of behind()) o.pump(t);
    await new Promise((r) => setTimeout(r, Math.max(1, Math.min(20, deadline - performance.now()))));
  }
}

/** How long a stop waits for records in progress, and for sinks to write what the others committed. */
export const DEFAULT_STOP_GRACE_MS = 30_000;

/**
 * A stop's deadlines: the whole grace, and half of it for the stages that produce (one that cannot
 * finish may take that much; the sinks keep the rest to write what the others committed).
 */
export function stopClock(graceMs: number): { graceOver: Promise<void>; othersOver: Promise<void>; left(): number; clear(): void } {
  const deadline = performance.now() + graceMs;
  const timers: NodeJS.Timeout[] = [];
  const after = (ms: number) => new Promise<void>((resolve) => timers.push(setTimeout(resolve, Math.max(0, ms))));
  return {
    graceOver: after(graceMs),
    othersOver: after(graceMs / 2),
    left: () => deadline - performance.now(),
    clear: () => timers.forEach(clearTimeout),
  };
}

export interface StopReport {
  /** What the stop could not finish within its grace, per processor; empty when everything finished. */
  unfinished: Unfinished[];
}

/** Work a stop left undone, per processor: the next start does it. */
export interface Unfinished {
  processor: string;
  /** Records no commit covers: for a sink every record it had not written, for the others those in progress. */
  records: number;
  /** A sink (no outputs): what it did not write is missing from its destination until the next start. */
  sink: boolean;
}

/** After a stop's last commit: what was left (unfinishedWork), and the tasks that held it let go of it. */
export function leaveUnfinished<S>(tasks: readonly StreamTask<S>[], endOf: LogEnd): Unfinished[] {
  const left = unfinishedWork(tasks, endOf);
  for (const t of tasks) if (t.lifecycle.state !== 'closed') void t.abandon(0).catch(() => undefined);
  return left;
}

/** After a stop's last commit: what the sinks had not written, and what the other tasks still held. */
export function unfinishedWork<S>(tasks: readonly StreamTask<S>[], endOf: LogEnd): Unfinished[] {
  const byProcessor = new Map<string, Unfinished>();
  for (const t of tasks) {
    if (!t.started) continue;
    const sink = t.node.definition.outputs.length === 0;
    const records = sink
      ? t.node.inputs.reduce((n, topic) => n + t.uncommittedBelow(topic, endOf(topic, t.partition)), 0)
      : t.lifecycle.state === 'closed' ? 0 : t.inFlightCount();
    if (records === 0) continue;
    const entry = byProcessor.get(t.node.name) ?? { processor: t.node.name, records: 0, sink };
    entry.records += records;
    byProcessor.set(t.node.name, entry);
  }
  return [...byProcessor.values()];
}
