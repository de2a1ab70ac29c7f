// Why a task is not settled, in words an operator can act on: a busy task's published status names
// what it still holds (records queued or running and their offsets, positions read but not committed,
// outputs waiting for a commit, a stop or hand-over under way). Published every second for every
// busy task, so it is counts and a few offsets, never a walk over the queue.
import type { InputTracker } from './input-position.js';
import type { RawRecord } from './task-records.js';
import type { TaskState } from './task-lifecycle.js';

export interface TaskHoldings {
  state: TaskState;
  queued: number;
  firstQueued: RawRecord | undefined;
  /** Concurrent records running. */
  running: number;
  /** A sequential record or a punctuation is mid-way (holds the task's lock). */
  midway: boolean;
  trackers: ReadonlyMap<string, InputTracker>;
  /** Outputs finished and not yet taken by a commit. */
  outputs: number;
}

/** Empty when the task holds nothing (it may still wait on its runtime's commit). */
export function outstandingWork(h: TaskHoldings): string[] {
  const out: string[] = [];
  if (h.state !== 'running') out.push(`task ${h.state}`);
  if (h.queued > 0) out.push(`${h.queued} queued from ${h.firstQueued!.topic}@${h.firstQueued!.offset}`);
  if (h.running > 0) out.push(`${h.running} running`);
  if (h.midway) out.push('a record or punctuation mid-way');
  for (const [topic, t] of h.trackers) {
    const committed = t.committedBase();
    if (committed >= t.next) continue;
    const oldest = t.oldestUnfinished();
    out.push(`${topic} read to ${t.next}, committed to ${committed}${oldest === undefined ? '' : `, unfinished from ${oldest}`}`);
  }
  if (h.outputs > 0) out.push(`${h.outputs} output(s) not committed`);
  return out;
}
