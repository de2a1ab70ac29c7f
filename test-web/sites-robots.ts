// robots.txt variants (RFC 9309), one host each. Every rule has linked URLs on both sides of it; pages marked
// `disallowed` are what the served robots.txt forbids for the product token "crawlstream" (the tests check the
// flags against an independent robots.txt parser).
import type { Site } from './site.js';
import type { SiteLookup } from './sites-plain.js';
import { articleParagraphs, inventTitle } from './text.js';

export const PRODUCT_TOKEN = 'crawlstream';

export const ROBOTS_REDIRECTED_BODY = 'User-agent: *\nDisallow: /private/\n';

export const ROBOTS_TOKEN_BODY = [
  '# Everybody else is shut out; crawlstream has a group of its own further down.',
  'User-agent: *',
  'Disallow: /',
  '',
  'User-agent: othercrawler',
  'Disallow: /page-1',
  '',
  'User-agent: crawlstream',
  'Disallow: /not-for-crawlstream/',
  '',
].join('\n');

export const ROBOTS_MATCH_BODY = [
  'User-agent: *',
  'Disallow: /shop/',
  'Allow: /shop/public/',
  'Disallow: /*.pdf$',
  'Allow: /docs/*.pdf$',
  'Disallow: /search',
  'Allow: /search/about$',
  '',
].join('\n');

/** A small site: `/` links to every other path given; each entry is [path, disallowed]. */
function smallSite(s: Site, paths: Array<[string, boolean]>): void {
  const text = (p: string) => articleParagraphs(`${s.name}${p}`, 120);
  s.siteName = `${inventTitle(s.name, 1)} (${s.name})`;
  s.seed = true;
  s.page('/', { title: `${s.siteName} home`, paragraphs: text('/') }, (a) => paths.map(([p]) => a(p, `Link to ${p}`)));
  for (const [p, disallowed] of paths) {
    s.page(p, { title: `${inventTitle(s.name + p, 2)} · ${s.name}`, paragraphs: text(p), disallowed }, (a) => [
      a('/', 'Home'),
    ]);
  }
}

export function buildRobotsSites(get: SiteLookup): void {
  const r404 = get('robots-404');
  r404.robots = { status: 404 };
  smallSite(r404, [['/page-1', false], ['/page-2', false]]);

  // RFC 9309 §2.3.1.3: 4xx means "no restrictions", even a 403.
  const r403 = get('robots-403');
  r403.robots = { status: 403 };
  smallSite(r403, [['/page-1', false], ['/private/page', false]]);

  // 5xx: assume complete disallow until robots.txt can be read.
  const r503 = get('robots-503');
  r503.robots = { status: 503 };
  r503.robotsUnavailable = true;
  smallSite(r503, [['/page-1', false]]);

  const redirect = get('robots-redirect');
  redirect.robots = { status: 301, location: '/policy/robots.txt' };
  smallSite(redirect, [
    ['/public/page', false],
    ['/private/', true],
    ['/private/page', true],
    ['/privateer', false],
  ]);
  redirect.page(
    '/policy/robots.txt',
    {
      title: 'robots.txt',
      unlisted: true,
      serve: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(ROBOTS_REDIRECTED_BODY);
      },
    },
    undefined,
    false,
  );

  const token = get('robots-token');
  token.robots = { status: 200, body: ROBOTS_TOKEN_BODY };
  smallSite(token, [
    ['/page-1', false],
    ['/not-for-crawlstream/page', true],
    ['/not-for-crawlstream', false],
  ]);

  const match = get('robots-match');
  match.robots = { status: 200, body: ROBOTS_MATCH_BODY };
  smallSite(match, [
    ['/shop', false], // "/shop/" does not match "/shop"
    ['/shop/cart', true],
    ['/shop/public/item', false],
    ['/shop/public/brochure.pdf', false], // Allow /shop/public/ (13 chars) beats Disallow /*.pdf$ (7)
    ['/shop/catalog.pdf', true],
    ['/files/report.pdf', true],
    ['/files/report.pdf?v=2', false], // "$" anchors at the end of path+query
    ['/files/report.pdfx', false],
    ['/docs/manual.pdf', false], // Allow /docs/*.pdf$ (14) beats Disallow /*.pdf$ (7)
    ['/docs/', false],
    ['/search?q=widgets', true],
    ['/searching', true], // prefix match: "/search" covers "/searching"
    ['/search/about', false],
    ['/search/about/more', true],
  ]);

  const delay = get('robots-delay');
  delay.robots = { status: 200, body: 'User-agent: *\nCrawl-delay: 2\nAllow: /\n' };
  delay.crawlDelayMs = 2000;
  smallSite(delay, [['/page-1', false], ['/page-2', false]]);
}
