// Server-side checks of a crawl of the synthetic web: what the test server saw, not what the crawler says.
import assert from 'node:assert/strict';
import type { SyntheticWeb, WebRequest } from '../../test-web/synthetic-web.js';
import { auditPoliteness, delayFromExpected } from '../../test-web/politeness-audit.js';
import { canonicalize } from '../../url/canonicalize.js';

export function canonicalOf(r: WebRequest): string {
  const c = canonicalize(`http://${r.host}${r.path}`);
  return c.ok ? c.url : `http://${r.host}${r.path}`;
}

export function assertPolite(web: SyntheticWeb, defaultDelayMs: number, requests: WebRequest[] = web.requests): void {
  const violations = auditPoliteness(requests, delayFromExpected(web.expected.hostDelayMs, defaultDelayMs));
  assert.deepEqual(
    violations.map((v) => `${v.kind} on ${v.host}: ${v.first.path} → ${v.second.path} ${v.gapMs.toFixed(0)} ms < ${v.requiredMs} ms`),
    [],
    'politeness as measured at the server',
  );
}

export function assertRetryAfterHonoured(requests: WebRequest[]): void {
  const byHost = new Map<string, WebRequest[]>();
  for (const r of requests) byHost.set(r.host, [...(byHost.get(r.host) ?? []), r]);
  for (const list of byHost.values()) {
    list.sort((a, b) => a.startedAt - b.startedAt);
    list.forEach((r, i) => {
      if (r.status !== 429 || !list[i + 1]) return;
      const gap = list[i + 1].startedAt - r.endedAt;
      assert.ok(gap >= 1990, `after a 429 with Retry-After: 2 on ${r.host}, the next request came ${gap.toFixed(0)} ms later`);
    });
  }
}

export function assertRobotsFirst(requests: WebRequest[]): void {
  const first = new Map<string, WebRequest>();
  for (const r of [...requests].sort((a, b) => a.startedAt - b.startedAt)) if (!first.has(r.host)) first.set(r.host, r);
  for (const [host, r] of first) assert.equal(r.path, '/robots.txt', `the first request to ${host} was ${r.path}`);
}

export function assertNeverFetched(web: SyntheticWeb, requests: WebRequest[] = web.requests): void {
  const requested = new Set(requests.map(canonicalOf));
  const leaked = web.expected.mustNotFetch.filter((u) => requested.has(u));
  assert.deepEqual(leaked, [], 'URLs that must never be requested');
}

export function assertAllFetched(web: SyntheticWeb, requests: WebRequest[] = web.requests): void {
  const requested = new Set(requests.map(canonicalOf));
  const missing = web.expected.mustFetch.filter((u) => !requested.has(u));
  assert.deepEqual(missing, [], 'allowed, reachable pages that were not fetched');
}

/** Canonical pages requested more than once, retries of 5xx/429 answers and robots.txt aside. */
export function pagesFetchedTwice(requests: WebRequest[]): string[] {
  const counts = new Map<string, number>();
  const retried = new Set<string>();
  for (const r of requests) {
    if (r.path === '/robots.txt' || r.path.endsWith('/robots.txt') || r.path === '/sitemap.xml') continue;
    const url = canonicalOf(r);
    if (r.status >= 500 || r.status === 429 || r.status === 0) retried.add(url);
    counts.set(url, (counts.get(url) ?? 0) + 1);
  }
  return [...counts].filter(([u, n]) => n > 1 && !retried.has(u)).map(([u, n]) => `${u} ×${n}`);
}

/** The most requests the log shows in flight at one moment, among `requests`. */
export function peakConcurrency(requests: WebRequest[]): number {
  const events = requests.flatMap((r) => [[r.startedAt, 1], [r.endedAt, -1]] as [number, number][]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]); // an end before a start at the same instant
  let now = 0;
  let peak = 0;
  for (const [, d] of events) peak = Math.max(peak, (now += d));
  return peak;
}
