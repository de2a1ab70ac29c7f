// At most N requests in flight to one server address, for the fetch task that owns the address (the
// resolve stage keys requests by it). Requests over the limit wait in arrival order. (With one key for
// all, the same gate bounds a task's requests on the wire.) A crawl of many hosts keeps thousands of
// requests waiting here, so a waiter is one small object and a signal gets one listener however many
// wait on it.
import { AbortWatch } from './abort-watch.js';

interface Waiter {
  readonly address: string;
  readonly go: (release: (() => void) | undefined) => void;
  readonly signal: AbortSignal;
  done: boolean;
}

export class AddressGate {
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Map<string, Waiter[]>();
  /** An aborted wait is told so; the next release skips it (a place is in flight, so one comes). */
  private readonly aborts = new AbortWatch<Waiter>((w) => w.go(undefined));

  constructor(private readonly limit: number) {}

  /**
   * Resolves when a place is free for `address`; the returned function gives it back (once). Rejects
   * when `signal` aborts first.
   */
  acquire(address: string, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(new Error('abandoned before it asked for the server address'));
    if ((this.inFlight.get(address) ?? 0) < this.limit) return Promise.resolve(this.take(address));
    return new Promise((resolve, reject) => {
      const go = (release: (() => void) | undefined) => (release ? resolve(release) : reject(new Error('abandoned while waiting for the server address')));
      const waiter: Waiter = { address, go, signal, done: false };
      const list = this.waiting.get(address);
      if (list) list.push(waiter);
      else this.waiting.set(address, [waiter]);
      this.aborts.add(waiter);
    });
  }

  /** Addresses with requests in flight, and the most in flight to one of them. */
  get busiest(): number {
    let most = 0;
    for (const n of this.inFlight.values()) most = Math.max(most, n);
    return most;
  }

  private take(address: string): () => void {
    this.inFlight.set(address, (this.inFlight.get(address) ?? 0) + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const n = (this.inFlight.get(address) ?? 1) - 1;
      if (n > 0) this.inFlight.set(address, n);
      else this.inFlight.delete(address);
      this.next(address);
    };
  }

  /** A place came free: the first waiter still waiting takes it. */
  private next(address: string): void {
    const list = this.waiting.get(address);
    if (!list) return;
    let waiter = list.shift();
    while (waiter?.done) waiter = list.shift();
    if (list.length === 0) this.waiting.delete(address);
    if (!waiter) return;
    this.aborts.granted(waiter);
    waiter.go(this.take(address));
  }
}
