// The last guard before a request leaves: within one process, a host's requests go one at a time,
// each at least its host delay after the one before it ended. The scheduler already spaces what it
// releases; this holds when the engine hands the same work over twice: a fetch task that lost its
// commit is opened again and redoes what it had read, while the instance it replaces may still have
// requests waiting. Both share this process's turns, so their requests cannot interleave into a burst.
// One instance per process (crawl services), shared by every fetch task.
//
// Each host is a line of waiters served in the order they asked. A waiter is a small object, not a
// chain of promises: a busy crawl keeps thousands of leased URLs waiting here (a fetch task holds up to
// 4,096), and what each costs while it waits is what a large crawl's heap grows by.

import type { Pacing } from './request-pacing.js';
import { untilPast, waitAtLeast } from './wait-at-least.js';
import { AbortWatch } from './abort-watch.js';

/** Call once the request has ended; `false` when none was sent after all. */
export type TurnEnded = (sent?: boolean) => void;

interface Waiter {
  readonly pacing: Pacing;
  readonly grant: (ended: TurnEnded | undefined) => void;
  readonly signal: AbortSignal | undefined;
  /** Granted or given up: nothing more happens to it. */
  done: boolean;
}

class HostLine {
  readonly waiting: Waiter[] = [];
  /** A waiter holds the host: it waits out the delay before it, or its request is on the wire. */
  held = false;
  /** performance.now() before which the host's next request may not leave. */
  readyAt = 0;

  get idle(): boolean {
    return !this.held && this.waiting.length === 0 && this.readyAt <= performance.now();
  }
}

/** Calls to turn() between two sweeps of idle hosts. */
const SWEEP_EVERY = 4096;

export class HostTurns {
  private readonly lines = new Map<string, HostLine>();
  /** An aborted wait leaves the line (the serving loop skips it) and is told so. */
  private readonly aborts = new AbortWatch<Waiter>((w) => w.grant(undefined));
  private sinceSweep = 0;

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
  turn(host: string, pacing: Pacing): Promise<TurnEnded>;
  turn(host: string, pacing: Pacing, signal: AbortSignal): Promise<TurnEnded | undefined>;
  turn(host: string, pacing: Pacing, signal?: AbortSignal): Promise<TurnEnded | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    if (++this.sinceSweep >= SWEEP_EVERY) this.sweep();
    let line = this.lines.get(host);
    if (!line) this.lines.set(host, (line = new HostLine()));
    const target = line;
    return new Promise((grant) => {
      const waiter: Waiter = { pacing, grant, signal, done: false };
      this.aborts.add(waiter);
      target.waiting.push(waiter);
      if (!target.held) void this.serve(target);
    });
  }

  /** Hosts with a request in flight, waiting, or within its delay. */
  get hosts(): number {
    this.sweep();
    return this.lines.size;
  }

  /** Grants the line's turns one after another until nobody waits. */
  private async serve(line: HostLine): Promise<void> {
    line.held = true;
    try {
      for (let w = line.waiting.shift(); w; w = line.waiting.shift()) {
        if (w.done) continue;
        // A waiter given up while it waits out the delay lets the next one in, who waits the same.
        await waitAtLeast(line.readyAt - performance.now());
        await untilPast(w.pacing.notBefore, this.now);
        if (w.done) continue;
        this.aborts.granted(w);
        const sent = await new Promise<boolean>((ended) => w.grant((s = true) => ended(s)));
        if (sent) line.readyAt = performance.now() + w.pacing.delayMs;
      }
    } finally {
      line.held = false;
    }
  }

  /** Forgets hosts nobody waits for whose last request is a delay behind us: the map stays bounded. */
  private sweep(): void {
    this.sinceSweep = 0;
    for (const [host, line] of this.lines) if (line.idle) this.lines.delete(host);
  }
}
