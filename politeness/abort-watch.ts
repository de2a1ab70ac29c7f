// Waits that an abort may end, watched with one listener per signal however many wait on it: a
// fetch task's thousands of waiting records share its signal (host turns, request slots, the
// address gate), and a listener each would cost memory and a MaxListeners warning.

/** A wait: `done` once granted or given up, after which nothing more happens to it. */
export interface AbortableWait {
  done: boolean;
  readonly signal: AbortSignal | undefined;
}

export class AbortWatch<W extends AbortableWait> {
  private readonly bySignal = new WeakMap<AbortSignal, Set<W>>();

  /** @param givenUp tells a wait's waiter that its signal aborted (it is already marked done) */
  constructor(private readonly givenUp: (wait: W) => void) {}

  /** Watches `wait` until it is granted. */
  add(wait: W): void {
    if (!wait.signal) return;
    let waits = this.bySignal.get(wait.signal);
    if (!waits) {
      const set = (waits = new Set());
      this.bySignal.set(wait.signal, set);
      wait.signal.addEventListener('abort', () => {
        for (const w of set) {
          if (w.done) continue;
          w.done = true;
          this.givenUp(w);
        }
        set.clear();
      }, { once: true });
    }
    waits.add(wait);
  }

  /** The wait is over, granted: an abort no longer concerns it. */
  granted(wait: W): void {
    wait.done = true;
    if (wait.signal) this.bySignal.get(wait.signal)?.delete(wait);
  }
}
