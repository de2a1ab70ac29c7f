// The 'tls' scenario: the real web's shape on loopback. Hosts are named (give the crawler
// `resolveFlags` and `--ca-file caFile`), each on its own address (default 127.60.0.1+), in this order:
//   +0  www.tls.test      HTTPS (test CA)   front page naming an RSS feed (<link rel=alternate>) that holds
//                                           BACKLOG stories when first read, then gains one every STORY_EVERY_MS; /a, /b
//   +1  shop.tls.test     HTTPS (test CA)   robots.txt names a sitemap index listing a urlset and an Atom feed
//   +2  plain.tls.test    HTTP              links to www; answers HTML for /sitemap.xml, as many sites do
//   +3  expired.tls.test  HTTPS, a certificate that expired in 2020
//   +4  self.tls.test     HTTPS, a self-signed certificate
//   +5  wrong.tls.test    HTTPS, a certificate for another name
// Seeds: www's and plain's front pages; the others are found through links.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { send } from './site.js';
import type { BuiltScenario, HostHandler } from './scenario-test.js';
import { testCertificates, type KeyPair, type TestCertificates } from './tls-certs.js';

export const TLS_HOST_NAMES = ['www.tls.test', 'shop.tls.test', 'plain.tls.test', 'expired.tls.test', 'self.tls.test', 'wrong.tls.test'] as const;
type TlsHostName = (typeof TLS_HOST_NAMES)[number];
/** How often www's feed gains a story. */
export const STORY_EVERY_MS = 4_000;
/**
 * Stories in the feed when it is first read, one interval apart (a feed needs two dates to show its
 * pace). The story clock starts then, not with the server: how long a crawl takes to start does not matter.
 */
export const BACKLOG = 3;
const FEED_ITEMS = 20;

export function tlsCertificates(): TestCertificates {
  return testCertificates({ names: ['www.tls.test', 'shop.tls.test'], expiredName: 'expired.tls.test', selfSignedName: 'self.tls.test' });
}

/** The key and certificate host `i` serves, or undefined for plain HTTP. */
export function tlsServerPair(i: number): KeyPair | undefined {
  const c = tlsCertificates();
  return [c.good, c.good, undefined, c.expired, c.selfSigned, c.wrongName][i];
}

export interface TlsTruth {
  /** `--resolve NAME=ADDRESS` for every host, and `--ca-file` with the test CA. */
  crawlFlags: string[];
  caFile: string;
  url(name: TlsHostName, path: string): string;
  /** When story k appeared in the feed (k < BACKLOG were there when it was first read); Infinity before that. */
  storyAt(k: number): number;
  /** Pages a crawl that refuses bad certificates fetches, feeds and sitemaps aside (stories aside). */
  goodPages: string[];
  /** Pages on the hosts with bad certificates (fetched only with --tls-verify record or off). */
  badPages: string[];
  sitemapListed: string[];
  atomListed: string[];
}

