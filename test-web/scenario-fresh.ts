// The 'fresh' scenario: hosts for recrawling, sitemaps and priority. Addresses (default 127.40.0.1+):
//   +0  fresh-pages     /always/N change at every request (no validators); /never/N never change (ETag
//                       and Last-Modified, 304 to a conditional request); /sometimes/N change every 3rd
//                       request (no validators), N from 1 to FRESH_PAGES (or `pages`); / links to all
//   +1  fresh-news      / lists a story for every STORY_EVERY_MS (or storyEveryMs) since the server started
//   +2  fresh-sitemaps  reachable only through sitemaps: robots.txt names an index, which names a gzip
//                       XML sitemap (with a URL of another host, to ignore) and a plain-text one
//   +3  fresh-hubs      / links to 60 leaves; every leaf links to the 5 hubs
// Seeds: the root of every host.
import { gzipSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { computeExpected } from './expected.js';
import { send, type Site } from './site.js';
import { makeSites, type BuiltScenario } from './scenario-test.js';
import { renderPage } from './html.js';
import { articleParagraphs } from './text.js';

export const FRESH_HOST_NAMES: readonly string[] = ['fresh-pages', 'fresh-news', 'fresh-sitemaps', 'fresh-hubs'];
export const FRESH_PAGES = 3;
export const STORY_EVERY_MS = 10_000;
export const LEAVES = 60;
export const HUBS = 5;
const LAST_MODIFIED = 'Wed, 01 Jan 2025 00:00:00 GMT';

function html(title: string, paragraphs: string[], links: [string, string][]): string {
  return renderPage({ siteName: 'Fresh', title, paragraphs, links: links.map(([href, text]) => ({ href, text, to: null })) });
}

function pagesHost(s: Site, pages: number): void {
  const counts = new Map<string, number>();
  const links: [string, string][] = [];
  for (let i = 1; i <= pages; i++) for (const kind of ['always', 'never', 'sometimes']) links.push([`/${kind}/${i}`, `${kind} ${i}`]);
  s.page('/', { title: 'Fresh pages', paragraphs: articleParagraphs('fresh-index', 120) }, (a) => links.map(([h, t]) => a(h, t)));
  s.dynamic = (req: IncomingMessage, res: ServerResponse, key: string) => {
    const m = /^\/(always|never|sometimes)\/(\d+)$/.exec(key);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > pages) return false;
    const n = (counts.get(key) ?? 0) + 1;
    counts.set(key, n);
    const [, kind, i] = m;
    if (kind === 'never') {
      const etag = `"never-${i}-v1"`;
      if (req.headers['if-none-match'] === etag || req.headers['if-modified-since'] === LAST_MODIFIED) {
        res.writeHead(304, { etag, 'last-modified': LAST_MODIFIED }).end();
        return true;
      }
      send(res, 200, 'text/html; charset=utf-8', html(`Never ${i}`, articleParagraphs(`never-${i}`, 300), []), { etag, 'last-modified': LAST_MODIFIED });
      return true;
    }
    const version = kind === 'always' ? n : Math.ceil(n / 3);
    send(res, 200, 'text/html; charset=utf-8', html(`${kind} ${i}, version ${version}`, articleParagraphs(`${kind}-${i}-${version}`, 300), []));
    return true;
  };
}

function newsHost(s: Site, started: number, every: number): { storyAt(i: number): number } {
  const storyAt = (i: number) => started + i * every;
  s.dynamic = (_req, res, key) => {
    const listed = Math.floor((Date.now() - started) / every) + 1;
    if (key === '/') {
      const links: [string, string][] = Array.from({ length: listed }, (_, i) => [`/story/${i}`, `Story ${i}`]);
      send(res, 200, 'text/html; charset=utf-8', html(`Front page with ${listed} stories`, articleParagraphs(`front-${listed}`, 120), links));
      return true;
    }
    const m = /^\/story\/(\d+)$/.exec(key);
    if (!m || Number(m[1]) >= listed) return false;
    send(res, 200, 'text/html; charset=utf-8', html(`Story ${m[1]}`, articleParagraphs(`story-${m[1]}`, 300), []), { 'last-modified': LAST_MODIFIED });
    return true;
  };
  return { storyAt };
}

