// robots.txt conformance cases from RFC 9309 (section numbers in `ref`) and, where the RFC leaves
// room, the behaviour of Google's reference parser (`ref: 'google'`). Shared by the policy tests and
// by any other implementation that wants to be measured against the same suite.

export const CASE_ROBOTS_URL = 'http://site.example/robots.txt';
const ORIGIN = 'http://site.example';

export interface ConformanceCase {
  name: string;
  ref: string;
  body: string;
  /** Product token of the crawler; 'crawlstream' when absent. */
  token?: string;
  allowed?: string[];
  disallowed?: string[];
  /** Checked only when the property is present (undefined means "no crawl delay"). */
  crawlDelayMs?: number | undefined;
  sitemaps?: string[];
  /** robots.txt URL the body is parsed with (it resolves relative sitemaps); CASE_ROBOTS_URL when absent. */
  robotsUrl?: string;
  /** For a case ported from another suite: repository, file and test name. */
  source?: string;
  /** Set when the source test expects otherwise: what we assert instead and why (RFC 9309 section). */
  divergence?: string;
  /** Set when the source checks something not observable here (counts, warnings): what the case checks instead. */
  adapted?: string;
}

/** Paths in the cases are relative to the robots.txt origin; anything else ('', '//host/p', URLs) is used as written. */
export function caseUrl(path: string): string {
  return path.startsWith('/') && !path.startsWith('//') ? ORIGIN + path : path;
}

const RFC_EXAMPLE = [
  'User-Agent: *',
  'Disallow: *.gif$',
  'Disallow: /example/',
  'Allow: /publications/',
  '',
  'User-Agent: foobot',
  'Disallow:/',
  'Allow:/example/page.html',
  'Allow:/example/allowed.gif',
  '',
  'User-Agent: barbot',
  'User-Agent: bazbot',
  'Disallow: /example/page.html',
  '',
  'User-Agent: quxbot',
  '',
].join('\n');

const KIB_500 = 500 * 1024;

