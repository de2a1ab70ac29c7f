// A task's lifecycle as an explicit state machine, as Kafka Streams' task states. How a task left is
// its final state, so nothing else needs to remember it:
//
//   created → restoring → running → closing       → closed       (clean stop: work in progress finishes)
//                            │    → handing-over  → handed-over  (partition moved: finished work commits)
//                            │    → abandoning    → abandoned    (lost, fenced or killed: nothing more commits)
//   created/restoring → closed | abandoning                        (never started)
//   closing/handing-over → abandoning                              (fenced while leaving)
//
// A transition that is not in the table is a bug and throws, instead of leaving a task half-closed.

export type TaskState = 'created' | 'restoring' | 'running' | 'closing' | 'handing-over' | 'abandoning' | 'closed' | 'handed-over' | 'abandoned';

const NEXT: Readonly<Record<TaskState, readonly TaskState[]>> = {
  created: ['restoring', 'abandoning', 'closed'],
  restoring: ['running', 'abandoning', 'closed'],
  running: ['closing', 'handing-over', 'abandoning'],
  // A stop may still be cut short (the broker fenced us while we finished).
  closing: ['abandoning', 'closed'],
  'handing-over': ['abandoning', 'handed-over'],
  abandoning: ['abandoned'],
  closed: [],
  'handed-over': [],
  abandoned: [],
};

const FINAL: ReadonlySet<TaskState> = new Set(['closed', 'handed-over', 'abandoned']);

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

  /** Leaving or gone: every state after running. */
  get leaving(): boolean {
    return this.current !== 'created' && this.current !== 'restoring' && this.current !== 'running';
  }

  /** It has left, one way or another. */
  get ended(): boolean {
    return FINAL.has(this.current);
  }

  /** Its work since the last commit will never be committed (it is being or was abandoned). */
  get discarded(): boolean {
    return this.current === 'abandoning' || this.current === 'abandoned';
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
