// One HTTP GET per call, for the crawler's fetch stage. The fetcher is a guest on hostile servers: it
// never throws, never follows redirects, and every limit (time, bytes on the wire, bytes after
// decompression, sockets, destinations) is enforced here rather than trusted to the server.
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { guardConnector } from './connection-guard.js';
import { DnsCache, DnsLookupError, filterAllowed, policyLookup } from './dns-cache.js';
import { NetworkPolicy } from './network-policy.js';
import { ResponseCollector, type ErrorKind } from './response-collector.js';
import { parseContentType, resolveLocation } from './response-head.js';
import { parseRetryAfter } from './retry-after.js';
import { SocketBudget, originKey } from './socket-budget.js';
import { describeCertificateProblem, parseCaPem, tlsConnectOptions, type TargetTlsOptions, type TlsOptions } from './tls-policy.js';
import { proxyName, type ProxyEndpoint, type ProxyRoute } from './proxy-route.js';
import { failure, type FetcherOptions, type FetchInit, type FetchOutcome } from './fetch-outcome.js';
import { ProxyAgents, proxyVerdict } from './proxy-dispatch.js';

export type { ErrorKind } from './response-collector.js';
export type { FetcherOptions, FetchInit, FetchOutcome } from './fetch-outcome.js';

export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
const ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function positive(name: string, value: number | undefined, fallback?: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new Error(`FetcherOptions.${name} must be a positive number of ${name.endsWith('Ms') ? 'ms' : 'units'}, got ${value}`);
  }
  return Math.floor(v);
}

/** Sockets one fetcher keeps open at most (and requests it runs at once). */
export const DEFAULT_MAX_CONNECTIONS = 256;

export class HttpFetcher {
  private readonly userAgent: string;
  private readonly connectTimeoutMs: number;
  private readonly headersTimeoutMs: number;
  private readonly totalTimeoutMs: number;
  private readonly maxBodyBytes: number;
  private readonly policy: NetworkPolicy;
  private readonly dns: DnsCache;
  private readonly budget: SocketBudget;
  private readonly agent: Agent;
  private readonly tlsSettings: TlsOptions;
  private tlsOptions: TargetTlsOptions | undefined;
  private readonly recordTls: boolean;
  private readonly proxy: ProxyRoute | undefined;
  private readonly proxyAgents: ProxyAgents;
  private closed = false;
  /** Hostname → the address its current request was resolved to (FetchInit.address). */
  private readonly pins = new Map<string, string>();

  /** @throws Error on invalid options, e.g. a malformed CIDR in allowNetworks. */
  constructor(options: FetcherOptions) {
    this.userAgent = String(options.userAgent ?? '').trim();
    if (!this.userAgent || /[\r\n]/.test(this.userAgent)) throw new Error('FetcherOptions.userAgent must be a one-line, non-empty string');
    this.connectTimeoutMs = positive('connectTimeoutMs', options.connectTimeoutMs);
    this.headersTimeoutMs = positive('headersTimeoutMs', options.headersTimeoutMs);
    this.totalTimeoutMs = positive('totalTimeoutMs', options.totalTimeoutMs);
    this.maxBodyBytes = positive('maxBodyBytes', options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES);
    const maxConnections = positive('maxConnections', options.maxConnections, DEFAULT_MAX_CONNECTIONS);
    this.policy = new NetworkPolicy(options.allowNetworks ?? []);
    this.dns = new DnsCache(options.dnsCacheMs ?? 5 * 60_000, options.resolve);
    this.budget = new SocketBudget(maxConnections);
    this.tlsSettings = options.tls ?? { verify: 'on', ca: '' };
    if (this.tlsSettings.ca) parseCaPem(this.tlsSettings.ca); // a bad CA is an error now, not at the first https URL
    this.recordTls = this.tlsSettings.verify === 'record';
    this.proxy = options.proxy?.active ? options.proxy : undefined;
    const lookup = policyLookup(this.dns, this.policy, (hostname) => this.pins.get(hostname.toLowerCase()));
    // The pinned address is the one dialled (lookup); TLS then runs on that socket with SNI and the
    // certificate check carrying the URL's host name.
    const plain = buildConnector({ timeout: this.connectTimeoutMs, lookup });
    let secure: typeof plain | undefined;
    // The TLS context (Node's ~140 roots parsed) is made at the first https connection: a crawl of
    // http sites never pays for it.
    const connector: typeof plain = (opts, cb) => opts.protocol === 'https:'
      ? (secure ??= buildConnector({ timeout: this.connectTimeoutMs, lookup, ...this.tls() }))(opts, cb)
      : plain(opts, cb);
    this.agent = this.makeAgent(connector as never, maxConnections);
    this.proxyAgents = new ProxyAgents((c) => this.makeAgent(c as never, maxConnections), this.connectTimeoutMs, () => this.tls());
  }

