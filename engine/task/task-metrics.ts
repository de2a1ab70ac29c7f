// Counters and gauges of one task. Counters are committed with the task's state so totals survive
// restarts; gauges describe the present and are never persisted.
import type { Metrics } from '../api.js';

export class TaskMetrics implements Metrics {
  readonly totals = new Map<string, number>();
  readonly gauges = new Map<string, number>();
  private dirty = new Set<string>();

  /** Totals committed by earlier runs of the task. */
  restore(totals: ReadonlyMap<string, number>): void {
    for (const [name, value] of totals) this.totals.set(name, value);
  }

  count(name: string, by = 1): void {
    this.totals.set(name, (this.totals.get(name) ?? 0) + by);
    this.dirty.add(name);
  }

  gauge(name: string, value: number): void {
    this.gauges.set(name, value);
  }

  /** Totals changed since the last call, to be written with the next commit. */
  takeDirty(): Map<string, number> {
    if (this.dirty.size === 0) return EMPTY;
    const out = new Map<string, number>();
    for (const name of this.dirty) out.set(name, this.totals.get(name)!);
    this.dirty = new Set();
    return out;
  }
}

const EMPTY: Map<string, number> = new Map();

/** Records a task has not read yet of one input: the topic's end minus the task's next offset. */
export interface TaskLag {
  processor: string;
  partition: number;
  topic: string;
  records: number;
}
