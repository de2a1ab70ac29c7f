// A deliberately simple crawler used to validate the synthetic web's ground truth over real HTTP, with an
// independent HTML parser (cheerio) and robots.txt parser (robots-parser). In "sloppy" mode it makes the
// classic mistakes (ignores robots.txt, rel=nofollow, meta nofollow and <base href>, scrapes hrefs with a
// regex), which must lead it into every URL of mustNotFetch: proof that those URLs are really linked.
import * as cheerio from 'cheerio';
import robotsParserModule from 'robots-parser';
import { Agent, request } from 'undici';
import { canonicalUrl } from './html.js';
import { DEFAULT_CRAWL_OPTIONS, MAX_REDIRECT_HOPS as MAX_HOPS } from './types.js';

// CommonJS package with an ES-style d.ts: at runtime the default import is the function itself.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

export interface ReferenceCrawlOptions {
  seeds: string[];
  skipOrigins?: string[];
  sloppy?: boolean;
  userAgent?: string;
  /** Per request, body included: ends hangs and trickles. */
  timeoutMs?: number;
  concurrency?: number;
}

export interface ReferenceCrawlResult {
  /** Canonical URL → status of every page request (0 when it failed or timed out); robots.txt excluded. */
  fetched: Map<string, number>;
}

const BODY_LIMIT = 2 * 1024 * 1024;

interface Response {
  status: number;
  location?: string;
  contentType: string;
  body: Buffer;
}

async function get(url: string, agent: Agent, userAgent: string, timeoutMs: number): Promise<Response> {
  // One controller for headers and body: it ends hangs and trickles, and aborting it after the body limit
  // closes the connection instead of leaving it busy with the rest of a huge body.
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error('timeout')), timeoutMs);
  try {
    const res = await request(url, { dispatcher: agent, headers: { 'user-agent': userAgent }, signal: abort.signal });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= BODY_LIMIT) {
        abort.abort(new Error('body limit'));
        break;
      }
    }
    const header = (name: string) => {
      const v = res.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const body = Buffer.concat(chunks);
    return { status: res.statusCode, location: header('location'), contentType: header('content-type') ?? '', body };
  } finally {
    clearTimeout(timer);
  }
}

function extractLinks(pageUrl: string, html: string, sloppy: boolean): string[] {
  const out: string[] = [];
  const add = (href: string, base: string) => {
    try {
      const u = new URL(href, base);
      if (u.protocol === 'http:' || u.protocol === 'https:') out.push(canonicalUrl(u));
    } catch {
      // unparseable hrefs are simply not links
    }
  };
  if (sloppy) {
    for (const m of html.matchAll(/href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi)) add(m[1] ?? m[2] ?? m[3], pageUrl);
    return out;
  }
  const $ = cheerio.load(html);
  const robotsMeta = $('meta')
    .toArray()
    .filter((m) => ($(m).attr('name') ?? '').toLowerCase() === 'robots')
    .map((m) => ($(m).attr('content') ?? '').toLowerCase());
  if (robotsMeta.some((c) => c.includes('nofollow'))) return out;
  const baseHref = $('base[href]').first().attr('href');
  const base = baseHref !== undefined ? new URL(baseHref, pageUrl).href : pageUrl;
  $('a[href]').each((_, a) => {
    const rel = ($(a).attr('rel') ?? '').toLowerCase().split(/\s+/);
    if (!rel.includes('nofollow')) add($(a).attr('href')!, base);
  });
  return out;
}

export async function referenceCrawl(options: ReferenceCrawlOptions): Promise<ReferenceCrawlResult> {
  const { maxDepth, maxPagesPerHost } = DEFAULT_CRAWL_OPTIONS;
  const userAgent = options.userAgent ?? 'crawlstream/0.1 (reference crawl)';
  // Long enough for a loaded machine: only the hostile endpoints that never answer should reach it.
  const timeoutMs = options.timeoutMs ?? 10_000;
  const skip = new Set(options.skipOrigins ?? []);
  // Enough connections per origin that nothing queues behind a hang (a queued request would time out too).
  const agent = new Agent({ connections: 32 });
  const robots = new Map<string, Promise<(url: string) => boolean>>();
  const budget = new Map<string, number>();
  const fetched = new Map<string, number>();
  const seen = new Set<string>();

  const loadRobots = async (origin: string): Promise<(url: string) => boolean> => {
    let url = `${origin}/robots.txt`;
    for (let hop = 0; hop <= MAX_HOPS; hop++) {
      const r = await get(url, agent, userAgent, timeoutMs).catch(() => undefined);
      if (!r || r.status >= 500) return () => false;
      if (r.status >= 300 && r.status < 400 && r.location) {
        url = new URL(r.location, url).href;
        continue;
      }
      if (r.status >= 400) return () => true;
      const parsed = robotsParser(url, r.body.toString('utf8'));
      return (u) => parsed.isAllowed(u, userAgent) !== false;
    }
    return () => true;
  };

  // One wave per depth keeps the visit order breadth-first, like the model in expected.ts.
  let wave: Array<{ url: string; hops: number }> = options.seeds.map((url) => ({ url: canonicalUrl(url), hops: 0 }));
  for (let depth = 0; depth <= maxDepth && wave.length > 0; depth++) {
    const next: Array<{ url: string; hops: number }> = [];
    const work = wave.filter(({ url }) => !seen.has(url) && !skip.has(new URL(url).origin) && (seen.add(url), true));
    const visit = async ({ url, hops }: { url: string; hops: number }) => {
      const origin = new URL(url).origin;
      if (!options.sloppy) {
        if (!robots.has(origin)) robots.set(origin, loadRobots(origin));
        if (!(await robots.get(origin)!)(url)) return;
      }
      const used = budget.get(origin) ?? 0;
      if (used >= maxPagesPerHost) return;
      budget.set(origin, used + 1);
      const r = await get(url, agent, userAgent, timeoutMs).catch(() => undefined);
      fetched.set(url, r?.status ?? 0);
      if (!r) return;
      if (r.status >= 300 && r.status < 400 && r.location) {
        if (hops < MAX_HOPS) next.push({ url: canonicalUrl(new URL(r.location, url)), hops: hops + 1 });
      } else if (r.status === 200 && r.contentType.includes('text/html')) {
        for (const link of extractLinks(url, r.body.toString('latin1'), options.sloppy ?? false)) next.push({ url: link, hops: 0 });
      }
    };
    const queue = [...work];
    const workers = Array.from({ length: options.concurrency ?? 16 }, async () => {
      for (let item = queue.shift(); item; item = queue.shift()) await visit(item);
    });
    await Promise.all(workers);
    wave = next;
  }
  await agent.destroy();
  return { fetched };
}
