// Rendering a fetched page in headless Chromium (--render auto|always), inside the fetch stage: the
// host's politeness slot and the server address's place are held until the fetched record is written,
// so every request the browser makes goes through the crawler's own rules while they are held:
//   - one at a time, each starting no sooner than the host's delay after the previous one ended;
//   - robots.txt of the host (fetched through the same slot when this task has not read it yet);
//   - the network policy and the body caps (it is the crawler's fetcher that fetches);
//   - another host's requests are refused and recorded: its slot belongs to another task.
// Images, fonts and media never leave the browser (rendering/render-page.ts blocks them).
import type { HttpFetcher, FetchOutcome } from '../../fetching/http-fetcher.js';
import { parseRobotsTxt, type RobotsPolicy } from '../../robots/robots-policy.js';
import type { Renderer } from '../../rendering/renderer.js';
import type { BrowserRequest, BrowserResponse, RenderResult } from '../../rendering/render-page.js';
import { shouldRender, type RenderMode } from '../../rendering/should-render.js';
import type { FetchRequest } from '../../schemas/records.js';
import { SubrequestSpacing } from '../../politeness/request-pacing.js';

export interface RenderContext {
  renderer: Renderer;
  fetcher: HttpFetcher;
  mode: RenderMode;
  productToken: string;
  /** Parsed robots.txt per host, as this task last read it. */
  robots: Map<string, RobotsPolicy>;
  signal: AbortSignal;
  now: () => number;
  /** Told of every request made on the browser's behalf (metrics: the server sees them too). */
  onFetched?: (kind: 'robots' | 'subresource', outcome: FetchOutcome) => void;
}

const ROBOTS_CACHE = 4096;

/** A quick look at static HTML for the `auto` rule: scripts, links, visible text (roughly). */
export function staticAnalysis(html: string): { scripts: number; links: number; textLength: number; bytes: number } {
  const scripts = (html.match(/<script\b/gi) ?? []).length;
  const links = (html.match(/<a\s[^>]*href\s*=/gi) ?? []).length;
  const text = html.replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, ' ').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return { scripts, links, textLength: text.length, bytes: Buffer.byteLength(html) };
}

export function wantsRender(mode: RenderMode, request: FetchRequest, outcome: FetchOutcome): boolean {
  if (mode === 'never' || request.kind !== 'page' || outcome.status !== 200 || outcome.error) return false;
  if (outcome.contentType !== 'text/html' && outcome.contentType !== 'application/xhtml+xml') return false;
  return shouldRender(mode, staticAnalysis(outcome.body.toString('utf8')));
}

/** Renders the page; the browser's requests are the crawler's, one at a time with the host's delay. */
export async function renderFetched(c: RenderContext, request: FetchRequest, outcome: FetchOutcome): Promise<RenderResult> {
  const host = new URL(request.url).host;
  const spacing = new SubrequestSpacing(request, outcome.startedAt + outcome.elapsedMs, c.now);
  let chain: Promise<unknown> = Promise.resolve();
  const robots = async (): Promise<RobotsPolicy> => {
    let policy = c.robots.get(host);
    if (policy) return policy;
    const url = `${new URL(request.url).protocol}//${host}/robots.txt`;
    await spacing.turn();
    const got = await c.fetcher.fetch(url, { signal: c.signal, address: request.address || undefined });
    c.onFetched?.('robots', got);
    spacing.ended();
    // As the scheduler reads it (RFC 9309): 4xx allows all; anything else that is not a whole 2xx forbids.
    const whole = got.status >= 200 && got.status < 300 && !got.error;
    policy = got.status >= 400 && got.status < 500 && got.status !== 429
      ? parseRobotsTxt('', url, c.productToken)
      : whole ? parseRobotsTxt(got.body.toString('utf8'), url, c.productToken) : parseRobotsTxt('User-agent: *\nDisallow: /\n', url, c.productToken);
    c.robots.set(host, policy);
    if (c.robots.size > ROBOTS_CACHE) c.robots.delete(c.robots.keys().next().value!);
    return policy;
  };
  const fetchForBrowser = (req: BrowserRequest): Promise<BrowserResponse> => {
    // One request at a time: each waits for the previous one to end, then for the host's delay.
    const turn = chain.then(async (): Promise<BrowserResponse> => {
      let target: URL;
      try {
        target = new URL(req.url);
      } catch {
        return { refused: 'not a URL' };
      }
      if (target.host !== host) return { refused: `another host (${target.host}): its politeness slot belongs to another task` };
      if (target.protocol !== 'http:' && target.protocol !== 'https:') return { refused: `scheme ${target.protocol}` };
      if (!(await robots()).isAllowed(req.url)) return { refused: 'disallowed by robots.txt' };
      if (c.signal.aborted) return { refused: 'the fetch was abandoned' };
      await spacing.turn();
      const got = await c.fetcher.fetch(req.url, { signal: c.signal, address: request.address || undefined });
      c.onFetched?.('subresource', got);
      spacing.ended();
      if (got.status === 0) return { refused: got.error };
      return { status: got.status, headers: got.headers, body: got.body };
    });
    chain = turn.catch(() => {});
    return turn;
  };
  return c.renderer.render(request.url, outcome.body.toString('utf8'), fetchForBrowser);
}
