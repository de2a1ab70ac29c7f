// Politeness as the server saw it: per host, never two requests in flight, and consecutive request starts
// at least the host's delay apart. Works on the synthetic web's request log (or its JSON-lines dump).
import type { WebRequest } from './types.js';

export interface Violation {
  host: string;
  kind: 'overlap' | 'gap';
  first: WebRequest;
  second: WebRequest;
  /** overlap: second.startedAt − first.endedAt (negative); gap: second.startedAt − first.startedAt, or
   *  second.startedAt − first.endedAt when the first response carried Retry-After. */
  gapMs: number;
  /** overlap: 0; gap: the host's delay, or the Retry-After of the first response. */
  requiredMs: number;
}

function byHost(requests: WebRequest[]): Map<string, WebRequest[]> {
  const groups = new Map<string, WebRequest[]>();
  for (const r of requests) {
    let g = groups.get(r.host);
    if (!g) groups.set(r.host, (g = []));
    g.push(r);
  }
  for (const g of groups.values()) g.sort((a, b) => a.startedAt - b.startedAt);
  return groups;
}

/**
 * Per host: requests must not overlap, consecutive starts must be ≥ delayFor(host) apart, and after a
 * response with Retry-After the next request must wait that long after the response ended.
 * `toleranceMs` absorbs timer jitter in the gap check (a crawler's 2000 ms timer may fire at 1999.6).
 */
export function auditPoliteness(
  requests: WebRequest[],
  delayFor: (host: string) => number,
  options: { toleranceMs?: number } = {},
): Violation[] {
  const tolerance = options.toleranceMs ?? 0;
  const violations: Violation[] = [];
  for (const [host, list] of byHost(requests)) {
    const required = delayFor(host);
    // Compare against the request that ends last so far, not just the previous one: a hung request that a
    // later one overlaps is an overlap even if the requests in between were short.
    let longest: WebRequest | undefined;
    for (let i = 0; i < list.length; i++) {
      const r = list[i];
      if (longest && r.startedAt < longest.endedAt) {
        violations.push({ host, kind: 'overlap', first: longest, second: r, gapMs: r.startedAt - longest.endedAt, requiredMs: 0 });
      }
      const prev = list[i - 1];
      if (prev && r.startedAt - prev.startedAt < required - tolerance) {
        violations.push({ host, kind: 'gap', first: prev, second: r, gapMs: r.startedAt - prev.startedAt, requiredMs: required });
      } else if (prev?.retryAfterMs !== undefined && r.startedAt - prev.endedAt < prev.retryAfterMs - tolerance) {
        const gapMs = r.startedAt - prev.endedAt;
        violations.push({ host, kind: 'gap', first: prev, second: r, gapMs, requiredMs: prev.retryAfterMs });
      }
      if (!longest || r.endedAt > longest.endedAt) longest = r;
    }
  }
  return violations;
}

/** Per host, the largest number of requests that started within any window of `windowMs`. Busiest first. */
export function requestsPerHostWindow(requests: WebRequest[], windowMs: number): { host: string; max: number }[] {
  const out: { host: string; max: number }[] = [];
  for (const [host, list] of byHost(requests)) {
    let max = 0;
    for (let lo = 0, hi = 0; hi < list.length; hi++) {
      while (list[hi].startedAt - list[lo].startedAt >= windowMs) lo++;
      max = Math.max(max, hi - lo + 1);
    }
    out.push({ host, max });
  }
  return out.sort((a, b) => b.max - a.max || a.host.localeCompare(b.host));
}

/** delayFor() from ExpectedOutcomes.hostDelayMs (keyed by origin) with a default for every other host. */
export function delayFromExpected(hostDelayMs: Record<string, number>, defaultMs: number): (host: string) => number {
  const byHostKey = new Map(Object.entries(hostDelayMs).map(([origin, ms]) => [new URL(origin).host, ms]));
  return (host) => Math.max(defaultMs, byHostKey.get(host) ?? 0);
}

/** Reads the JSON-lines log written by `serve.js --log` (an endedAt of null meant "still in flight"). */
export function parseRequestLog(jsonLines: string): WebRequest[] {
  return jsonLines
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const r = JSON.parse(l) as WebRequest & { endedAt: number | null };
      return { ...r, endedAt: r.endedAt ?? Infinity };
    });
}
