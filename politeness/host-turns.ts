// The last guard before a request leaves: within one process, a host's requests go one at a time,
// each at least its host delay after the one before it ended. The scheduler already spaces what it
// releases; this holds when the engine hands the same work over twice: a fetch task that lost its
// commit is opened again and redoes what it had read, while the instance it replaces may still have
// requests waiting. Both share this process's turns, so their requests cannot interleave into a burst.
// One instance per process (crawl services), shared by every fetch task.

import type { Pacing } from './request-pacing.js';
import { untilPast, waitAtLeast } from './wait-at-least.js';

/** Resolves when `p` does, or when `signal` aborts: true when it was aborted. */
function orAborted(p: Promise<unknown>, signal: AbortSignal | undefined): Promise<boolean> {
  if (!signal) return p.then(() => false);
  if (signal.aborted) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const stop = () => resolve(true);
    signal.addEventListener('abort', stop, { once: true });
    void p.then(() => {
      signal.removeEventListener('abort', stop);
      resolve(false);
    });
  });
}

export class HostTurns {
  /** Per host: settles when the host's latest request has ended and its delay has passed. */
  private readonly turns = new Map<string, Promise<void>>();

  /** @param now the clock a pacing's notBefore is read on */
  constructor(readonly now: () => number = Date.now) {}

  /**
   * Waits for the host's turn, and at least until `pacing.notBefore` (epoch ms); call the returned
   * function once the request has ended, whatever its outcome, so that the host's next request may
   * follow `pacing.delayMs` later; with `false` when no request was sent after all (a URL given back),
   * so that the next one need not wait a delay for it. Undefined when `signal` aborted the wait (a
   * task handing its work over): the turn is given up, and the host's next request still waits for
   * every one before this.
   */
  turn(host: string, pacing: Pacing): Promise<(sent?: boolean) => void>;
  turn(host: string, pacing: Pacing, signal: AbortSignal): Promise<((sent?: boolean) => void) | undefined>;
  async turn(host: string, pacing: Pacing, signal?: AbortSignal): Promise<((sent?: boolean) => void) | undefined> {
    const previous = this.turns.get(host) ?? Promise.resolve();
    let ended!: (sent?: boolean) => void;
    const own = new Promise<boolean>((r) => (ended = (sent = true) => r(sent)));
    // After the turns before it, whenever this one ends: a turn given up early never lets the next
    // request overtake one still on the wire.
    const mine = Promise.all([previous, own]).then(([, sent]) => (sent ? waitAtLeast(pacing.delayMs) : undefined));
    this.turns.set(host, mine);
    // Bounded: an entry lives only until its host's last request is a delay behind us.
    void mine.then(() => {
      if (this.turns.get(host) === mine) this.turns.delete(host);
    });
    if ((await orAborted(previous, signal)) || (await orAborted(untilPast(pacing.notBefore, this.now), signal))) {
      ended(false);
      return undefined;
    }
    return ended;
  }

  /** Hosts with a request in flight or within its delay. */
  get hosts(): number {
    return this.turns.size;
  }
}
