// Which <loc> values a sitemap may list (https://www.sitemaps.org/protocol.html#location).
//
// - A sitemap found by the crawler itself (a seed, a link, a guessed /sitemap.xml) may list only URLs
//   under its own directory, with its own scheme and host: http://h/dir/sitemap.xml covers
//   http://h/dir/... and nothing else.
// - A sitemap named in robots.txt (fromRobots) may list any URL of the host whose robots.txt named it,
//   by http or https: that robots.txt proves the site owner chose it, even when the file itself is
//   served from another host (sitemaps.org "cross submits").
// - A sitemap index may name sitemaps on its own host or on that host.
// Hosts compare as hostKey() spells them: lowercase, punycode, port kept when not the default.
import { hostKey } from '../url/canonicalize.js';

/** sitemaps.org: "less than 2,048 characters"; the crawler's canonical URLs share this cap. */
export const MAX_URL_LENGTH = 2048;

export type LocRejection = 'invalid' | 'cross-host' | 'out-of-path';
export type LocVerdict = { ok: true } | { ok: false; reason: LocRejection; detail: string };

export class LocationRule {
  readonly host: string;
  private readonly sitemapHost: string;
  private readonly protocol: string;
  private readonly directory: string;

  /** Throws on a sitemapUrl that is not an absolute http(s) URL: that is the caller's bug, not bad input. */
  constructor(sitemapUrl: string, host: string | undefined, private readonly fromRobots: boolean) {
    const base = new URL(sitemapUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new TypeError(`sitemapUrl must be http(s), got ${JSON.stringify(sitemapUrl)}`);
    }
    this.sitemapHost = hostKey(base);
    this.host = host === undefined || host === '' ? this.sitemapHost : host.toLowerCase();
    this.protocol = base.protocol;
    this.directory = base.pathname.slice(0, base.pathname.lastIndexOf('/') + 1);
  }

  /** Whether a <url><loc> (already trimmed) may enter the crawl. */
  checkUrl(loc: string): LocVerdict {
    const parsed = parseLoc(loc);
    if (!(parsed instanceof URL)) return parsed;
    const urlHost = hostKey(parsed);
    if (this.fromRobots) {
      if (urlHost !== this.host) return crossHost(urlHost, this.host);
      return { ok: true };
    }
    if (urlHost !== this.sitemapHost) return crossHost(urlHost, this.sitemapHost);
    if (parsed.protocol !== this.protocol) {
      return { ok: false, reason: 'out-of-path', detail: `scheme ${parsed.protocol} differs from the sitemap's ${this.protocol}` };
    }
    if (!parsed.pathname.startsWith(this.directory)) {
      return { ok: false, reason: 'out-of-path', detail: `path is not under the sitemap's directory ${this.directory}` };
    }
    return { ok: true };
  }

  /** Whether a feed entry's link may enter the crawl: like a page's links, on any host. */
  checkLink(loc: string): LocVerdict {
    const parsed = parseLoc(loc);
    return parsed instanceof URL ? { ok: true } : parsed;
  }

  /** Whether a <sitemap><loc> of an index may be fetched as a child sitemap. */
  checkSitemap(loc: string): LocVerdict {
    const parsed = parseLoc(loc);
    if (!(parsed instanceof URL)) return parsed;
    const urlHost = hostKey(parsed);
    if (urlHost !== this.host && urlHost !== this.sitemapHost) return crossHost(urlHost, this.host);
    return { ok: true };
  }
}

function parseLoc(loc: string): URL | LocVerdict {
  if (loc.length > MAX_URL_LENGTH) {
    return { ok: false, reason: 'invalid', detail: `longer than ${MAX_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(loc);
  } catch {
    return { ok: false, reason: 'invalid', detail: `not an absolute URL: ${quote(loc)}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: 'invalid', detail: `scheme ${url.protocol} is not http(s): ${quote(loc)}` };
  }
  return url;
}

function crossHost(urlHost: string, allowed: string): LocVerdict {
  return { ok: false, reason: 'cross-host', detail: `host ${urlHost} is not ${allowed}` };
}

/** Bounded so that one error message cannot carry a 2 KiB URL. */
export function quote(s: string): string {
  return JSON.stringify(s.length > 80 ? s.slice(0, 80) + '…' : s);
}
