// A task's lifecycle as an explicit state machine, as Kafka Streams' task states:
//
//   created → restoring → running → closing       → closed   (clean stop: work in progress finishes)
//                            │    → handing-over  → closed   (partition moved: finished work commits)
//                            │    → abandoning    → closed   (lost or killed: nothing more commits)
//   created/restoring → abandoning | closed                    (never started)
//   closing/handing-over → abandoning                          (fenced while leaving)
//
// A transition that is not in the table is a bug and throws, instead of leaving a task half-closed.

export type TaskState = 'created' | 'restoring' | 'running' | 'closing' | 'handing-over' | 'abandoning' | 'closed';

const NEXT: Readonly<Record<TaskState, readonly TaskState[]>> = {
  created: ['restoring', 'abandoning', 'closed'],
  restoring: ['running', 'abandoning', 'closed'],
  running: ['closing', 'handing-over', 'abandoning'],
  // A stop may still be cut short (the broker fenced us while we finished).
  closing: ['abandoning', 'closed'],
  'handing-over': ['abandoning', 'closed'],
  abandoning: ['closed'],
  closed: [],
};

export class IllegalTransitionError extends Error {
  constructor(readonly task: string, readonly from: TaskState, readonly to: TaskState) {
    super(`task ${task}: cannot go from ${from} to ${to}`);
  }
}

export class TaskLifecycle {
  private current: TaskState = 'created';
  private readonly waiters = new Map<TaskState, (() => void)[]>();

  constructor(private readonly task: string) {}

  get state(): TaskState {
    return this.current;
  }

  /** New records may start only while running. */
  get accepting(): boolean {
    return this.current === 'running';
  }

  /** Leaving: closing, handing over, abandoning or closed. */
  get leaving(): boolean {
    return this.current !== 'created' && this.current !== 'restoring' && this.current !== 'running';
  }

  can(next: TaskState): boolean {
    return NEXT[this.current].includes(next);
  }

  to(next: TaskState): void {
    if (!this.can(next)) throw new IllegalTransitionError(this.task, this.current, next);
    this.current = next;
    const waiting = this.waiters.get(next);
    if (waiting) {
      this.waiters.delete(next);
      for (const resolve of waiting) resolve();
    }
  }

  /** Resolves when the task reaches `state` (at once if it is there). */
  when(state: TaskState): Promise<void> {
    if (this.current === state) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.waiters.get(state) ?? [];
      list.push(resolve);
      this.waiters.set(state, list);
    });
  }
}
