// At most N requests in flight to one server address, for the fetch task that owns the address (the
// resolve stage keys requests by it). Requests over the limit wait in arrival order. (With one key for
// all, the same gate bounds a task's requests on the wire.)
export class AddressGate {
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly limit: number) {}

  /** Resolves when a place is free for `address`; the returned function gives it back (once). */
  async acquire(address: string, signal: AbortSignal): Promise<() => void> {
    if ((this.inFlight.get(address) ?? 0) >= this.limit) {
      await new Promise<void>((resolve, reject) => {
        const list = this.waiting.get(address) ?? [];
        const go = () => {
          signal.removeEventListener('abort', stop);
          resolve();
        };
        const stop = () => {
          const i = list.indexOf(go);
          if (i >= 0) list.splice(i, 1);
          reject(new Error('abandoned while waiting for the server address'));
        };
        signal.addEventListener('abort', stop, { once: true });
        list.push(go);
        this.waiting.set(address, list);
      });
    }
    this.inFlight.set(address, (this.inFlight.get(address) ?? 0) + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const n = (this.inFlight.get(address) ?? 1) - 1;
      if (n > 0) this.inFlight.set(address, n);
      else this.inFlight.delete(address);
      const next = this.waiting.get(address)?.shift();
      if (this.waiting.get(address)?.length === 0) this.waiting.delete(address);
      next?.();
    };
  }

  /** Addresses with requests in flight, and the most in flight to one of them. */
  get busiest(): number {
    let most = 0;
    for (const n of this.inFlight.values()) most = Math.max(most, n);
    return most;
  }
}