const page = (title: string, links: string[], head = '') =>
  `<!doctype html><html><head><title>${title}</title>${head}</head><body><h1>${title}</h1><p>${title} is a page of the TLS test web, ` +
  `with enough words in it to be a page.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;
const html = (res: ServerResponse, body: string) => send(res, 200, 'text/html; charset=utf-8', body);
const ALLOW = 'User-agent: *\nAllow: /\n';

export function buildTlsScenario(addresses: string[], port: number): BuiltScenario & { tls: TlsTruth } {
  let feedRead: number | undefined;
  const storyAt = (k: number) => (feedRead === undefined ? Infinity : feedRead + (k - BACKLOG + 1) * STORY_EVERY_MS);
  const scheme = (i: number) => (tlsServerPair(i) ? 'https' : 'http');
  const origin = (name: TlsHostName) => `${scheme(TLS_HOST_NAMES.indexOf(name))}://${name}:${port}`;
  const url = (name: TlsHostName, path: string) => origin(name) + path;
  const routes: Record<TlsHostName, (path: string, res: ServerResponse) => boolean> = {
    'www.tls.test': (path, res) => {
      if (path === '/feed.rss') feedRead ??= Date.now();
      const listed = feedRead === undefined ? 0 : Math.floor((Date.now() - feedRead) / STORY_EVERY_MS) + BACKLOG;
      if (path === '/') {
        html(res, page('www', ['/a', '/b', url('shop.tls.test', '/'), url('plain.tls.test', '/'), url('expired.tls.test', '/'),
          url('self.tls.test', '/'), url('wrong.tls.test', '/')], '<link rel="alternate" type="application/rss+xml" title="News" href="/feed.rss">'));
      } else if (path === '/a' || path === '/b') {
        html(res, page(`www ${path}`, [])); // no link back: recrawls of the front page rank below new stories
      }
      else if (path === '/feed.rss') {
        const items = [];
        for (let k = listed - 1; k >= Math.max(0, listed - FEED_ITEMS); k--) {
          items.push(`<item><title>Story ${k}</title><link>${url('www.tls.test', `/story/${k}`)}</link><pubDate>${new Date(storyAt(k)).toUTCString()}</pubDate></item>`);
        }
        send(res, 200, 'application/rss+xml', `<?xml version="1.0"?><rss version="2.0"><channel><title>News</title><link>${url('www.tls.test', '/')}</link>${items.join('')}</channel></rss>`);
      } else {
        const m = /^\/story\/(\d+)$/.exec(path);
        if (!m || Number(m[1]) >= listed) return false;
        html(res, page(`Story ${m[1]}`, [])); // no links: stories add no in-links to the front page's recrawls
      }
      return true;
    },
    'shop.tls.test': (path, res) => {
      const files: Record<string, [string, string]> = {
        '/robots.txt': ['text/plain', `${ALLOW}Sitemap: ${url('shop.tls.test', '/maps/index.xml')}\n`],
        '/maps/index.xml': ['application/xml', `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
          `<sitemap><loc>${url('shop.tls.test', '/maps/pages.xml')}</loc></sitemap><sitemap><loc>${url('shop.tls.test', '/news.atom')}</loc></sitemap></sitemapindex>`],
        '/maps/pages.xml': ['application/xml', `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
          `<url><loc>${url('shop.tls.test', '/p/1')}</loc></url><url><loc>${url('shop.tls.test', '/p/2')}</loc></url></urlset>`],
        '/news.atom': ['application/atom+xml', `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Shop news</title>` +
          `<entry><title>1</title><link href="${url('shop.tls.test', '/n/1')}"/><updated>2026-01-01T10:00:00Z</updated></entry>` +
          `<entry><title>2</title><link rel="alternate" href="${url('shop.tls.test', '/n/2')}"/><updated>2026-01-02T10:00:00Z</updated></entry></feed>`],
      };
      if (files[path]) send(res, 200, ...files[path]);
      else if (path === '/') html(res, page('shop', ['/p/1']));
      else if (['/p/1', '/p/2', '/n/1', '/n/2'].includes(path)) html(res, page(`shop ${path}`, ['/']));
      else return false;
      return true;
    },
    'plain.tls.test': (path, res) => {
      if (path === '/') html(res, page('plain', ['/x', url('www.tls.test', '/a')]));
      else if (path === '/x' || path === '/sitemap.xml') html(res, page(`plain ${path}`, ['/']));
      else return false;
      return true;
    },
    'expired.tls.test': (path, res) => badHost(path, res),
    'self.tls.test': (path, res) => badHost(path, res),
    'wrong.tls.test': (path, res) => badHost(path, res),
  };
  const hosts: HostHandler[] = TLS_HOST_NAMES.map((name, i) => ({
    name, address: addresses[i], origin: origin(name),
    handle(req: IncomingMessage, res: ServerResponse) {
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/robots.txt' && name !== 'shop.tls.test') return send(res, 200, 'text/plain', ALLOW);
      if (!routes[name](path, res)) send(res, 404, 'text/html', '<!doctype html><title>Not found</title>');
    },
  }));
  const seeds = [url('www.tls.test', '/'), url('plain.tls.test', '/')];
  const bad = ['expired.tls.test', 'self.tls.test', 'wrong.tls.test'] as const;
  const tls: TlsTruth = {
    crawlFlags: [...TLS_HOST_NAMES.flatMap((n, i) => ['--resolve', `${n}=${addresses[i]}`]), '--ca-file', tlsCertificates().caFile],
    caFile: tlsCertificates().caFile,
    url,
    storyAt,
    goodPages: [
      ...['/', '/a', '/b'].map((p) => url('www.tls.test', p)), ...['/', '/p/1', '/p/2', '/n/1', '/n/2'].map((p) => url('shop.tls.test', p)),
      ...['/', '/x'].map((p) => url('plain.tls.test', p)),
    ],
    badPages: bad.flatMap((n) => ['/', '/e'].map((p) => url(n, p))),
    sitemapListed: ['/p/1', '/p/2'].map((p) => url('shop.tls.test', p)),
    atomListed: ['/n/1', '/n/2'].map((p) => url('shop.tls.test', p)),
  };
  return {
    hosts, seeds, endpoints: {}, tls,
    expected: { mustFetch: tls.goodPages, mustNotFetch: [], hostDelayMs: {}, exactDuplicates: [], nearDuplicates: [], distinctPages: [], trapOrigins: [], sessionTrapPages: [] },
  };
}

function badHost(path: string, res: ServerResponse): boolean {
  if (path === '/' || path === '/e') html(res, page(`a host with a bad certificate ${path}`, ['/e']));
  else return false;
  return true;
}
