// Keeps the whole fetcher under one socket limit. undici limits connections per origin only, and a
// crawler talks to thousands of origins whose idle keep-alive sockets would pile up. Two rules make the
// limit hold: at most `max` requests run at once (so busy sockets <= max), and before a new socket opens
// at the limit, an idle socket of the least recently used origin without running requests is closed.
// When requests wait for a slot, one whose origin has an idle socket goes first (it opens nothing and
// evicts nothing): with more origins in turn than sockets, first come first served had every request
// close one origin's socket to dial another's (a 2,000-host crawl spent ~0.25 ms a page connecting).
// Politeness is not the budget's: host turns and the address gate are taken before a slot is asked for.
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

type Connector = (opts: ConnectParams, cb: (err: Error | null, socket: Socket | null) => void) => unknown;
interface ConnectParams { hostname: string; protocol: string; port: string; [k: string]: unknown }

interface OriginState {
  sockets: Set<Socket>; running: number; remoteAddress: string;
  /** Waiters in the warm line for this origin: no more than its idle sockets. */
  warm: number;
  /** Why the newest TLS socket's certificate did not verify (Node's code), '' when it did or for plain sockets. */
  tlsProblem: string;
}

export function originKey(protocol: string, hostname: string, port: string): string {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const p = port || (protocol === 'https:' ? '443' : '80');
  return `${protocol}//${host.toLowerCase()}:${p}`;
}

interface Waiter {
  readonly key: string;
  readonly grant: () => void;
  readonly fail: (e: Error) => void;
  /** When it started waiting (performance.now()), for the fairness bound. */
  readonly since: number;
  /** Granted, failed or aborted: skipped where it still sits in a line. */
  done: boolean;
  /** The origin whose idle socket it waits in the warm line for. */
  warmFor?: OriginState;
}

/**
 * A request whose origin has a warm socket goes before the first waiter in line only while that one has
 * waited less than this: origins without a socket wait at most about this long beyond their turn.
 */
export const WARM_FIRST_MS = 10_000;

export class SocketBudget {
  private open = 0;
  private running = 0;
  /** Requests waiting for a slot, in arrival order. */
  private readonly waiters: Waiter[] = [];
  /** Waiters whose origin had an idle socket when they asked or since: they go first (WARM_FIRST_MS). */
  private readonly warm: Waiter[] = [];
  /** Waiters by origin, to move them to `warm` when their origin's socket comes free. */
  private readonly waitingFor = new Map<string, Waiter[]>();
  // Map order is recency of use: the first entries are the best eviction candidates.
  private readonly origins = new Map<string, OriginState>();
  private closed = false;

  /** @param clock milliseconds, monotonic (tests pass their own) */
  constructor(readonly max: number, private readonly clock: () => number = () => performance.now()) {}

  get openSockets(): number {
    return this.open;
  }

  get runningRequests(): number {
    return this.running;
  }

