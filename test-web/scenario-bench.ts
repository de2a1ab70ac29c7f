// The 'bench' scenario: many uniform hosts whose pages are rendered per request from (host, page) with no
// per-page state, so memory stays flat whatever the size. Addresses are consecutive from the first address
// (default 127.20.0.1). Page 0 is "/", page n is "/p/n"; page n links to its children n·8+1 … n·8+8 (so every
// page is within log8(pages) links of the root), random pages of its host, and two pages on other hosts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BuiltScenario, HostHandler } from './scenario-test.js';
import { ALLOW_ALL_ROBOTS, notFound, send } from './site.js';
import { articleParagraphs, Rng } from './text.js';
import { type BenchOptions, DEFAULT_CRAWL_OPTIONS } from './types.js';

export const DEFAULT_BENCH: BenchOptions = { hosts: 200, pagesPerHost: 50, pageBytes: 18 * 1024, linksPerPage: 25 };
const FANOUT = 8;
const CROSS_HOST_LINKS = 2;
const POOL_SIZE = 2048;

let pool: string[] | undefined;

/** Shared paragraphs; a page strings ~20 random ones together, so two pages rarely share more than one. */
function paragraphPool(): string[] {
  pool ??= Array.from({ length: POOL_SIZE }, (_, i) => `<p>${articleParagraphs(`bench-pool:${i}`, 120).join(' ')}</p>\n`);
  return pool;
}

function pagePath(n: number): string {
  return n === 0 ? '/' : `/p/${n}`;
}

function depthOf(n: number): number {
  let d = 0;
  for (let i = n; i > 0; i = Math.floor((i - 1) / FANOUT)) d++;
  return d;
}

class BenchHost implements HostHandler {
  readonly origin: string;
  constructor(
    readonly name: string,
    readonly address: string,
    port: number,
    private readonly index: number,
    private readonly opts: BenchOptions,
    private readonly origins: string[],
  ) {
    this.origin = `http://${address}:${port}`;
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const raw = req.url ?? '/';
    const q = raw.indexOf('?');
    const path = q < 0 ? raw : raw.slice(0, q);
    if (path === '/robots.txt') return send(res, 200, 'text/plain; charset=utf-8', ALLOW_ALL_ROBOTS);
    const m = path === '/' ? 0 : /^\/p\/([1-9]\d*)$/.exec(path) ? Number(path.slice(3)) : -1;
    if (m < 0 || m >= this.opts.pagesPerHost) return notFound(res);
    send(res, 200, 'text/html; charset=utf-8', this.render(m));
  }

  render(n: number): string {
    const { hosts, pagesPerHost, pageBytes, linksPerPage } = this.opts;
    const rng = new Rng((Math.imul(this.index + 1, 0x9e3779b1) ^ n) >>> 0);
    const hrefs: string[] = [];
    for (let c = n * FANOUT + 1; c <= n * FANOUT + FANOUT && c < pagesPerHost; c++) hrefs.push(pagePath(c));
    const cross = hosts > 1 ? Math.min(CROSS_HOST_LINKS, linksPerPage) : 0;
    while (hrefs.length < linksPerPage - cross) hrefs.push(pagePath(rng.int(pagesPerHost)));
    for (let i = 0; i < cross; i++) {
      const other = (this.index + 1 + rng.int(hosts - 1)) % hosts;
      hrefs.push(this.origins[other] + pagePath(rng.int(pagesPerHost)));
    }
    const title = `Bench host ${this.index} page ${n}`;
    let html =
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>\n<body><h1>${title}</h1>\n` +
      `<ul>${hrefs.map((h, i) => `<li><a href="${h}">link ${i}</a></li>`).join('')}</ul>\n`;
    const paragraphs = paragraphPool();
    const end = '</body></html>\n';
    const target = pageBytes - end.length;
    while (html.length < target) {
      const p = paragraphs[rng.int(paragraphs.length)];
      const room = target - html.length;
      if (p.length <= room) html += p;
      else if (room > 16) html += p.slice(0, room - 5) + '</p>\n';
      else break;
    }
    return html + end;
  }
}

export function buildBenchScenario(addresses: string[], port: number, opts: BenchOptions): BuiltScenario {
  const origins = addresses.map((a) => `http://${a}:${port}`);
  const hosts = addresses.map((a, i) => new BenchHost(`bench-${i}`, a, port, i, opts, origins));
  const seeds = origins.map((o) => `${o}/`);
  const { maxDepth, maxPagesPerHost } = DEFAULT_CRAWL_OPTIONS;
  const complete = opts.pagesPerHost <= maxPagesPerHost && depthOf(opts.pagesPerHost - 1) <= maxDepth;
  const mustFetch = complete
    ? origins.flatMap((o) => Array.from({ length: opts.pagesPerHost }, (_, n) => o + pagePath(n)))
    : seeds;
  return {
    hosts,
    seeds,
    expected: {
      mustFetch: mustFetch.sort(),
      mustNotFetch: [],
      hostDelayMs: {},
      exactDuplicates: [],
      nearDuplicates: [],
      distinctPages: [],
      trapOrigins: [],
      sessionTrapPages: [],
    },
    endpoints: {},
  };
}
