// Progress and ETA of a replay: records processed out of those that were in the source topic when
// the replay started; and what observers of a running replay (metrics) may look at.
import type { StreamTask } from '../task/stream-task.js';
import type { TaskLag } from '../task/task-metrics.js';

/** A running replay's tasks and what they have still to read, for observers; both return at once. */
export interface ReplayView<S> {
  tasks(): StreamTask<S>[];
  lag(): TaskLag[];
}

export interface ReplayProgress {
  /** Records replayed (unreadable ones not included). */
  done: number;
  total: number;
  /** Records of the range that log damage made unreadable: not replayed. */
  unreadable?: number;
  perSecond: number;
  etaSeconds: number;
}

export class ProgressMeter {
  private readonly started = performance.now();

  constructor(readonly total: number) {}

  /** `unreadable` records were passed over (log damage): they are neither done nor left to do. */
  measure(done: number, unreadable = 0): ReplayProgress {
    const seconds = (performance.now() - this.started) / 1000;
    const perSecond = done / Math.max(seconds, 0.001);
    const left = Math.max(0, this.total - done - unreadable);
    return { done, total: this.total, unreadable, perSecond, etaSeconds: perSecond > 0 ? left / perSecond : left ? Infinity : 0 };
  }
}

export function formatProgress(p: ReplayProgress): string {
  const pct = p.total ? ((100 * p.done) / p.total).toFixed(1) : '100.0';
  const eta = Number.isFinite(p.etaSeconds) ? `${Math.ceil(p.etaSeconds)} s` : '?';
  const unreadable = p.unreadable ? `, ${p.unreadable} unreadable (log damage)` : '';
  return `replayed ${p.done} of ${p.total} records (${pct} %)${unreadable} | ${p.perSecond.toFixed(1)} records/s | ETA ${eta}`;
}
