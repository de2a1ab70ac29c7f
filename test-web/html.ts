// HTML rendering and URL canonicalization for the synthetic web.
// The canonical form here is the one `ExpectedOutcomes` is written in; the server also routes by it, so a
// crawler that forgets to strip a tracking parameter still gets the page (and shows up as a duplicate fetch).

/** Query parameters that never identify content: dropped by canonicalization. */
export const IGNORED_PARAMS = /^(utm_[a-z]+|sid|jsessionid|phpsessid|sessionid)$/i;

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function paramName(pair: string): string {
  const raw = pair.split('=')[0] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function canonicalPathAndQuery(u: URL): string {
  const path = u.pathname.replace(/;jsessionid=[^/]*/gi, '');
  const pairs = u.search
    .slice(1)
    .split('&')
    .filter((p) => p !== '' && !IGNORED_PARAMS.test(paramName(p)))
    .sort();
  return pairs.length > 0 ? `${path}?${pairs.join('&')}` : path;
}

/** scheme://address:port/path?sorted-query — no fragment, no tracking or session parameters. */
export function canonicalUrl(input: string | URL): string {
  const u = new URL(typeof input === 'string' ? input : input.href);
  return `${u.protocol}//${u.host}${canonicalPathAndQuery(u)}`;
}

/** Resolves an href the way a browser does (WHATWG URL), then canonicalizes; null if it is not http(s). */
export function resolveLink(href: string, base: string): string | null {
  let u: URL;
  try {
    u = new URL(href, base);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  return canonicalUrl(u);
}

/** The page key a request maps to: canonical path + sorted query, or null when the target is unparseable. */
export function routeKey(requestTarget: string): string | null {
  try {
    // Prefixing (instead of resolving) keeps a target such as "//x/y" a path rather than a host.
    const u = requestTarget.startsWith('/') ? new URL(`http://route.invalid${requestTarget}`) : new URL(requestTarget);
    return canonicalPathAndQuery(u);
  } catch {
    return null;
  }
}

export interface Link {
  href: string; // exactly as written in the HTML
  text: string;
  /** Canonical absolute URL a correct crawler derives from href, or null when it must not yield a fetch. */
  to: string | null;
  nofollow?: boolean;
  nav?: boolean;
}

export interface PageView {
  siteName: string;
  title: string;
  paragraphs: string[];
  links: Link[];
  baseHref?: string;
  metaNofollow?: boolean;
  /** A line shown above the article (e.g. "Updated at … · view …"). */
  byline?: string;
}

function anchor(l: Link): string {
  return `<a href="${escapeHtml(l.href)}"${l.nofollow ? ' rel="nofollow"' : ''}>${escapeHtml(l.text)}</a>`;
}

/** What every synthetic page says of itself in <meta name="description"> (for extension tests). */
export function metaDescription(v: Pick<PageView, 'title' | 'siteName'>): string {
  return `${v.title} — ${v.siteName}`;
}

export function renderPage(v: PageView): string {
  const head = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(v.title)}</title>`,
    `<meta name="description" content="${escapeHtml(metaDescription(v))}">`,
  ];
  if (v.baseHref !== undefined) head.push(`<base href="${escapeHtml(v.baseHref)}">`);
  if (v.metaNofollow) head.push('<meta name="robots" content="nofollow">');
  const nav = v.links.filter((l) => l.nav);
  const body = v.links.filter((l) => !l.nav);
  return [
    '<!doctype html>',
    '<html lang="en">',
    `<head>${head.join('')}</head>`,
    '<body>',
    `<header><p class="site">${escapeHtml(v.siteName)}</p><nav>${nav.map(anchor).join(' | ')}</nav></header>`,
    '<main>',
    `<h1>${escapeHtml(v.title)}</h1>`,
    v.byline !== undefined ? `<p class="byline">${escapeHtml(v.byline)}</p>` : '',
    ...v.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    body.length > 0 ? `<ul class="links">${body.map((l) => `<li>${anchor(l)}</li>`).join('')}</ul>` : '',
    '</main>',
    `<footer><p>${escapeHtml(v.siteName)} is a synthetic site served on loopback for crawler tests.</p></footer>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
