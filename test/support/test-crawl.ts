// What the e2e files that crawl a synthetic web all set up: a web started before a describe's tests
// and closed after them, a data directory of its own, and the command line of a crawl of it.
import { after, before } from 'node:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb, type SyntheticWebOptions, type WebRequest } from '../../test-web/synthetic-web.js';

/** A fresh directory under the system's temporary one, named `<prefix>XXXXXX`. */
export const scratchDir = (prefix: string): string => mkdtempSync(join(tmpdir(), prefix));

export interface TestWeb {
  readonly web: SyntheticWeb;
  /** The crawl's data directory, new for this describe. */
  readonly dataDir: string;
}

/**
 * Registers, in the calling describe, a `before` that starts a synthetic web and makes a data
 * directory, and an `after` that closes the web. Hooks run in the order registered: a `before`
 * the caller registers next (its crawl) already has both.
 */
export function testWeb(options: SyntheticWebOptions, dirPrefix: string): TestWeb {
  const t = {} as { web: SyntheticWeb; dataDir: string };
  before(async () => {
    t.web = await startSyntheticWeb(options);
    t.dataDir = scratchDir(dirPrefix);
  });
  after(() => t.web?.close());
  return t;
}

export interface CrawlFlags {
  /** --default-delay-ms: the politeness the server's log is audited against. */
  delayMs: number;
  /** --partitions (default 2). */
  partitions?: number;
  /** --allow-network 127.0.0.0/8 (default true); a crawl through a proxy reaches the web only through it. */
  loopback?: boolean;
}

/** `crawl <the web's seeds> --data-dir DIR …` with the given flags, quiet, and `extra` last. */
export function crawlArgs(web: SyntheticWeb, dataDir: string, o: CrawlFlags, extra: readonly string[] = []): string[] {
  return [
    'crawl', ...web.seeds, '--data-dir', dataDir, ...(o.loopback === false ? [] : ['--allow-network', '127.0.0.0/8']),
    '--default-delay-ms', String(o.delayMs), '--partitions', String(o.partitions ?? 2), '--quiet', ...extra,
  ];
}

/**
 * The fresh scenario's never-changing pages (`/never/1`…, on host fresh-pages) and the requests
 * each got among `requests`, in the order they started.
 */
export function neverChangingPages(web: SyntheticWeb, requests: readonly WebRequest[] = web.requests): Map<string, WebRequest[]> {
  const host = new URL(web.origin('fresh-pages')).host;
  const pages = new Map<string, WebRequest[]>();
  for (let i = 1; i <= web.fresh!.pages; i++) pages.set(`/never/${i}`, []);
  for (const r of requests) if (r.host === host) pages.get(r.path)?.push(r);
  for (const list of pages.values()) list.sort((a, b) => a.startedAt - b.startedAt);
  return pages;
}

/** The fewest requests any never-changing page got (optionally: answered with `status`). */
export function fewestNeverChangingFetches(web: SyntheticWeb, requests: readonly WebRequest[] = web.requests, status?: number): number {
  return Math.min(...[...neverChangingPages(web, requests).values()].map((l) => l.filter((r) => status === undefined || r.status === status).length));
}
