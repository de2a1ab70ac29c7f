// Hostname resolution for the fetcher: cached, de-duplicated, and the ONLY source of addresses that
// sockets connect to. The policy is applied inside the socket's lookup, on the very list the socket then
// dials, so a DNS answer that changes between "check" and "connect" (rebinding) can never slip through.
import { lookup as systemLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import type { NetworkPolicy } from './network-policy.js';

/** Returns every address of a hostname; rejects with an Error carrying a DNS `code` (ENOTFOUND, ...). */
export type Resolver = (hostname: string) => Promise<string[]>;

export class NetworkRefusedError extends Error {
  readonly code = 'ERR_NETWORK_REFUSED';
}

export class DnsLookupError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
  }
}

type Entry = { addresses: string[]; expires: number } | { error: DnsLookupError; expires: number };

const NEGATIVE_CODES = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);
const MAX_ENTRIES = 50_000;

export const systemResolver: Resolver = async (hostname) => {
  const found = await systemLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => a.address);
};

export class DnsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<string[]>>();

  constructor(private readonly ttlMs: number, private readonly resolver: Resolver = systemResolver) {}

  /** Cached addresses of a hostname. @throws DnsLookupError */
  async resolve(hostname: string): Promise<string[]> {
    const key = hostname.toLowerCase();
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) {
      if ('error' in hit) throw hit.error;
      return hit.addresses;
    }
    let p = this.pending.get(key);
    if (!p) {
      p = this.query(key);
      this.pending.set(key, p);
      const clear = () => this.pending.delete(key);
      p.then(clear, clear);
    }
    return p;
  }

  private async query(key: string): Promise<string[]> {
    let addresses: string[];
    try {
      addresses = (await this.resolver(key)).filter((a) => typeof a === 'string' && isIP(a) !== 0);
    } catch (err) {
      const code = String((err as NodeJS.ErrnoException)?.code ?? 'EDNS');
      const error = new DnsLookupError(`${key} did not resolve (${code})`, code);
      // Caching "no such host" spares the resolver a storm from pages full of dead links; temporary
      // failures (EAI_AGAIN, timeouts) are retried on the next request.
      if (NEGATIVE_CODES.has(code)) this.store(key, { error, expires: Date.now() + Math.min(this.ttlMs, 60_000) });
      throw error;
    }
    if (addresses.length === 0) throw new DnsLookupError(`${key} resolved to no addresses (ENODATA)`, 'ENODATA');
    this.store(key, { addresses, expires: Date.now() + this.ttlMs });
    return addresses;
  }

  private store(key: string, entry: Entry): void {
    if (this.ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, entry);
  }
}

/** Splits addresses into those the policy allows (order kept) and the reason the first refused one got. */
export function filterAllowed(addresses: string[], policy: NetworkPolicy): { allowed: string[]; refusal: string } {
  const allowed: string[] = [];
  let refusal = '';
  for (const a of addresses) {
    const v = policy.check(a);
    if (v.allowed) allowed.push(a);
    else if (!refusal) refusal = v.reason;
  }
  return { allowed, refusal };
}

/**
 * A net.connect `lookup` that resolves through the cache and hands the socket only allowed addresses;
 * `pinned` names the address a request was resolved to earlier, which wins over the cache.
 */
export function policyLookup(cache: DnsCache, policy: NetworkPolicy, pinned?: (hostname: string) => string | undefined): LookupFunction {
  return (hostname, options, callback) => {
    const done = callback as (err: Error | null, address?: unknown, family?: number) => void;
    const pin = pinned?.(hostname);
    (pin ? Promise.resolve([pin]) : cache.resolve(hostname)).then(
      (addresses) => {
        const { allowed, refusal } = filterAllowed(addresses, policy);
        const family = options?.family === 4 || options?.family === 6 ? options.family : 0;
        const usable = family ? allowed.filter((a) => isIP(a) === family) : allowed;
        if (usable.length === 0) {
          done(new NetworkRefusedError(refusal || `${hostname} has no allowed IPv${family} address`));
        } else if (options?.all) {
          done(null, usable.map((address) => ({ address, family: isIP(address) })));
        } else {
          done(null, usable[0], isIP(usable[0]));
        }
      },
      (err: Error) => done(err),
    ).catch(() => {
      // A throwing net callback must not become an unhandled rejection; the socket reports its own error.
    });
  };
}

/**
 * `--resolve HOST=IP` (as curl's): names pinned to addresses, the rest through `fallback`. Staging
 * servers and tests with many names on one loopback address need it.
 */
export function pinnedResolver(pins: Record<string, string>, fallback: Resolver = systemResolver): Resolver {
  const table = new Map(Object.entries(pins).map(([host, ip]) => [host.toLowerCase(), ip]));
  return (hostname) => {
    const ip = table.get(hostname.toLowerCase());
    return ip ? Promise.resolve([ip]) : fallback(hostname);
  };
}