export const CONFORMANCE_CASES: ConformanceCase[] = [
  // §5.1: the RFC's own example, one case per crawler it describes.
  { name: 'RFC example: * group for an unlisted crawler', ref: '5.1', body: RFC_EXAMPLE, token: 'otherbot',
    allowed: ['/', '/publications/x', '/img/a.gif?x=1', '/examples'], disallowed: ['/example/', '/example/x', '/img/a.gif'] },
  { name: 'RFC example: foobot', ref: '5.1', body: RFC_EXAMPLE, token: 'foobot',
    allowed: ['/example/page.html', '/example/allowed.gif'], disallowed: ['/', '/example/other', '/publications/x'] },
  { name: 'RFC example: barbot shares a group', ref: '5.1', body: RFC_EXAMPLE, token: 'barbot',
    allowed: ['/', '/example/', '/img/a.gif'], disallowed: ['/example/page.html'] },
  { name: 'RFC example: bazbot shares a group', ref: '5.1', body: RFC_EXAMPLE, token: 'bazbot',
    allowed: ['/example/x'], disallowed: ['/example/page.html'] },
  { name: 'RFC example: quxbot has an empty group at EOF', ref: '5.1', body: RFC_EXAMPLE, token: 'quxbot',
    allowed: ['/', '/example/x', '/img/a.gif'] },

  // §2.2.1 user-agent lines
  { name: 'product token matched case-insensitively', ref: '2.2.1',
    body: 'User-agent: CrawlStream\nDisallow: /private\n\nUser-agent: *\nDisallow: /', allowed: ['/'], disallowed: ['/private/x'] },
  { name: 'product token given in upper case', ref: '2.2.1', token: 'CRAWLSTREAM',
    body: 'user-agent: crawlstream\ndisallow: /private\n', allowed: ['/'], disallowed: ['/private'] },
  { name: 'user-agent value with a version', ref: 'google', body: 'User-agent: crawlstream/1.0\nDisallow: /x\n',
    allowed: ['/'], disallowed: ['/x'] },
  { name: 'user-agent value with more words after the token', ref: 'google',
    body: 'User-agent: crawlstream bot/1.0\nDisallow: /x\n\nUser-agent: *\nDisallow: /', allowed: ['/'], disallowed: ['/x'] },
  { name: 'user-agent value with trailing spaces and tabs', ref: '2.2.1',
    body: 'User-agent: crawlstream  \t \nDisallow: /x\n\nUser-agent: *\nDisallow: /', allowed: ['/'], disallowed: ['/x'] },
  { name: 'a longer token that merely starts with ours does not match', ref: 'google',
    body: 'User-agent: crawlstreamer\nDisallow: /\n\nUser-agent: *\nDisallow: /star', allowed: ['/', '/x'], disallowed: ['/star'] },
  { name: 'a group for another crawler only: everything allowed', ref: '2.2.1',
    body: 'User-agent: otherbot\nDisallow: /\n', allowed: ['/', '/x'] },
  { name: 'several user-agent lines share one group', ref: '2.2.1',
    body: 'User-agent: alphabot\nUser-agent: crawlstream\nUser-agent: betabot\nDisallow: /shared\n', disallowed: ['/shared'] },
  { name: 'blank lines and comments between user-agent lines keep one group', ref: '2.1',
    body: 'User-agent: crawlstream\n\n# note\nUser-agent: otherbot\nDisallow: /x\n', disallowed: ['/x'] },
  { name: 'empty group at EOF does not fall back to *', ref: '2.1',
    body: 'User-agent: *\nDisallow: /\n\nUser-agent: crawlstream\n', allowed: ['/', '/x'] },
  { name: 'a sitemap record between user-agent lines does not end the group', ref: '2.2.4',
    body: 'User-agent: crawlstream\nSitemap: http://site.example/s.xml\nUser-agent: *\nDisallow: /\n', disallowed: ['/x'] },
  { name: 'a crawl-delay record between user-agent lines does not end the group', ref: '2.2.4',
    body: 'User-agent: crawlstream\nCrawl-delay: 3\n\nUser-agent: *\nDisallow: /\n', disallowed: ['/x'], crawlDelayMs: 3000 },
  { name: 'a crawl-delay applies to the user-agent lines right before it', ref: 'ext', token: 'otherbot',
    body: 'User-agent: crawlstream\nCrawl-delay: 3\n\nUser-agent: *\nDisallow: /\n', disallowed: ['/x'], crawlDelayMs: undefined },
  { name: 'an unknown record between user-agent lines does not end the group', ref: '2.2.4',
    body: 'User-agent: crawlstream\nHost: site.example\nUser-agent: *\nDisallow: /x\n', disallowed: ['/x'] },
  { name: 'group with an empty Disallow does not fall back to *', ref: '2.2.2',
    body: 'User-agent: crawlstream\nDisallow:\n\nUser-agent: *\nDisallow: /\n', allowed: ['/x'] },
  { name: 'all groups for the token are merged', ref: '2.2.1',
    body: 'User-agent: crawlstream\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n\nUser-agent: crawlstream\nDisallow: /c\n',
    allowed: ['/b'], disallowed: ['/a', '/c'] },
  { name: 'all * groups are merged', ref: '2.2.1',
    body: 'User-agent: *\nDisallow: /a\n\nUser-agent: otherbot\nDisallow: /\n\nUser-agent: *\nDisallow: /c\n',
    allowed: ['/b'], disallowed: ['/a', '/c'] },
  { name: '* is not used when a group matches the token', ref: '2.2.1',
    body: 'User-agent: *\nDisallow: /\n\nUser-agent: crawlstream\nDisallow: /private\n', allowed: ['/', '/x'], disallowed: ['/private'] },
  { name: 'no groups at all: everything allowed', ref: '2.2.1', body: '# nothing here\n', allowed: ['/', '/x'] },
  { name: 'rules before the first user-agent line are ignored', ref: '2.2.2',
    body: 'Disallow: /x\nUser-agent: *\nDisallow: /y\n', allowed: ['/x'], disallowed: ['/y'] },

  // §2.2.2 matching
  { name: 'longest match wins (RFC example)', ref: '5.2',
    body: 'User-Agent: crawlstream\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n',
    allowed: ['/example/page/', '/example/page/ok.gif'], disallowed: ['/example/page/disallowed.gif'] },
  { name: 'longest match wins whatever the order', ref: '2.2.2',
    body: 'User-Agent: *\nDisallow: /a/b/c\nAllow: /a\nDisallow: /a/b\nAllow: /a/b/c/d\n',
    allowed: ['/a', '/a/x', '/a/b/c/d/e'], disallowed: ['/a/b', '/a/b/c'] },
  { name: 'Allow wins a tie (allow first)', ref: '2.2.2', body: 'User-agent: *\nAllow: /page\nDisallow: /page\n', allowed: ['/page'] },
  { name: 'Allow wins a tie (disallow first)', ref: '2.2.2', body: 'User-agent: *\nDisallow: /page\nAllow: /page\n', allowed: ['/page'] },
  { name: 'Allow: / and Disallow: / tie', ref: '2.2.2', body: 'User-agent: *\nDisallow: /\nAllow: /\n', allowed: ['/', '/x'] },
  { name: 'matching is case-sensitive', ref: '2.2.2', body: 'User-agent: *\nDisallow: /Private\n',
    allowed: ['/private'], disallowed: ['/Private/x'] },
  { name: 'matching covers the query string', ref: '2.2.2', body: 'User-agent: *\nDisallow: /search?\nDisallow: /*?sessionid=\n',
    allowed: ['/search', '/a?x=1'], disallowed: ['/search?q=1', '/a?sessionid=1'] },
  { name: 'Disallow with an empty value allows everything', ref: '2.2.2', body: 'User-agent: *\nDisallow:\n', allowed: ['/', '/x'] },

  // §2.2.3 special characters
  { name: '* matches any sequence', ref: '2.2.3', body: 'User-agent: *\nDisallow: /*.php\nDisallow: /private*/\n',
    allowed: ['/index.html', '/private'], disallowed: ['/index.php', '/a/b.php?x=1', '/private-x/y'] },
  { name: '$ anchors the end', ref: '2.2.3', body: 'User-agent: *\nDisallow: /*.gif$\nDisallow: /exact$\n',
    allowed: ['/a.gif?x=1', '/a.gifs', '/exact/', '/exactly'], disallowed: ['/a.gif', '/b/c.gif', '/exact'] },
  { name: '$ in the middle of a pattern is literal', ref: 'google', body: 'User-agent: *\nDisallow: /a$b\n',
    allowed: ['/a', '/ab'], disallowed: ['/a$b', '/a$bc'] },
  { name: 'wildcards count towards the match length', ref: 'google', body: 'User-agent: *\nAllow: /$\nDisallow: /\n',
    allowed: ['/'], disallowed: ['/x'] },
  { name: 'encoded * and $ in a rule match them literally', ref: '2.2.3',
    body: 'User-agent: *\nDisallow: /path/file-with-a-%2A.html\nDisallow: /path/foo-%24\n',
    allowed: ['/path/file-with-a-x.html', '/path/foo-'], disallowed: ['/path/file-with-a-*.html', '/path/foo-$'] },

  // §2.2.2 percent-encoding equivalence
  { name: 'rule %7E matches URL ~', ref: '2.2.2', body: 'User-agent: *\nDisallow: /%7Ejoe\n', disallowed: ['/~joe/x'] },
  { name: 'rule ~ matches URL %7E', ref: '2.2.2', body: 'User-agent: *\nDisallow: /~joe\n', disallowed: ['/%7Ejoe/x', '/%7ejoe'] },
  { name: 'escaped unreserved letters match plain ones (RFC table)', ref: '2.2.2', body: 'User-agent: *\nDisallow: /foo/bar/%62%61%7A\n',
    disallowed: ['/foo/bar/baz'] },
  { name: 'escape case does not matter', ref: '2.2.2', body: 'User-agent: *\nDisallow: /a%3cb\nDisallow: /c%3Ed\n',
    disallowed: ['/a%3Cb', '/c%3ed'] },
  { name: 'non-ASCII rule matches encoded and raw URLs', ref: '2.2.2', body: 'User-agent: *\nDisallow: /café\nDisallow: /%E3%83%84\n',
    allowed: ['/cafe'], disallowed: ['/caf%C3%A9', '/caf%c3%a9/x', 'http://site.example/café', 'http://site.example/ツ'] },
  { name: 'encoded non-ASCII rule matches a raw URL', ref: '2.2.2', body: 'User-agent: *\nDisallow: /caf%c3%a9\n',
    disallowed: ['http://site.example/café'] },
  { name: 'an encoded slash is not a slash', ref: '2.2.2', body: 'User-agent: *\nDisallow: /a%2Fb\n',
    allowed: ['/a/b'], disallowed: ['/a%2Fb', '/a%2fb'] },

  // §2.2.2 /robots.txt
  { name: '/robots.txt is always allowed', ref: '2.2.2', body: 'User-agent: *\nDisallow: /\n',
    allowed: ['/robots.txt'], disallowed: ['/', '/robots.txt.bak'] },

  // §2.1 / §2.3 file format
  { name: 'UTF-8 byte order mark', ref: 'google', body: '\uFEFFUser-agent: *\nDisallow: /x\n', disallowed: ['/x'] },
  { name: 'CR line ends', ref: '2.1', body: 'User-agent: *\rDisallow: /x\rAllow: /x/y\r', allowed: ['/x/y'], disallowed: ['/x'] },
  { name: 'CRLF line ends', ref: '2.1', body: 'User-agent: *\r\nDisallow: /x\r\nAllow: /x/y\r\n', allowed: ['/x/y'], disallowed: ['/x'] },
  { name: 'mixed line ends', ref: '2.1', body: 'User-agent: otherbot\r\nDisallow: /\r\rUser-agent: *\nDisallow: /x\r\n',
    allowed: ['/'], disallowed: ['/x'] },
  { name: 'comments', ref: '2.2.3', body: 'User-agent: * # everyone\nDisallow: /x # secret\n# Disallow: /y\nDisallow: /a#b\n',
    allowed: ['/y', '/b'], disallowed: ['/x', '/a', '/ab'] },
  { name: 'unknown lines are ignored', ref: '2.2.4', body: 'User-agent: *\nNoindex: /x\nFoo: bar\nHost: other.example\nDisallow: /y\n',
    allowed: ['/x'], disallowed: ['/y'] },
  { name: 'directives are case-insensitive', ref: '2.1', body: 'USER-AGENT: *\nDISALLOW: /x\nallow: /x/y\n',
    allowed: ['/x/y'], disallowed: ['/x'] },
  { name: 'whitespace around the colon', ref: '2.1', body: '  User-agent  :  *  \n\tDisallow\t:\t/x\t\n', disallowed: ['/x'] },
  { name: 'a line without a colon is read with whitespace as separator', ref: 'google', body: 'User-agent *\nDisallow /x\n',
    allowed: ['/'], disallowed: ['/x'] },
  { name: 'a line without a colon and with three words is ignored', ref: 'google', body: 'User-agent: *\nDisallow /x /y\n',
    allowed: ['/x', '/y'] },
  { name: 'common misspellings', ref: 'google', body: 'Useragent: *\nDissallow: /a\nDisalow: /b\n', disallowed: ['/a', '/b'] },
  { name: 'only the first 500 KiB are parsed', ref: '2.5',
    body: 'User-agent: *\nDisallow: /a\n#' + 'x'.repeat(KIB_500) + '\nDisallow: /b\n', allowed: ['/b'], disallowed: ['/a'] },
  { name: 'the 500 KiB limit counts UTF-8 bytes, not characters', ref: '2.5',
    body: 'User-agent: *\n#' + 'é'.repeat(KIB_500 / 2 + 10) + '\nDisallow: /b\n', allowed: ['/b'] },
  { name: 'a file under 500 KiB is parsed to its end', ref: '2.5',
    body: 'User-agent: *\n#' + 'é'.repeat(KIB_500 / 2 - 100) + '\nDisallow: /b\n', disallowed: ['/b'] },

  // crawl-delay (non-standard) and sitemaps (§2.2.4)
  { name: 'crawl-delay of the matched group', ref: 'ext', body: 'User-agent: *\nCrawl-delay: 10\n\nUser-agent: crawlstream\nCrawl-delay: 2.5\n',
    crawlDelayMs: 2500 },
  { name: 'crawl-delay of * applies when no group matches', ref: 'ext', body: 'User-agent: *\nCrawl-delay: 4\n', crawlDelayMs: 4000 },
  { name: 'crawl-delay of * does not apply to a matched group without one', ref: 'ext',
    body: 'User-agent: *\nCrawl-delay: 10\n\nUser-agent: crawlstream\nDisallow: /x\n', crawlDelayMs: undefined },
  { name: 'an unreadable crawl-delay is ignored', ref: 'ext', body: 'User-agent: *\nCrawl-delay: soon\n', crawlDelayMs: undefined },
  { name: 'sitemaps anywhere in the file', ref: '2.2.4',
    body: 'Sitemap: http://site.example/a.xml\nUser-agent: *\nDisallow: /x\nsitemap: http://cdn.site.example/b.xml\n',
    disallowed: ['/x'], sitemaps: ['http://site.example/a.xml', 'http://cdn.site.example/b.xml'] },
];

