// What a task's durable commit held, for observers such as metrics: records written per topic and
// how the task's counters grew (a commit carries their totals; the growth is what an observer adds).
import type { TaskCommit } from './stream-task.js';

export interface CommitReport {
  processor: string;
  partition: number;
  /** Records written per (physical) output topic, dead letters included. */
  produced: ReadonlyMap<string, number>;
  /** How much each counter grew with this commit. */
  counted: ReadonlyMap<string, number>;
}

/**
 * @param committedTotals counter totals as of the previous commit, updated here
 * @returns undefined when the commit wrote nothing and counted nothing
 */
export function commitReport(processor: string, partition: number, commit: TaskCommit, committedTotals: Map<string, number>): CommitReport | undefined {
  const produced = new Map<string, number>();
  for (const o of commit.outputs) produced.set(o.topic, (produced.get(o.topic) ?? 0) + 1);
  const counted = new Map<string, number>();
  for (const [name, total] of commit.counters) {
    const by = total - (committedTotals.get(name) ?? 0);
    committedTotals.set(name, total);
    if (by > 0) counted.set(name, by);
  }
  return produced.size || counted.size ? { processor, partition, produced, counted } : undefined;
}
