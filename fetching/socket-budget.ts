// Keeps the whole fetcher under one socket limit. undici limits connections per origin only, and a
// crawler talks to thousands of origins whose idle keep-alive sockets would pile up. Two rules make the
// limit hold: at most `max` requests run at once (so busy sockets <= max), and before a new socket opens
// at the limit, an idle socket of the least recently used origin without running requests is closed.
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

type Connector = (opts: ConnectParams, cb: (err: Error | null, socket: Socket | null) => void) => unknown;
interface ConnectParams { hostname: string; protocol: string; port: string; [k: string]: unknown }

interface OriginState {
  sockets: Set<Socket>; running: number; remoteAddress: string;
  /** Why the newest TLS socket's certificate did not verify (Node's code), '' when it did or for plain sockets. */
  tlsProblem: string;
}

export function originKey(protocol: string, hostname: string, port: string): string {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const p = port || (protocol === 'https:' ? '443' : '80');
  return `${protocol}//${host.toLowerCase()}:${p}`;
}

export class SocketBudget {
  private open = 0;
  private running = 0;
  private readonly waiters: Array<{ grant: () => void; fail: (e: Error) => void }> = [];
  // Map order is recency of use: the first entries are the best eviction candidates.
  private readonly origins = new Map<string, OriginState>();
  private closed = false;

  constructor(readonly max: number) {}

  get openSockets(): number {
    return this.open;
  }

  get runningRequests(): number {
    return this.running;
  }

  /** Waits for a request slot. @throws the signal's reason when aborted, or an Error once closed. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (this.closed) return Promise.reject(new Error('fetcher is closed'));
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i !== -1) this.waiters.splice(i, 1);
        reject(new Error('aborted while waiting for a connection slot'));
      };
      const waiter = {
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
    });
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next.grant(); // the slot passes straight to the next waiter
    else this.running = Math.max(0, this.running - 1);
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
    for (const w of this.waiters.splice(0)) w.fail(new Error('fetcher is closed'));
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
    for (const [key, s] of this.origins) {
      if (this.open < this.max) return;
      if (s.running > 0) continue;
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
      s = { sockets: new Set(), running: 0, remoteAddress: '', tlsProblem: '' };
      this.origins.set(key, s);
    }
    return s;
  }

  private forgetIfUnused(key: string, s: OriginState): void {
    if (s.running === 0 && s.sockets.size === 0 && this.origins.get(key) === s) this.origins.delete(key);
  }
}