/** What a policy must offer to be checked against the cases (RobotsPolicy does). */
export interface CheckedPolicy {
  isAllowed(url: string): boolean;
  crawlDelayMs: number | undefined;
  sitemaps: string[];
}

/** The ways a policy parsed from `c.body` disagrees with the case; empty when it conforms. */
export function caseFailures(c: ConformanceCase, parse: (body: string, robotsUrl: string, token: string) => CheckedPolicy): string[] {
  const policy = parse(c.body, c.robotsUrl ?? CASE_ROBOTS_URL, c.token ?? 'crawlstream');
  const failures: string[] = [];
  for (const path of c.allowed ?? []) if (policy.isAllowed(caseUrl(path)) !== true) failures.push(`should allow ${shorten(path)}`);
  for (const path of c.disallowed ?? []) if (policy.isAllowed(caseUrl(path)) !== false) failures.push(`should disallow ${shorten(path)}`);
  if ('crawlDelayMs' in c && policy.crawlDelayMs !== c.crawlDelayMs) failures.push(`crawl delay ${policy.crawlDelayMs}, expected ${c.crawlDelayMs}`);
  if (c.sitemaps && JSON.stringify(policy.sitemaps) !== JSON.stringify(c.sitemaps)) failures.push(`sitemaps ${JSON.stringify(policy.sitemaps)}`);
  return failures;
}

function shorten(path: string): string {
  return path.length > 80 ? `${path.slice(0, 60)}… (${path.length} chars)` : JSON.stringify(path);
}
