// URL canonicalization for the normalize stage: one canonical string per resource, so that the
// seen-set can deduplicate and session ids or tracking parameters cannot mint endless "new" URLs.
// The WHATWG parser does the heavy lifting (IDNA, IPv4/IPv6 literals, dot segments, default ports);
// this module adds what it leaves alone: escape normalization, parameter filtering and sorting.
import { normalizeEscapes } from './escapes.js';
import { isSessionParam, isTrackingParam } from './params.js';

export type RejectReason = 'malformed' | 'unsupported-scheme' | 'too-long' | 'bad-host' | 'credentials';
export type Canonical = { ok: true; url: string; host: string } | { ok: false; reason: RejectReason; detail: string };

export interface CanonicalizeOptions {
  /** Resolves relative references; must itself be an absolute URL. */
  base?: string;
  /** Cap on the canonical URL, in UTF-16 code units (all ASCII after canonicalization). Default 2048. */
  maxLength?: number;
}

const DEFAULT_MAX_LENGTH = 2048;
/**
 * Raw input is refused before parsing when longer than this many times the cap: the parser's cost
 * grows with the input, and a link that long cannot shrink below the cap by losing tracking
 * parameters in any realistic page.
 */
const RAW_LENGTH_FACTOR = 4;
const MIN_RAW_LIMIT = 8192;
const MAX_HOST_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;

/** ASP.NET cookieless session segment, e.g. "(S(lit3py55t21z5v55vlm25s55))". */
const ASPNET_SESSION_SEGMENT = /^\((?:[A-Za-z]\([A-Za-z0-9]+\))+\)$/;

/** Drops session-id path parameters (";jsessionid=…") and ASP.NET cookieless session segments. */
function stripPathSessions(path: string): string {
  if (path.indexOf(';') < 0 && path.indexOf('(') < 0) return path;
  const segments = path.split('/');
  const kept: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    let seg = segments[i];
    // A "." or ".." segment with parameters is not a dot segment to the URL parser; without them it
    // would be, and the next canonicalization would resolve it: such a segment keeps its parameters.
    if (seg.indexOf(';') >= 0) {
      const parts = seg.split(';');
      let kept = parts[0];
      for (let j = 1; j < parts.length; j++) {
        const eq = parts[j].indexOf('=');
        const name = eq < 0 ? parts[j] : parts[j].slice(0, eq);
        if (!isSessionParam(name.toLowerCase())) kept += ';' + parts[j];
      }
      if (kept !== '.' && kept !== '..') seg = kept;
    }
    // Tested after the path parameters are gone: "(S(x));jsessionid=1" must not become a segment that
    // only the next canonicalization would drop.
    if (i > 0 && ASPNET_SESSION_SEGMENT.test(seg)) continue;
    kept.push(seg);
  }
  const joined = kept.join('/');
  return joined === '' ? '/' : joined;
}

/** Filters, normalizes and sorts query parameters. Returns '' or a string starting with '?'. */
function canonicalQuery(search: string): string {
  if (search.length <= 1) return '';
  const pieces = search.slice(1).split('&');
  const kept: { name: string; piece: string }[] = [];
  for (const raw of pieces) {
    if (raw === '') continue;
    const piece = normalizeEscapes(raw);
    const eq = piece.indexOf('=');
    const name = eq < 0 ? piece : piece.slice(0, eq);
    const lower = name.toLowerCase();
    if (isTrackingParam(lower) || isSessionParam(lower)) continue;
    kept.push({ name, piece });
  }
  if (kept.length === 0) return '';
  if (kept.length > 1) {
    // Array.prototype.sort is stable, so repeated names keep their relative order (a=2&a=1 differs from a=1&a=2).
    kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  let out = '?' + kept[0].piece;
  for (let i = 1; i < kept.length; i++) out += '&' + kept[i].piece;
  return out;
}

function reject(reason: RejectReason, detail: string): Canonical {
  return { ok: false, reason, detail };
}

/** Returns a reason when the (WHATWG-parsed, lowercased, punycoded) hostname cannot be crawled. */
function hostProblem(hostname: string): string | undefined {
  if (hostname === '') return 'empty host';
  if (hostname.charCodeAt(0) === 0x5b) return undefined; // IPv6 literal, validated by the parser
  if (hostname.length > MAX_HOST_LENGTH) return `host longer than ${MAX_HOST_LENGTH} characters`;
  let labelStart = 0;
  for (let i = 0; i <= hostname.length; i++) {
    const c = i < hostname.length ? hostname.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      const len = i - labelStart;
      if (len === 0) return 'empty label in host';
      if (len > MAX_LABEL_LENGTH) return `host label longer than ${MAX_LABEL_LENGTH} characters`;
      labelStart = i + 1;
    } else if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f)) {
      return `character '${hostname[i]}' not allowed in a host name`;
    }
  }
  return undefined;
}