function sitemapsHost(s: Site, other: Site): { listed: string[]; foreign: string } {
  const xmlUrls = Array.from({ length: 5 }, (_, i) => s.url(`/s/${i + 1}`));
  const textUrls = Array.from({ length: 3 }, (_, i) => s.url(`/t/${i + 1}`));
  const foreign = other.url('/from-another-sitemap');
  const urlset = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${
    [...xmlUrls, foreign].map((u, i) => `<url><loc>${u}</loc><changefreq>hourly</changefreq><priority>0.${i + 1}</priority></url>`).join('\n')}\n</urlset>\n`;
  const index = `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
    `<sitemap><loc>${s.url('/maps/pages.xml.gz')}</loc></sitemap>\n<sitemap><loc>${s.url('/maps/more.txt')}</loc></sitemap>\n</sitemapindex>\n`;
  s.robots = { status: 200, body: `User-agent: *\nAllow: /\nSitemap: ${s.url('/maps/index.xml')}\n` };
  s.page('/', { title: 'A site found through its sitemaps', paragraphs: articleParagraphs('sitemaps-root', 120) }, () => [], false);
  s.dynamic = (_req, res, key) => {
    const files: Record<string, [string, string | Buffer]> = {
      '/maps/index.xml': ['application/xml', index],
      '/maps/pages.xml.gz': ['application/gzip', gzipSync(urlset)],
      '/maps/more.txt': ['text/plain', textUrls.join('\n') + '\n'],
    };
    if (files[key]) send(res, 200, ...files[key]);
    else if ([...xmlUrls, ...textUrls].includes(s.url(key))) send(res, 200, 'text/html; charset=utf-8', html(`Listed ${key}`, articleParagraphs(`listed${key}`, 200), []));
    else return false;
    return true;
  };
  return { listed: [...xmlUrls, ...textUrls], foreign };
}

function hubsHost(s: Site): { hubs: string[] } {
  const hubs = Array.from({ length: HUBS }, (_, i) => `/hub/${i + 1}`);
  s.page('/', { title: 'Leaves', paragraphs: articleParagraphs('hubs-root', 120) }, (a) =>
    Array.from({ length: LEAVES }, (_, i) => a(`/leaf/${i + 1}`, `leaf ${i + 1}`)), false);
  for (let i = 1; i <= LEAVES; i++) {
    s.page(`/leaf/${i}`, { title: `Leaf ${i}`, paragraphs: articleParagraphs(`leaf-${i}`, 150) }, (a) => hubs.map((h) => a(h, `hub ${h}`)), false);
  }
  for (const h of hubs) s.page(h, { title: `Hub ${h}`, paragraphs: articleParagraphs(`hub${h}`, 150) }, () => [], false);
  return { hubs: hubs.map((h) => s.url(h)) };
}

export interface FreshTruth {
  /** Pages of each kind (always, never, sometimes) on fresh-pages. */
  pages: number;
  storyAt(i: number): number;
  sitemapListed: string[];
  sitemapForeign: string;
  hubs: string[];
}

export interface FreshOptions {
  /** A new story on fresh-news every this many ms (default STORY_EVERY_MS). */
  storyEveryMs?: number;
  /** Pages of each kind on fresh-pages (default FRESH_PAGES): fewer leave a host delay room for shorter intervals. */
  pages?: number;
}

export function buildFreshScenario(addresses: string[], port: number, options: FreshOptions = {}): BuiltScenario & { fresh: FreshTruth } {
  const { sites, get } = makeSites(FRESH_HOST_NAMES, addresses, port);
  const pages = options.pages ?? FRESH_PAGES;
  pagesHost(get('fresh-pages'), pages);
  const news = newsHost(get('fresh-news'), Date.now(), options.storyEveryMs ?? STORY_EVERY_MS);
  const maps = sitemapsHost(get('fresh-sitemaps'), get('fresh-pages'));
  const { hubs } = hubsHost(get('fresh-hubs'));
  for (const s of sites) s.seed = true;
  const seeds = sites.map((s) => s.url('/'));
  return {
    hosts: sites,
    seeds,
    expected: { ...computeExpected(sites, seeds), exactDuplicates: [], nearDuplicates: [], distinctPages: [], sessionTrapPages: [] },
    endpoints: {},
    fresh: { pages, storyAt: news.storyAt, sitemapListed: maps.listed, sitemapForeign: maps.foreign, hubs },
  };
}