  private tls(): TargetTlsOptions {
    return (this.tlsOptions ??= tlsConnectOptions(this.tlsSettings));
  }

  private makeAgent(connector: Parameters<typeof guardConnector>[0], maxConnections: number): Agent {
    return new Agent({
      connect: this.budget.wrap(guardConnector(connector) as never) as never,
      connections: maxConnections, // per origin; the budget keeps the total under the same number
      pipelining: 1,
      headersTimeout: this.headersTimeoutMs,
      bodyTimeout: this.totalTimeoutMs,
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
    });
  }

  /** Never throws, never follows redirects (the crawler re-schedules each hop itself). */
  async fetch(url: string, init?: FetchInit): Promise<FetchOutcome> {
    const startedAt = Date.now();
    const t0 = performance.now();
    try {
      return await this.run(url, init ?? {}, startedAt, t0);
    } catch (err) {
      return failure(startedAt, t0, 'protocol', `internal error while fetching: ${(err as Error)?.message ?? err}`);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.budget.close();
    await this.agent.close();
    await this.proxyAgents.close();
  }

  private async run(
    rawUrl: string,
    init: FetchInit,
    queuedAt: number,
    queuedT0: number,
  ): Promise<FetchOutcome> {
    let url: URL;
    try {
      url = new URL(String(rawUrl));
    } catch {
      return failure(queuedAt, queuedT0, 'protocol', `invalid URL "${String(rawUrl).slice(0, 200)}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return failure(queuedAt, queuedT0, 'protocol', `unsupported scheme "${url.protocol}" (only http and https are fetched)`);
    }
    const signal = init.signal;
    const cap = init.maxBodyBytes;
    if (cap !== undefined && !(Number.isSafeInteger(cap) && cap > 0)) {
      return failure(queuedAt, queuedT0, 'protocol', `maxBodyBytes must be a positive integer, got ${cap}`);
    }
    if (init.bodySink !== undefined && typeof init.bodySink !== 'function') {
      return failure(queuedAt, queuedT0, 'protocol', 'bodySink must be a function');
    }
    if (this.closed) return failure(queuedAt, queuedT0, 'aborted', 'the fetcher was closed');
    if (signal?.aborted) return failure(queuedAt, queuedT0, 'aborted', 'request aborted by the caller before it started');
    const proxy = this.proxy?.proxyFor(url);
    // Forwarded requests share the proxy's sockets: the budget counts them under the proxy's origin.
    const forwarded = proxy !== undefined && url.protocol === 'http:';
    const key = forwarded ? originKey(proxy.url.protocol, proxy.url.hostname, proxy.url.port) : originKey(url.protocol, url.hostname, url.port);
    try {
      await this.budget.acquire(key, signal);
    } catch (err) {
      return failure(queuedAt, queuedT0, 'aborted', this.closed ? 'the fetcher was closed' : (err as Error).message);
    }
    // Time spent queued for a slot is not the server's fault: the request's clock starts now.
    const startedAt = Date.now();
    const t0 = performance.now();
    this.budget.begin(key);
    let settled: Promise<void> = Promise.resolve();
    try {
      const r = await this.exchange(url, init, startedAt, t0, key, proxy);
      settled = r.settled;
      return r.outcome;
    } finally {
      // The slot is only free once undici has let go of the socket, not when the caller got its answer.
      let released = false;
      // The socket counts as idle at once (it may be closed to make room); the slot passes on a turn
      // of the event loop later, when the host's next request, started as this answer is read, is
      // waiting for it with the socket this one left (SocketBudget's warm line).
      const release = () => {
        if (released) return;
        released = true;
        this.budget.end(key);
        setImmediate(() => this.budget.release());
      };
      const backstop = setTimeout(release, this.connectTimeoutMs + this.totalTimeoutMs);
      void settled.then(() => {
        clearTimeout(backstop);
        release();
      });
      backstop.unref();
    }
  }

  private async exchange(
    url: URL,
    init: FetchInit,
    startedAt: number,
    t0: number,
    key: string,
    proxy: ProxyEndpoint | undefined,
  ): Promise<{ outcome: FetchOutcome; settled: Promise<void> }> {
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    const target = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
    const collector = new ResponseCollector({
      maxBodyBytes: init.maxBodyBytes ?? this.maxBodyBytes,
      bodySink: init.bodySink,
      // Hashing an 18 KB page costs ~13 µs, 6-11 % of a buffered fetch's CPU (fetcher-bench): a kept
      // body can be hashed by whoever needs it; a streamed one cannot, so only streams are hashed here.
      sha1: init.bodySink !== undefined,
      startedAt: t0,
      describeTarget: proxy ? `${target} through the proxy ${proxyName(proxy)}` : target,
      connectTimeoutMs: this.connectTimeoutMs,
      headersTimeoutMs: this.headersTimeoutMs,
      https: url.protocol === 'https:',
    });
    const phase = () => (collector.responseStarted ? 'while reading the body' : 'before a response arrived');
    const timer = setTimeout(
      () => collector.stop('timeout', `request exceeded the ${this.totalTimeoutMs} ms total timeout ${phase()}`),
      this.totalTimeoutMs,
    );
    const onAbort = () => collector.stop('aborted', `request aborted by the caller after ${Math.round(performance.now() - t0)} ms ${phase()}`);
    init.signal?.addEventListener('abort', onAbort, { once: true });
    if (init.signal?.aborted) onAbort(); // aborted while this request waited for its slot
    let checkedAddress = '';
    let dispatched = false;
    let sent: [string, string][] = [];
    try {
      if (init.address) this.pins.set(host.toLowerCase(), init.address);
      else this.pins.delete(host.toLowerCase());
      const checked = init.address ? this.checkAddresses([init.address]) : await this.checkDestination(host, collector, proxy !== undefined);
      if ('kind' in checked) collector.stop(checked.kind, checked.message);
      else if (!collector.isDecided) {
        checkedAddress = checked.address;
        dispatched = true;
        sent = this.dispatch(url, init.headers, collector, proxy);
      }
      const c = await collector.result;
      // undici frees a keep-alive socket for the next request in a setImmediate after the response
      // ends; returning after it lets the caller's next request to this origin reuse the socket.
      await new Promise((r) => setImmediate(r));
      const head = c.head;
      const { contentType, charset } = parseContentType(head?.first('content-type'));
      let { errorKind, error } = c;
      let status = c.status;
      if (proxy) ({ status, errorKind, error } = proxyVerdict(proxy, url, c, head));
      if (status === 0 && c.status > 0) {
        // The proxy answered in the target's place: no response of the target to record.
        return { outcome: { ...failure(startedAt, t0, errorKind, error.slice(error.indexOf(':') + 1).trim()), requestHeaders: sent }, settled: collector.settled };
      }
      // Decided by the collector, before the redirect check below (which finds a whole body wanting).
      const incomplete = c.status > 0 && c.errorKind !== '';
      let location = c.status >= 300 && c.status < 400 ? resolveLocation(head?.first('location'), url) : '';
      if (!errorKind && REDIRECTS.has(c.status) && !location) {
        errorKind = 'protocol';
        error = `protocol: ${c.status} redirect without a usable Location header`;
        location = '';
      }
      const tlsCode = status > 0 && this.recordTls && url.protocol === 'https:' ? this.budget.tlsProblem(key) : '';
      const outcome: FetchOutcome = {
        status,
        error,
        errorKind,
        headers: head ? head.headers : {},
        body: c.body,
        bytes: c.bytes,
        wireBytes: c.wireBytes,
        truncated: c.truncated,
        sha1: c.sha1,
        contentType,
        charset,
        startedAt,
        elapsedMs: Math.round(performance.now() - t0),
        ttfbMs: Math.round(c.ttfbMs),
        remoteAddress: status > 0 ? this.budget.remoteAddress(key) || checkedAddress : '',
        location,
        retryAfterMs: parseRetryAfter(head?.first('retry-after'), Date.now()),
        method: 'GET',
        requestHeaders: sent,
        httpVersion: status > 0 ? '1.1' : '',
        statusText: c.statusText,
        responseHeaders: c.rawHeaders,
        incomplete,
        tlsProblem: tlsCode ? describeCertificateProblem(tlsCode) : '',
      };
      // Requests that never reached undici (refused, DNS failure) hold no socket: free their slot now.
      return { outcome, settled: dispatched ? collector.settled : Promise.resolve() };
    } finally {
      clearTimeout(timer);
      init.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Applies the network policy before any socket exists; the socket's own lookup checks again. */
  private async checkDestination(
    host: string,
    collector: ResponseCollector,
    proxied = false,
  ): Promise<{ kind: ErrorKind; message: string } | { address: string }> {
    let addresses: string[];
    if (isIP(host)) {
      addresses = [host];
    } else {
      let timer: NodeJS.Timeout | undefined;
      const slow = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new DnsLookupError(
          `lookup of ${host} took longer than ${this.connectTimeoutMs} ms`, 'ETIMEOUT')), this.connectTimeoutMs);
      });
      try {
        addresses = await Promise.race([this.dns.resolve(host), slow, collector.result.then(() => [])]);
      } catch (err) {
        // Behind a proxy, a name local DNS does not know is the proxy's to resolve (and to police).
        if (proxied) return { address: '' };
        return { kind: 'dns', message: (err as Error).message };
      } finally {
        clearTimeout(timer);
      }
      if (addresses.length === 0) return { address: '' }; // decided (timeout or abort) while resolving
    }
    return this.checkAddresses(addresses);
  }

  private checkAddresses(addresses: string[]): { kind: ErrorKind; message: string } | { address: string } {
    const { allowed, refusal } = filterAllowed(addresses, this.policy);
    if (allowed.length === 0) return { kind: 'network-refused', message: refusal };
    return { address: allowed[0] };
  }

  /**
   * The address a request to `hostname` would connect to, under the network policy: what the crawl's
   * resolve stage keys requests by, so that hosts on one server share its limit. Never throws.
   */
  async resolveAddress(hostname: string, url?: string): Promise<{ address: string; key?: string } | { kind: ErrorKind; message: string }> {
    const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
    if (isIP(host)) return this.checkAddresses([host]);
    let proxied = false;
    try {
      proxied = url !== undefined && this.proxy?.proxyFor(new URL(url)) !== undefined;
    } catch {
      // an unparsable URL fails at fetch time, with its reason
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      const addresses = await Promise.race([
        this.dns.resolve(host),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`lookup of ${host} took longer than ${this.connectTimeoutMs} ms`)), this.connectTimeoutMs);
        }),
      ]);
      return this.checkAddresses(addresses);
    } catch (err) {
      // Behind a proxy the server's address is unknown here: requests are grouped by host name instead.
      if (proxied) return { address: '', key: `${host.toLowerCase()} (through the proxy)` };
      return { kind: 'dns', message: (err as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Returns the header lines sent, as undici writes them: host first, then ours in order (its own hop-by-hop Connection aside). */
  private dispatch(url: URL, extra: Record<string, string> | undefined, collector: ResponseCollector, proxy: ProxyEndpoint | undefined): [string, string][] {
    const headers: Record<string, string> = {
      'user-agent': this.userAgent,
      accept: ACCEPT,
      'accept-encoding': 'gzip, deflate, br',
    };
    if (extra) for (const [k, v] of Object.entries(extra)) headers[String(k).toLowerCase()] = String(v);
    const route = proxy ? this.proxyAgents.route(proxy, url, headers) : { agent: this.agent, origin: url.origin, path: url.pathname + url.search, headers };
    try {
      route.agent.dispatch({
        origin: route.origin,
        path: route.path,
        method: 'GET',
        headers: route.headers,
        headersTimeout: this.headersTimeoutMs,
        bodyTimeout: this.totalTimeoutMs,
      }, collector);
    } catch (err) {
      collector.onResponseError(undefined, err as Error);
    }
    // What the origin server sees (a WARC request record): the proxy's own header stays out.
    return [['host', url.host], ...Object.entries(headers)];
  }
}
