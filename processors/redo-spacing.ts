// Requests a fetch task reads that were released before it started may be redone: the previous
// task instance may have sent them already and lost its commit (kill -9, a broker that went away, a
// task that moved). The scheduler spaced them when it released them, but redone together they would
// leave back to back: a burst the server never agreed to. So each host's redone requests go one at
// a time, the first one host delay after the task started (the previous instance may just have
// sent it), each next one a host delay after the one before it ended: the scheduler's own rule.

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

export class RedoSpacing {
  /** Per host: settles when the host's latest redone request has ended and a delay has passed since. */
  private readonly turns = new Map<string, Promise<void>>();

  constructor(private readonly startedAt: number, private readonly now: () => number = Date.now) {}

  /**
   * Waits for the host's turn; call the returned function once the request has ended (whatever
   * its outcome) so that the host's next redone request may follow a delay later.
   */
  async turn(host: string, delayMs: number): Promise<() => void> {
    const previous = this.turns.get(host);
    let ended!: () => void;
    const mine = new Promise<void>((r) => (ended = r)).then(() => sleep(delayMs));
    this.turns.set(host, mine);
    // Bounded: an entry lives only until its host's last redone request is a delay behind us.
    void mine.then(() => {
      if (this.turns.get(host) === mine) this.turns.delete(host);
    });
    if (previous) await previous;
    else await sleep(this.startedAt + delayMs - this.now());
    return ended;
  }

  /** Hosts with a redone request waiting or in its delay (for tests and gauges). */
  get hosts(): number {
    return this.turns.size;
  }
}
