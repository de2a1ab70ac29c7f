// What a fetch is given and what it gives back: the fetcher's options, a request's options and the
// outcome, every field a recorded fact (fetches rows, WARC records).
import type { ErrorKind } from './response-collector.js';
import type { Resolver } from './dns-cache.js';
import type { TlsOptions } from './tls-policy.js';
import type { ProxyRoute } from './proxy-route.js';

export interface FetcherOptions {
  userAgent: string;
  connectTimeoutMs: number; headersTimeoutMs: number; totalTimeoutMs: number; // total = whole request incl. body
  maxBodyBytes: number;          // applied to bytes on the wire AND again after decompression (default 10 MiB)
  allowNetworks: string[];       // CIDRs opened despite the private/loopback/link-local refusal
  maxConnections?: number;       // total sockets (default 256); keep-alive reuse per origin
  dnsCacheMs?: number;           // default 5 minutes
  /** Replaces system DNS (tests, synthetic webs); its answers still go through the network policy. */
  resolve?: Resolver;
  /** Certificate checks (default: refuse bad certificates, Node's bundled roots). */
  tls?: TlsOptions;
  /** Which requests go through a proxy (--proxy, HTTPS_PROXY, HTTP_PROXY, NO_PROXY). */
  proxy?: ProxyRoute;
}

export interface FetchInit {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** This request's cap on wire bytes and on decoded bytes, instead of FetcherOptions.maxBodyBytes. */
  maxBodyBytes?: number;
  /**
   * The address to connect to, as resolved earlier (the crawl's resolve stage, which limits requests
   * per address): the policy still checks it, and no other DNS answer is used for this request.
   */
  address?: string;
  /**
   * Streaming mode: decoded (decompressed) chunks are handed over as they arrive, in order, and never
   * after fetch() resolved; outcome.body stays empty while outcome.bytes still counts them. A sink that
   * throws ends the request with error kind 'sink'. A sink that returns false has read all it takes:
   * the request ends there, truncated (error kind 'body-too-large'), and the rest is not downloaded.
   */
  bodySink?: (chunk: Buffer) => unknown;
}

export interface FetchOutcome {
  status: number;                // 0 when no response was received
  error: string;                 // '' on success, else '<kind>: <what happened, with numbers>'
  errorKind: ErrorKind;
  headers: Record<string, string>;  // lowercased names; at most 64 headers, values capped at 2 KB
  body: Buffer;                  // decoded (decompressed) body, at most maxBodyBytes; partial bodies are kept; empty with a bodySink
  bytes: number;                 // decoded bytes, kept in body or handed to the bodySink
  wireBytes: number;
  truncated: boolean;            // cut at our own size cap (errorKind body-too-large or decompression-bomb) only
  sha1: string;                  // with a bodySink: hex SHA-1 of the `bytes` decoded bytes handed over; '' without a sink or a response
  contentType: string;           // media type only, lowercased, e.g. 'text/html'
  charset: string;               // from Content-Type header only ('' if none)
  startedAt: number;             // epoch ms when the request started
  elapsedMs: number; ttfbMs: number;
  remoteAddress: string;
  location: string;              // absolute, resolved against the URL, for 3xx; '' otherwise
  retryAfterMs: number;          // parsed Retry-After for any status, 0 if absent/invalid
  /** What an archive needs to write the exchange back faithfully (WARC). */
  method: string;
  requestHeaders: [string, string][];   // as sent, in order, host first ('' lists before dispatch)
  httpVersion: string;           // '1.1' once a response arrived (undici hides a 1.0 server's minor version), else ''
  statusText: string;            // reason phrase as received
  responseHeaders: [string, string][];  // as received: order, case, repeats
  /** A response arrived but its body is not whole (our caps, a timeout, a reset, an abort, undecodable). */
  incomplete: boolean;
  /** With --tls-verify record: why the server's certificate would have been refused ('' when it verified, or not TLS). */
  tlsProblem: string;
}

/** An outcome without a response: nothing reached the server, or nothing came back. */
export function failure(startedAt: number, t0: number, kind: ErrorKind, message: string): FetchOutcome {
  return {
    status: 0, error: `${kind}: ${message}`, errorKind: kind, headers: {}, body: Buffer.alloc(0), bytes: 0, wireBytes: 0,
    truncated: false, sha1: '', contentType: '', charset: '', startedAt, elapsedMs: Math.round(performance.now() - t0), ttfbMs: 0,
    remoteAddress: '', location: '', retryAfterMs: 0, method: 'GET', requestHeaders: [], httpVersion: '', statusText: '', responseHeaders: [],
    incomplete: false, tlsProblem: '',
  };
}