  /**
   * Waits for a request slot for a request to `key` (originKey).
   * @throws the signal's reason when aborted, or an Error once closed.
   */
  acquire(key: string, signal?: AbortSignal): Promise<void> {
    if (this.closed) return Promise.reject(new Error('fetcher is closed'));
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (waiter.done) return;
        waiter.done = true;
        this.forgetWaiter(waiter);
        reject(new Error('aborted while waiting for a connection slot'));
      };
      const waiter: Waiter = {
        key,
        since: this.clock(),
        done: false,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        fail: (e: Error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      const origin = this.origins.get(key);
      if (origin && this.spareSockets(origin) > 0) this.makeWarm(waiter, origin);
      else {
        const list = this.waitingFor.get(key);
        if (list) list.push(waiter);
        else this.waitingFor.set(key, [waiter]);
      }
    });
  }

  release(): void {
    const next = this.nextWaiter();
    if (next) {
      next.done = true;
      this.forgetWaiter(next);
      next.grant(); // the slot passes straight to the next waiter
    } else {
      this.running = Math.max(0, this.running - 1);
    }
  }

  /** The first waiter with a warm socket, unless the first in line has waited too long; else the first in line. */
  private nextWaiter(): Waiter | undefined {
    while (this.waiters.length && this.waiters[0].done) this.waiters.shift();
    while (this.warm.length && this.warm[0].done) this.warm.shift();
    const first = this.waiters[0];
    const warm = this.warm[0];
    if (warm && first && this.clock() - first.since < WARM_FIRST_MS) return warm;
    return first;
  }

  private forgetWaiter(w: Waiter): void {
    if (w.warmFor) {
      w.warmFor.warm--;
      w.warmFor = undefined;
      return;
    }
    const list = this.waitingFor.get(w.key);
    if (!list) return;
    const i = list.indexOf(w);
    if (i !== -1) list.splice(i, 1);
    if (list.length === 0) this.waitingFor.delete(w.key);
  }

  /** Idle sockets of the origin that no waiter in the warm line counts on yet. */
  private spareSockets(s: OriginState): number {
    return s.sockets.size - s.running - s.warm;
  }

  private makeWarm(w: Waiter, s: OriginState): void {
    w.warmFor = s;
    s.warm++;
    this.warm.push(w);
  }

  /** Marks a request to an origin as running; its sockets are then never evicted. */
  begin(key: string): void {
    const s = this.state(key);
    s.running++;
    this.origins.delete(key);
    this.origins.set(key, s);
  }

  end(key: string): void {
    const s = this.origins.get(key);
    if (!s) return;
    s.running = Math.max(0, s.running - 1);
    // Its socket is idle now: as many requests to the origin as it has idle sockets need not dial.
    const waiting = this.waitingFor.get(key);
    while (waiting?.length && this.spareSockets(s) > 0) {
      const w = waiting.shift()!;
      if (!w.done) this.makeWarm(w, s);
    }
    if (waiting?.length === 0) this.waitingFor.delete(key);
    this.forgetIfUnused(key, s);
  }

  remoteAddress(key: string): string {
    return this.origins.get(key)?.remoteAddress ?? '';
  }

  tlsProblem(key: string): string {
    return this.origins.get(key)?.tlsProblem ?? '';
  }

  close(): void {
    this.closed = true;
    this.warm.length = 0;
    this.waitingFor.clear();
    for (const w of this.waiters.splice(0)) {
      if (w.done) continue;
      w.done = true;
      w.fail(new Error('fetcher is closed'));
    }
  }

  /** Wraps an undici connector so every socket is counted and the limit is enforced before dialing. */
  wrap(connector: Connector): Connector {
    return (opts, cb) => {
      const key = originKey(opts.protocol, opts.hostname, opts.port);
      this.makeRoom();
      this.open++;
      return connector(opts, (err, socket) => {
        if (err || !socket) {
          this.open--;
          cb(err ?? new Error('connector returned no socket'), null);
          return;
        }
        const s = this.state(key);
        s.sockets.add(socket);
        s.remoteAddress = socket.remoteAddress ?? s.remoteAddress;
        const tls = socket as Partial<TLSSocket>;
        s.tlsProblem = tls.encrypted && tls.authorized === false ? String(tls.authorizationError ?? 'UNKNOWN') : '';
        socket.once('close', () => {
          if (s.sockets.delete(socket)) this.open--;
          this.forgetIfUnused(key, s);
        });
        cb(null, socket);
      });
    };
  }

  private makeRoom(): void {
    // Sockets a waiter counts on go last.
    this.evictIdle(false);
    this.evictIdle(true);
  }

  private evictIdle(evenWarm: boolean): void {
    for (const [key, s] of this.origins) {
      if (this.open < this.max) return;
      if (s.running > 0 || (s.warm > 0 && !evenWarm)) continue;
      for (const socket of s.sockets) {
        s.sockets.delete(socket);
        this.open--;
        socket.destroy();
        if (this.open < this.max) break;
      }
      this.forgetIfUnused(key, s);
    }
  }

  private state(key: string): OriginState {
    let s = this.origins.get(key);
    if (!s) {
      s = { sockets: new Set(), running: 0, remoteAddress: '', tlsProblem: '', warm: 0 };
      this.origins.set(key, s);
    }
    return s;
  }

  private forgetIfUnused(key: string, s: OriginState): void {
    if (s.running === 0 && s.sockets.size === 0 && this.origins.get(key) === s) this.origins.delete(key);
  }
}
