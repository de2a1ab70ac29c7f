// Sequential records and timer punctuations of one task take turns: one runs at a time, the rest wait
// in arrival order. `held` tells a commit that a turn is mid-way, so its writes are not complete.
export class Turns {
  private tail: Promise<void> = Promise.resolve();
  private holders = 0;

  get held(): boolean {
    return this.holders > 0;
  }

  take<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(async () => {
      this.holders++;
      try {
        return await fn();
      } finally {
        this.holders--;
      }
    });
    this.tail = run.then(() => undefined, () => undefined);
    return run;
  }
}
