// What a crawl's summary needs beyond its counters: an example of each kind of failure (which host,
// what happened), and warnings that would otherwise repeat once per host (a site answering HTML for
// /sitemap.xml: thousands of lines on a crawl of thousands of hosts), said once per kind and counted.
// An observer of the process's fetches (contract/services.ts), in front of the metrics one.
import type { CrawlObserver, FetchDone } from '../contract/services.js';

export interface FailureExample {
  /** 'robots' for robots.txt requests, 'other' for pages and sitemaps. */
  of: 'robots' | 'other';
  /** The error kind ('dns', 'timeout', 'tls', …) or 'http-<status>' for an answer that failed robots.txt (5xx, 429). */
  kind: string;
  count: number;
  host: string;
  error: string;
}

export class CrawlJournal implements CrawlObserver {
  private readonly failures = new Map<string, FailureExample>();
  private readonly said = new Set<string>();

  constructor(private readonly warn: (line: string) => void, private readonly next?: CrawlObserver) {}

  fetchDone(f: FetchDone): void {
    this.next?.fetchDone(f);
    const of = f.kind === 'robots' ? 'robots' : 'other';
    // robots.txt answered 5xx or 429 is a robots.txt that could not be read, as a failure is.
    const kind = f.status === 0 ? f.errorKind : of === 'robots' && (f.status >= 500 || f.status === 429) ? `http-${f.status}` : '';
    if (!kind) return;
    const key = `${of}:${kind}`;
    const seen = this.failures.get(key);
    if (seen) seen.count++;
    else this.failures.set(key, { of, kind, count: 1, host: f.host ?? '', error: f.error || `HTTP ${f.status}` });
  }

  notice(kind: string, example: string): void {
    this.next?.notice?.(kind, example);
    if (this.said.has(kind)) return;
    this.said.add(kind);
    this.warn(`${example} (further "${kind}" warnings are counted, not shown: see the summary)`);
  }

  /** The most frequent failure of robots.txt requests or of the others, in this process. */
  mostCommon(of: 'robots' | 'other'): FailureExample | undefined {
    let best: FailureExample | undefined;
    for (const f of this.failures.values()) if (f.of === of && (!best || f.count > best.count)) best = f;
    return best;
  }
}
