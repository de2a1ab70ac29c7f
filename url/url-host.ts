// The host[:port] of an absolute http(s) URL the crawl wrote itself (a link the parse worker resolved),
// without a WHATWG parse when the URL's authority is already in the form the parser would give it.
// A page's 15-25 links each cost the main thread a URL parse twice (parse's routing key, the sink's
// link_hosts) for a string that is, almost always, plainly there between `//` and the next `/`.

/** A lowercase host name whose last label starts with a letter (never an IPv4 address to normalise), and an optional port. */
const PLAIN_AUTHORITY = /^(?:[a-z0-9-]+\.)*[a-z][a-z0-9-]*(?::[1-9][0-9]{0,4})?$/;
/** Or a dotted quad of canonical decimal parts (no leading zeros), and an optional port. */
const PLAIN_IPV4 = /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(?::[1-9][0-9]{0,4})?$/;

/**
 * `new URL(url).host` for `url`, or undefined when the URL is not absolute http(s) in plain form
 * (the caller then parses it): the same answer as the WHATWG parser's, or none.
 */
export function plainHost(url: string): string | undefined {
  const start = url.startsWith('http://') ? 7 : url.startsWith('https://') ? 8 : -1;
  if (start < 0) return undefined;
  let end = start;
  while (end < url.length) {
    const c = url.charCodeAt(end);
    if (c === 0x2f || c === 0x3f || c === 0x23) break; // / ? #
    end++;
  }
  const authority = url.slice(start, end);
  if (!PLAIN_AUTHORITY.test(authority) && !PLAIN_IPV4.test(authority)) return undefined;
  const colon = authority.indexOf(':');
  if (colon >= 0) {
    const port = Number(authority.slice(colon + 1));
    // The parser drops a scheme's default port and refuses one past 65535.
    if (port > 65535 || port === (start === 7 ? 80 : 443)) return undefined;
  }
  return authority;
}