function stripTrailingDots(hostname: string): string {
  let end = hostname.length;
  while (end > 0 && hostname.charCodeAt(end - 1) === 0x2e) end--;
  return end === hostname.length ? hostname : hostname.slice(0, end);
}

/** The routing key of a URL: lowercased host, IDNA punycode, port kept only when not the scheme default. */
export function hostKey(url: URL): string {
  // The WHATWG parser already lowercased and punycoded the host and emptied a default port.
  const hostname = stripTrailingDots(url.hostname);
  return url.port === '' ? hostname : hostname + ':' + url.port;
}

export function canonicalize(raw: string, options?: CanonicalizeOptions): Canonical {
  try {
    return canonicalizeUnsafe(raw, options);
  } catch (err) {
    // Nothing below is expected to throw; this keeps a bug from taking the normalize stage down.
    return reject('malformed', `unexpected error: ${err instanceof Error ? err.message : String(err)}`.slice(0, 200));
  }
}

function canonicalizeUnsafe(raw: string, options?: CanonicalizeOptions): Canonical {
  if (typeof raw !== 'string') return reject('malformed', 'not a string');
  const requested = options?.maxLength;
  const maxLength = typeof requested === 'number' && requested > 0 && Number.isFinite(requested) ? requested : DEFAULT_MAX_LENGTH;
  const rawLimit = Math.max(maxLength * RAW_LENGTH_FACTOR, MIN_RAW_LIMIT);
  if (raw.length > rawLimit) return reject('too-long', `raw URL of ${raw.length} characters exceeds ${rawLimit}`);
  const base = options?.base;
  if (base !== undefined && (typeof base !== 'string' || base.length > rawLimit)) {
    return reject('malformed', 'unusable base URL');
  }

  let url: URL;
  try {
    url = base === undefined ? new URL(raw) : new URL(raw, base);
  } catch {
    return reject('malformed', base === undefined ? 'not an absolute URL' : 'cannot resolve against base');
  }

  const scheme = url.protocol;
  if (scheme !== 'http:' && scheme !== 'https:') {
    return reject('unsupported-scheme', `scheme ${JSON.stringify(scheme.slice(0, 20))} is not crawled`);
  }
  if (url.username !== '' || url.password !== '') return reject('credentials', 'URL carries user info');

  const hostname = stripTrailingDots(url.hostname);
  const problem = hostProblem(hostname);
  if (problem !== undefined) return reject('bad-host', problem);
  if (url.port === '0') return reject('bad-host', 'port 0');
  const host = url.port === '' ? hostname : hostname + ':' + url.port;

  const path = stripPathSessions(normalizeEscapes(url.pathname));
  const canonical = scheme + '//' + host + path + canonicalQuery(url.search);
  if (canonical.length > maxLength) {
    return reject('too-long', `canonical URL of ${canonical.length} characters exceeds ${maxLength}`);
  }
  return { ok: true, url: canonical, host };
}
