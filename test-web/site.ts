// One synthetic host: a table of pages keyed by canonical path, its robots.txt, and an optional dynamic
// handler for unbounded URL spaces (traps). The same table renders the HTML and feeds `computeExpected`,
// so what the server links to and what the tests expect cannot drift apart.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Link, renderPage, resolveLink, routeKey } from './html.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface PageSpec {
  title: string;
  paragraphs?: string[];
  byline?: string;
  baseHref?: string;
  metaNofollow?: boolean;
  /** What a correct HTML parser finds on the page (rendered as anchors unless `serve` is given). */
  links: Link[];
  status?: number;
  /** Error, hostile and robots-file endpoints: listed in neither mustFetch nor mustNotFetch. */
  unlisted?: boolean;
  /** robots.txt forbids this path for our product token (the tests check this against the served file). */
  disallowed?: boolean;
  redirect?: { status: number; location: string };
  /** Custom response; `links` must still describe what a parser finds in it. */
  serve?: Handler;
  /** Overrides the site's template name (exact duplicates need byte-identical pages on two hosts). */
  siteName?: string;
}

export interface RobotsSpec {
  status: number;
  body?: string;
  location?: string;
}

export type LinkMaker = (href: string, text?: string, opts?: { nofollow?: boolean; to?: string | null }) => Link;

export const ALLOW_ALL_ROBOTS = 'User-agent: *\nAllow: /\n';

export function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string | number> = {},
): void {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  // setHeader (not writeHead's argument) keeps extra headers readable through getHeader() for the log.
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.writeHead(status, { 'content-type': type, 'content-length': buf.length });
  res.end(buf);
}

export function notFound(res: ServerResponse): void {
  send(res, 404, 'text/html; charset=utf-8', '<!doctype html><title>Not found</title><h1>Not found</h1>\n');
}

export class Site {
  readonly origin: string;
  readonly pages = new Map<string, PageSpec>();
  private readonly rendered = new Map<string, Buffer>();
  /** Unbounded URL spaces: excluded from mustFetch and listed in trapOrigins. */
  trap = false;
  seed = false;
  crawlDelayMs?: number;
  /** robots.txt answers 5xx: a correct crawler fetches nothing else here. */
  robotsUnavailable = false;
  robots: RobotsSpec = { status: 200, body: ALLOW_ALL_ROBOTS };
  siteName: string;
  nav: Array<[string, string]> = [['/', 'Home']];
  dynamic?: (req: IncomingMessage, res: ServerResponse, key: string) => boolean;

  /** `address` is what URLs name the host by: its IP address, or a name given to the crawler with --resolve. */
  constructor(
    readonly name: string,
    readonly address: string,
    readonly port: number,
    readonly scheme: 'http' | 'https' = 'http',
  ) {
    this.origin = `${scheme}://${address}:${port}`;
    this.siteName = name;
  }

  url(path: string): string {
    return this.origin + path;
  }

  /** Adds a page; `links` gets a link maker bound to the page's base URL (its own URL or its <base href>). */
  page(path: string, spec: Omit<PageSpec, 'links'>, links?: (a: LinkMaker) => Link[], withNav = true): PageSpec {
    const pageUrl = this.url(path);
    const base = spec.baseHref !== undefined ? new URL(spec.baseHref, pageUrl).href : pageUrl;
    const a: LinkMaker = (href, text = href, opts = {}) => ({
      href,
      text,
      to: opts.to !== undefined ? opts.to : resolveLink(href, base),
      ...(opts.nofollow ? { nofollow: true } : {}),
    });
    const nav = withNav && !spec.serve && !spec.redirect ? this.nav.map(([h, t]) => ({ ...a(h, t), nav: true })) : [];
    const full: PageSpec = { ...spec, links: [...nav, ...(links ? links(a) : [])] };
    if (routeKey(path) !== path) throw new Error(`page path ${path} is not canonical`);
    this.pages.set(path, full);
    return full;
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const key = routeKey(req.url ?? '/');
    if (key === null) return send(res, 400, 'text/plain', 'bad request target\n');
    if (key === '/robots.txt') return this.serveRobots(res);
    const page = this.pages.get(key);
    if (page) return this.servePage(key, page, req, res);
    if (this.dynamic?.(req, res, key)) return;
    notFound(res);
  }

  private serveRobots(res: ServerResponse): void {
    const r = this.robots;
    const headers: Record<string, string> = r.location !== undefined ? { location: r.location } : {};
    send(res, r.status, 'text/plain; charset=utf-8', r.body ?? `status ${r.status}\n`, headers);
  }

  private servePage(key: string, page: PageSpec, req: IncomingMessage, res: ServerResponse): void {
    if (page.serve) return page.serve(req, res);
    if (page.redirect) {
      return send(res, page.redirect.status, 'text/html; charset=utf-8', `<a href="${page.redirect.location}">moved</a>\n`, {
        location: page.redirect.location,
      });
    }
    let html = this.rendered.get(key);
    if (html === undefined) {
      html = Buffer.from(
        renderPage({
          siteName: page.siteName ?? this.siteName,
          title: page.title,
          paragraphs: page.paragraphs ?? [],
          links: page.links,
          baseHref: page.baseHref,
          metaNofollow: page.metaNofollow,
          byline: page.byline,
        }),
      );
      this.rendered.set(key, html);
    }
    send(res, page.status ?? 200, 'text/html; charset=utf-8', html);
  }
}
