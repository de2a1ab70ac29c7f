// A task's sequential records and timer punctuations run one at a time, the rest waiting in arrival
// order. `locked` tells a commit that one is mid-way, so its writes are not complete.
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private holders = 0;

  get locked(): boolean {
    return this.holders > 0;
  }

  runExclusive<T>(fn: () => Promise<T>): Promise<T> {
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
