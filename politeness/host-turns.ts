// The last guard before a request leaves: within one process, a host's requests go one at a time,
// each at least its host delay after the one before it ended. The scheduler already spaces what it
// releases; this holds when the engine hands the same work over twice: a fetch task that lost its
// commit is opened again and redoes what it had read, while the instance it replaces may still have
// requests waiting. Both share this process's turns, so their requests cannot interleave into a burst.
// One instance per process (crawl services), shared by every fetch task.

import type { Pacing } from './request-pacing.js';

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve());

export class HostTurns {
  /** Per host: settles when the host's latest request has ended and its delay has passed. */
  private readonly turns = new Map<string, Promise<void>>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Waits for the host's turn, and at least until `pacing.notBefore` (epoch ms); call the returned
   * function once the request has ended, whatever its outcome, so that the host's next request may
   * follow `pacing.delayMs` later; with `false` when no request was sent after all (a URL given back),
   * so that the next one need not wait a delay for it.
   */
  async turn(host: string, pacing: Pacing): Promise<(sent?: boolean) => void> {
    const previous = this.turns.get(host);
    let ended!: (sent?: boolean) => void;
    const mine = new Promise<boolean>((r) => (ended = (sent = true) => r(sent))).then((sent) => (sent ? sleep(pacing.delayMs) : undefined));
    this.turns.set(host, mine);
    // Bounded: an entry lives only until its host's last request is a delay behind us.
    void mine.then(() => {
      if (this.turns.get(host) === mine) this.turns.delete(host);
    });
    if (previous) await previous;
    await sleep(pacing.notBefore - this.now());
    return ended;
  }

  /** Hosts with a request in flight or within its delay. */
  get hosts(): number {
    return this.turns.size;
  }
}
