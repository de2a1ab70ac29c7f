// Deterministic robots.txt files and page links for the matcher bench and the work-bound tests:
// a huge file of short wildcard rules (the shape that stalled a crawl in issue 14), an ordinary
// 20-rule file, and the links of a shop-like page. Seeded, so every run sees the same text.

/** Park–Miller style generator; deterministic across runs and machines. */
export function seededRandom(seed: number): (n: number) => number {
  let state = seed >>> 0 || 1;
  return (n: number) => {
    state = (state * 48271) % 0x7fffffff;
    return Math.floor((state / 0x7fffffff) * n);
  };
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * `count` distinct wildcard rules ("/*" and a 3-character id, some anchored with '$'), written
 * tersely so that 37,000 of them fit in the 500 KiB RFC 9309 asks a parser to read.
 */
export function manyWildcardRules(count: number): string {
  const random = seededRandom(37);
  const lines = ['User-agent: *'];
  const used = new Set<string>();
  while (lines.length <= count) {
    const id = ALNUM[random(36)] + ALNUM[random(36)] + ALNUM[random(36)];
    if (used.has(id)) continue;
    used.add(id);
    // Allow lines are shorter; a mix keeps the file under the limit.
    lines.push(lines.length % 2 === 0 ? `Allow:/*${id}` : `Disallow:/*${id}${random(4) === 0 ? '$' : ''}`);
  }
  return lines.join('\n') + '\n';
}

/** A robots.txt as sites commonly write it: a handful of prefixes, a few wildcards, a sitemap. */
export const TYPICAL_ROBOTS = [
  'User-agent: *',
  'Disallow: /cart',
  'Disallow: /checkout/',
  'Disallow: /account/',
  'Disallow: /search',
  'Allow: /search/help',
  'Disallow: /*?sessionid=',
  'Disallow: /*&sessionid=',
  'Disallow: /*?sort=',
  'Disallow: /*.pdf$',
  'Disallow: /tmp/',
  'Disallow: /admin/',
  'Allow: /admin/public/',
  'Disallow: /api/',
  'Disallow: /*/print$',
  'Disallow: /wishlist/',
  'Allow: /wishlist/shared*',
  'Disallow: /compare',
  'Disallow: /login',
  'Disallow: /register',
  'Disallow: /*?filter=*&page=',
  'Sitemap: /sitemap.xml',
  '',
].join('\n');

const SEGMENTS = ['catalog', 'shoes', 'boots', 'bags', 'news', 'blog', 'help', 'account', 'wishlist', 'search', 'item'];
const PARAMS = ['page', 'sort', 'filter', 'ref', 'q', 'color', 'size', 'sessionid'];

/** `count` absolute links on `origin`, shaped like those extracted from a shop's category page. */
export function pageLinks(origin: string, count: number): string[] {
  const random = seededRandom(5000);
  const links: string[] = [];
  for (let i = 0; i < count; i++) {
    let path = '';
    for (let depth = 1 + random(4); depth > 0; depth--) path += '/' + SEGMENTS[random(SEGMENTS.length)];
    if (random(3) === 0) path += `/product-${random(100_000)}.html`;
    if (random(2) === 0) {
      const params: string[] = [];
      for (let n = 1 + random(3); n > 0; n--) params.push(`${PARAMS[random(PARAMS.length)]}=${random(1000).toString(36)}`);
      path += '?' + params.join('&');
    }
    links.push(origin + path);
  }
  return links;
}
