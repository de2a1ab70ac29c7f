// How far tasks are from the end of their inputs: the lag observers read, and the bounded wait a
// stop gives sinks to catch up with what the other processors committed.
import type { Logger } from '../api.js';
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
      out.push({ processor: t.node.name, partition: t.partition, topic, records: Math.max(0, endOf(topic, t.partition) - t.nextOffset(topic)) });
    }
  }
  return out;
}

/**
 * Waits until the tasks have read their inputs to the end and finished what they read, or `boundMs`
 * passed (then says which are left: what they have not finished is done at the next start).
 */
export async function catchUp<S>(o: {
  tasks: readonly StreamTask<S>[];
  endOf: LogEnd;
  /** Hands a task what it has not read yet. */
  pump: (task: StreamTask<S>) => void;
  /** A fatal error ends the wait at once. */
  failed: () => boolean;
  boundMs: number;
  log: Logger;
}): Promise<void> {
  const behind = () => o.tasks.filter((t) => !t.isQuiescent() || t.node.inputs.some((topic) => t.nextOffset(topic) < o.endOf(topic, t.partition)));
  const deadline = performance.now() + o.boundMs;
  while (behind().length && !o.failed() && performance.now() < deadline) {
    for (const t of behind()) o.pump(t);
    await new Promise((r) => setTimeout(r, 20));
  }
  const left = behind();
  if (left.length && !o.failed()) {
    o.log.warn(`stopping without waiting longer for ${[...new Set(left.map((t) => t.node.name))].join(', ')}: what they have not finished is done at the next start`);
  }
}
