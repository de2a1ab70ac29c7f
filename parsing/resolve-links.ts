// Resolving a page's hrefs to absolute URLs, as the URL Standard does, in as few parses as possible.

/**
 * Resolves hrefs against `base`. Node's URL parses the base again for every relative URL; a
 * path-absolute href ("/a/b", the commonest kind) under an http(s) base without credentials is
 * resolved as the base's origin followed by the href, which the URL parser reads the same way
 * (tabs and newlines are dropped, backslashes become slashes, dot segments resolve) in one parse.
 * An absolute http(s) href ignores the base, so it is parsed alone.
 */
const ABSOLUTE_HTTP = /^https?:\/\//i;
export function resolver(base: URL | null): (href: string) => URL | null {
  if (base === null || (base.protocol !== 'http:' && base.protocol !== 'https:') || base.username !== '' || base.password !== '') {
    return (href) => parseUrl(href, base);
  }
  const origin = `${base.protocol}//${base.host}`;
  return (href) => {
    // An absolute http(s) URL ignores the base: parse it alone.
    if (ABSOLUTE_HTTP.test(href)) return parseUrl(href, undefined);
    const second = href.charCodeAt(1);
    // "/x" but not "//host" or "/\host" (scheme-relative), whatever follows.
    if (href.charCodeAt(0) === 0x2f && second !== 0x2f && second !== 0x5c && second !== 0x09 && second !== 0x0a && second !== 0x0d) {
      return parseUrl(origin + href, undefined);
    }
    return parseUrl(href, base);
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
