// Cheap structural checks for crawler traps that canonicalization cannot undo: relative links that
// pile up path segments (/a/b/a/b/a/b/…) and generated query strings (faceted search, calendars).
// Crawl depth and the per-host page budget are enforced elsewhere.

export interface TrapOptions {
  /** A URL is a trap when any one path segment occurs more than this many times. */
  maxRepeatedPathSegments: number;
  /** A URL is a trap when it has more query parameters than this. */
  maxQueryParams: number;
}

/** Returns why a canonical URL looks like a crawler trap, or undefined when it does not. Never throws. */
export function trapReason(canonicalUrl: string, opts: TrapOptions): string | undefined {
  if (typeof canonicalUrl !== 'string') return undefined;
  const schemeEnd = canonicalUrl.indexOf('://');
  const authorityStart = schemeEnd < 0 ? 0 : schemeEnd + 3;
  let end = canonicalUrl.indexOf('#', authorityStart);
  if (end < 0) end = canonicalUrl.length;
  let queryStart = canonicalUrl.indexOf('?', authorityStart);
  if (queryStart < 0 || queryStart > end) queryStart = end;
  let pathStart = canonicalUrl.indexOf('/', authorityStart);
  if (pathStart < 0 || pathStart > queryStart) pathStart = queryStart;

  if (repeatsSegments(canonicalUrl, pathStart, queryStart, opts.maxRepeatedPathSegments)) {
    return 'repeated-path-segments';
  }
  if (countParams(canonicalUrl, queryStart + 1, end) > opts.maxQueryParams) return 'query-explosion';
  return undefined;
}

function repeatsSegments(url: string, from: number, to: number, max: number): boolean {
  // Paths shorter than (max + 1) segments of one character plus their slashes cannot repeat enough.
  if (to - from < 2 * (max + 1)) return false;
  const counts = new Map<string, number>();
  let start = from + 1;
  for (let i = start; i <= to; i++) {
    if (i < to && url.charCodeAt(i) !== 0x2f) continue;
    if (i > start) {
      const seg = url.slice(start, i);
      const n = (counts.get(seg) ?? 0) + 1;
      if (n > max) return true;
      counts.set(seg, n);
    }
    start = i + 1;
  }
  return false;
}

function countParams(url: string, from: number, to: number): number {
  let n = 0;
  let start = from;
  for (let i = from; i <= to; i++) {
    if (i < to && url.charCodeAt(i) !== 0x26) continue;
    if (i > start) n++;
    start = i + 1;
  }
  return n;
}
