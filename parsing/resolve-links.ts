// Resolving a page's hrefs to absolute URLs, as the URL Standard does, in as few parses as possible.

/**
 * Resolves hrefs against `base` to the href of an http(s) URL, or null (unparsable, or another
 * scheme). Node's URL parses the base again for every relative URL; a path-absolute href ("/a/b",
 * the commonest kind) under an http(s) base without credentials is resolved as the base's origin
 * followed by the href, which the URL parser reads the same way (tabs and newlines are dropped,
 * backslashes become slashes, dot segments resolve) in one parse. An absolute http(s) href ignores
 * the base, so it is parsed alone. And the commonest hrefs of all are not parsed: a plain path
 * ("/p/9") or a plain absolute URL ("http://host:8080/p/9"), which the parser would return as they
 * are (isPlainPath, plainAbsolute; resolve-links.test.ts holds them to the parser), are taken as
 * they are.
 */
const ABSOLUTE_HTTP = /^https?:\/\//i;
export function resolver(base: URL | null): (href: string) => string | null {
  if (base === null || (base.protocol !== 'http:' && base.protocol !== 'https:') || base.username !== '' || base.password !== '') {
    return (href) => httpHref(parseUrl(href, base));
  }
  const origin = `${base.protocol}//${base.host}`;
  return (href) => {
    // An absolute http(s) URL ignores the base: parse it alone.
    if (ABSOLUTE_HTTP.test(href)) return plainAbsolute(href) ? href : httpHref(parseUrl(href, undefined));
    const second = href.charCodeAt(1);
    // "/x" but not "//host" or "/\host" (scheme-relative), whatever follows.
    if (href.charCodeAt(0) === 0x2f && second !== 0x2f && second !== 0x5c && second !== 0x09 && second !== 0x0a && second !== 0x0d) {
      return isPlainPath(href, 0) ? origin + href : httpHref(parseUrl(origin + href, undefined));
    }
    return httpHref(parseUrl(href, base));
  };
}

export function parseUrl(href: string, base: URL | null | undefined): URL | null {
  if (base === null) base = undefined;
  try {
    return new URL(href, base);
  } catch {
    return null;
  }
}

function httpHref(url: URL | null): string | null {
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') ? url.href : null;
}

// Characters of a path the URL parser writes out as they are: letters, digits, - . _ ~ and /.
const PLAIN = new Uint8Array(128);
for (const c of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/') PLAIN[c.charCodeAt(0)] = 1;

/**
 * Whether `s.slice(from)` is a path the URL parser leaves as it is: '/' then plain characters
 * only (no '%', query, fragment, backslash, whitespace or non-ASCII) and no dot segment (no '.'
 * right after a '/').
 */
export function isPlainPath(s: string, from: number): boolean {
  if (s.charCodeAt(from) !== 0x2f) return false;
  for (let i = from + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || PLAIN[c] === 0) return false;
    if (c === 0x2e && s.charCodeAt(i - 1) === 0x2f) return false;
  }
  return true;
}

/**
 * Whether `href` is an http(s) URL that the URL parser writes out as it is: a lower-case scheme, a
 * host of lower-case letters, digits and single dots and hyphens (a numeric last label only as a
 * canonical IPv4 address; no "--", so no punycode to check), a port other than the scheme's own
 * without leading zeros, and a plain path (isPlainPath).
 */
export function plainAbsolute(href: string): boolean {
  let i = href.startsWith('http://') ? 7 : href.startsWith('https://') ? 8 : -1;
  if (i < 0) return false;
  const hostStart = i;
  let labelStart = i;
  let lastLabel = i;
  let labels = 1;
  for (; i < href.length; i++) {
    const c = href.charCodeAt(i);
    if (c === 0x2e) {
      if (i === labelStart) return false;
      labelStart = lastLabel = i + 1;
      labels++;
      continue;
    }
    if (c === 0x3a || c === 0x2f) break;
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d)) return false;
    if (c === 0x2d && href.charCodeAt(i - 1) === 0x2d) return false;
  }
  const hostEnd = i;
  if (hostEnd === labelStart) return false; // empty host or label, or a trailing dot
  const last = href.charCodeAt(lastLabel);
  if (last >= 0x30 && last <= 0x39 && !isCanonicalIpv4(href.slice(hostStart, hostEnd), labels)) return false;
  if (href.charCodeAt(i) === 0x3a) {
    const portStart = ++i;
    while (i < href.length && href.charCodeAt(i) >= 0x30 && href.charCodeAt(i) <= 0x39) i++;
    const port = href.slice(portStart, i);
    if (port.length === 0 || port.length > 5 || port[0] === '0' || Number(port) > 65535) return false;
    if (port === (hostStart === 7 ? '80' : '443')) return false;
  }
  return isPlainPath(href, i);
}

/** Four decimal numbers of 0-255 without leading zeros, as the URL parser writes an IPv4 address. */
function isCanonicalIpv4(host: string, labels: number): boolean {
  if (labels !== 4) return false;
  let value = 0, digits = 0;
  for (let i = 0; i <= host.length; i++) {
    const c = i < host.length ? host.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      if (digits === 0 || value > 255) return false;
      value = digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (digits === 1 && value === 0) return false; // a leading zero
      value = value * 10 + (c - 0x30);
      if (++digits > 3) return false;
    } else {
      return false;
    }
  }
  return true;
}
