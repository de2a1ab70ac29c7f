// Guards a task against being handed a batch that does not follow on from what it has. kafkajs can be
// ahead of the task: records it delivered went to a task that was then lost, or were dropped while
// the task re-opened, and a seek can be lost in a rebalance. Offering what follows would leave a
// hole the task never fills (a fetch outcome that never arrives stalls its host for good), so the
// consumer goes back to where the task is. Offsets may skip transaction markers, so only a batch
// that starts past both the task and the end of the last batch it was given whole is a gap; if
// reading again lands on the same gap, those records are gone (retention) and the task goes on.

export type GapVerdict =
  | { kind: 'continue' }
  | { kind: 'seek'; offset: number }
  | { kind: 'lost'; from: number; to: number };

export class OffsetGapGuard {
  /** Per topic: the offset after the last batch the task was given whole. */
  private readonly givenUpTo = new Map<string, number>();
  /** Per topic: where the last read-again landed. */
  private readonly landings = new Map<string, number>();

  /** `first`: the batch's first offset (control records included), null for an empty batch. */
  check(topic: string, first: number | null, taskNext: number): GapVerdict {
    if (first === null || first <= taskNext) return { kind: 'continue' };
    if (first <= (this.givenUpTo.get(topic) ?? taskNext)) return { kind: 'continue' };
    if (this.landings.get(topic) !== first) {
      this.landings.set(topic, first);
      return { kind: 'seek', offset: taskNext };
    }
    return { kind: 'lost', from: taskNext, to: first - 1 };
  }

  /**
   * kafkajs read a batch that held nothing for the task (transaction markers, aborted records) and did
   * not offer it: its offsets are no gap. A commit marker fetched alone, as a caught-up consumer often
   * does, otherwise made the next batch look like one, and each cost a read again and a false warning
   * that records were gone.
   */
  filtered(topic: string, first: number, last: number, taskNext: number): void {
    const upTo = this.givenUpTo.get(topic) ?? taskNext;
    if (first <= upTo) this.givenUpTo.set(topic, Math.max(upTo, last + 1));
  }

  /** The task took every record of a batch ending at `lastOffset` (control records included). */
  givenWhole(topic: string, lastOffset: number): void {
    this.givenUpTo.set(topic, lastOffset + 1);
  }
}
