// Test vectors of Google's robots.txt parser (github.com/google/robotstxt, robots_test.cc, read at
// commit 22b355f), ported as data: robots.txt text, product token, URL, expected decision. Each
// case names its gtest. Google's tests use hosts such as foo.bar; only the path (and query)
// decides, so URLs are given as paths, and hosts that must stay are renamed to *.test.
// `divergence` marks the few vectors where Google's expectation is not RFC 9309's (or not our API's):
// the case then asserts what we do and says why.
import type { ConformanceCase } from './conformance-cases.js';

const SUITE = 'google/robotstxt robots_test.cc';

function g(test: string, detail: string, c: Omit<ConformanceCase, 'name' | 'ref' | 'source'>): ConformanceCase {
  return { name: detail === '' ? test : `${test}: ${detail}`, ref: 'google', source: `${SUITE} ${test}`, ...c };
}

/** Bytes as politeness/robots-gate.ts turns them into the body: TextDecoder('utf-8'), which drops a whole BOM. */
function decoded(bytes: number[], text: string): string {
  return new TextDecoder('utf-8').decode(Buffer.concat([Buffer.from(bytes), Buffer.from(text, 'utf8')]));
}

const FOO_DISALLOW_ALL = 'user-agent: FooBot\ndisallow: /\n';
const GROUPS = 'allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\ndisallow: /\n'
  + 'allow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n';
const OTHER_RULES_SITEMAP = 'User-agent: BarBot\nSitemap: https://foo.test/sitemap\nUser-agent: *\nDisallow: /\n';
const OTHER_RULES_UNKNOWN = 'User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n';
const GLOBAL = 'user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n';
const UP_TO_SPACE = 'User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n';
const INDEX_HTML = 'User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n';

// GoogleOnly_LineTooLong: a line is cut after 8 × 2083 bytes; the rule keeps what was read.
const MAX_LINE = 2083 * 8;
const longLine = (fill: string, prefix: string) => '/x/' + fill.repeat(MAX_LINE - 3 - prefix.length + 1 - 3);
const LONG_DISALLOW = longLine('a', 'disallow: ');
const LONG_ALLOW_A = longLine('a', 'allow: ');
const LONG_ALLOW_B = longLine('b', 'allow: ');

const LINE_ENDS: [string, string][] = [
  ['unix', 'User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n'],
  ['dos', 'User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n'],
  ['mac', 'User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r'],
  ['no final newline', 'User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /'],
  ['mixed', 'User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /'],
];

// ID_UTF8ByteOrderMarkIsSkipped counts directives; a "*" group after them shows whether the
// "User-Agent: foo" line was read (foo then has its own group) or skipped (foo falls back to "*").
const BOM_TAIL = 'User-Agent: foo\nAllow: /AnyValue\n';
const STAR_DISALLOW_ALL = 'User-agent: *\nDisallow: /\n';
const BOM_ADAPTED = 'source counts the directives read; here a trailing "User-agent: * / Disallow: /" group shows whether "User-Agent: foo" was read';

// TestGetPathParamsQuery: the path (and query) a URL is judged by, observed through "Allow: <path>$".
const exactPath = (path: string) => `User-agent: *\nDisallow: /\nAllow: ${path}$\n`;
const PATH_OF_URL: [url: string, path: string][] = [
  ['', '/'], ['http://www.example.test', '/'], ['http://www.example.test/', '/'], ['http://www.example.test/a', '/a'],
  ['http://www.example.test/a/', '/a/'], ['http://www.example.test/a/b?c=http://d.e/', '/a/b?c=http://d.e/'],
  ['http://www.example.test/a/b?c=d&e=f#fragment', '/a/b?c=d&e=f'], ['/a', '/a'], ['//a/b/c', '/b/c'],
];
/** Scheme-less "host/path" strings: Google's helper guesses a host; our isAllowed takes a URL or a path. */
const HOSTLESS: [url: string, googlePath: string][] = [
  ['example.test', '/'], ['example.test/', '/'], ['example.test/a', '/a'], ['example.test/a/', '/a/'],
  ['example.test/a/b?c=d&e=f#fragment', '/a/b?c=d&e=f'], ['a', '/'], ['a/', '/'], ['a/b', '/b'],
  ['example.test?a', '/?a'], ['example.test/a;b#c', '/a;b'],
];
const HOSTLESS_WHY = 'isAllowed takes an absolute URL or a path; a scheme-less string is a relative path resolved '
  + 'against the host root ("example.test/a" is /example.test/a), so the path Google guesses does not match';

const DOCS = (allow: string) => `user-agent: FooBot\ndisallow: /\nallow: ${allow}\n`;

export const GOOGLE_CASES: ConformanceCase[] = [
  g('GoogleOnly_SystemTest', 'empty robots.txt', { body: '', token: 'FooBot', allowed: [''] }),
  g('GoogleOnly_SystemTest', 'empty product token', { body: FOO_DISALLOW_ALL, token: '', allowed: [''] }),
  // Google: an empty URL is disallowed by design; for us '' is the root path, which Disallow: / covers.
  g('GoogleOnly_SystemTest', 'empty URL', { body: FOO_DISALLOW_ALL, token: 'FooBot', disallowed: [''] }),
  g('GoogleOnly_SystemTest', 'all empty', { body: '', token: '', allowed: [''] }),

  g('ID_LineSyntax_Line', 'correct', { body: FOO_DISALLOW_ALL, token: 'FooBot', disallowed: ['/x/y'] }),
  g('ID_LineSyntax_Line', 'incorrect', { body: 'foo: FooBot\nbar: /\n', token: 'FooBot', allowed: ['/x/y'] }),
  g('ID_LineSyntax_Line', 'missing colon accepted', { body: 'user-agent FooBot\ndisallow /\n', token: 'FooBot', disallowed: ['/x/y'] }),

  g('ID_LineSyntax_Groups', 'FooBot', { body: GROUPS, token: 'FooBot', allowed: ['/x/b', '/z/d'], disallowed: ['/y/c', '/foo/bar/'] }),
  g('ID_LineSyntax_Groups', 'BarBot', { body: GROUPS, token: 'BarBot', allowed: ['/y/c', '/w/a'], disallowed: ['/z/d', '/foo/bar/'] }),
  g('ID_LineSyntax_Groups', 'BazBot', { body: GROUPS, token: 'BazBot', allowed: ['/z/d'], disallowed: ['/foo/bar/'] }),

  g('ID_LineSyntax_Groups_OtherRules', 'sitemap, FooBot', { body: OTHER_RULES_SITEMAP, token: 'FooBot', disallowed: ['/'] }),
  g('ID_LineSyntax_Groups_OtherRules', 'sitemap, BarBot', { body: OTHER_RULES_SITEMAP, token: 'BarBot', disallowed: ['/'] }),
  g('ID_LineSyntax_Groups_OtherRules', 'unknown line, FooBot', { body: OTHER_RULES_UNKNOWN, token: 'FooBot', disallowed: ['/'] }),
  g('ID_LineSyntax_Groups_OtherRules', 'unknown line, BarBot', { body: OTHER_RULES_UNKNOWN, token: 'BarBot', disallowed: ['/'] }),

  ...['USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n', 'user-agent: FooBot\nallow: /x/\ndisallow: /\n',
    'uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n'].map((body, i) =>
    g('ID_REPLineNamesCaseInsensitive', ['upper', 'lower', 'camel'][i], { body, token: 'FooBot', allowed: ['/x/y'], disallowed: ['/a/b'] })),

  ...['FOO BAR', 'foo bar', 'FoO bAr'].flatMap((agent) => ['Foo', 'foo'].map((token) =>
    g('ID_UserAgentValueCaseInsensitive', `"${agent}" for ${token}`,
      { body: `User-Agent: ${agent}\nAllow: /x/\nDisallow: /\n`, token, allowed: ['/x/y'], disallowed: ['/a/b'] }))),

  g('GoogleOnly_AcceptUserAgentUpToFirstSpace', 'Foo', { body: UP_TO_SPACE, token: 'Foo', allowed: ['/x/y'] }),
  g('GoogleOnly_AcceptUserAgentUpToFirstSpace', '"Foo Bar" as our token', {
    body: UP_TO_SPACE, token: 'Foo Bar', allowed: ['/x/y'],
    divergence: 'Google matches the whole string "Foo Bar" and falls back to "*"; parseRobotsTxt reduces the crawler\'s '
      + 'token to its product token "foo" (a product token has no spaces, RFC 9309 §2.2.1), which the "Foo Bar" group names',
  }),

  g('ID_GlobalGroups_Secondary', 'empty file', { body: '', token: 'FooBot', allowed: ['/x/y'] }),
  g('ID_GlobalGroups_Secondary', 'specific group wins', { body: GLOBAL, token: 'FooBot', disallowed: ['/x/y'] }),
  g('ID_GlobalGroups_Secondary', 'global group', { body: GLOBAL, token: 'BarBot', allowed: ['/x/y'] }),
  g('ID_GlobalGroups_Secondary', 'no group applies', {
    body: 'user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n', token: 'QuxBot', allowed: ['/x/y'],
  }),

  g('ID_AllowDisallow_Value_CaseSensitive', 'lowercase rule', { body: 'user-agent: FooBot\ndisallow: /x/\n', token: 'FooBot', disallowed: ['/x/y'] }),
  g('ID_AllowDisallow_Value_CaseSensitive', 'uppercase rule', { body: 'user-agent: FooBot\ndisallow: /X/\n', token: 'FooBot', allowed: ['/x/y'] }),

  g('ID_LongestMatch', 'longer disallow', { body: 'user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n', token: 'FooBot', disallowed: ['/x/page.html'] }),
  g('ID_LongestMatch', 'longer allow', { body: 'user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n', token: 'FooBot', allowed: ['/x/page.html'], disallowed: ['/x/'] }),
  g('ID_LongestMatch', 'empty patterns', { body: 'user-agent: FooBot\ndisallow: \nallow: \n', token: 'FooBot', allowed: ['/x/page.html'] }),
  g('ID_LongestMatch', 'equal root patterns', { body: 'user-agent: FooBot\ndisallow: /\nallow: /\n', token: 'FooBot', allowed: ['/x/page.html'] }),
  g('ID_LongestMatch', 'slash decides', { body: 'user-agent: FooBot\ndisallow: /x\nallow: /x/\n', token: 'FooBot', disallowed: ['/x'], allowed: ['/x/'] }),
  g('ID_LongestMatch', 'equal patterns', { body: 'user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n', token: 'FooBot', allowed: ['/x/page.html'] }),
  g('ID_LongestMatch', 'wildcard longer', { body: 'user-agent: FooBot\nallow: /page\ndisallow: /*.html\n', token: 'FooBot', disallowed: ['/page.html'], allowed: ['/page'] }),
  g('ID_LongestMatch', 'literal longer', { body: 'user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n', token: 'FooBot', allowed: ['/x/page.html'], disallowed: ['/x/y.html'] }),
  g('ID_LongestMatch', 'specific group only', {
    body: 'User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n', token: 'FooBot', allowed: ['/x/page'], disallowed: ['/y/page'],
  }),

  g('ID_Encoding', 'query with a URL', {
    body: 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.test?tar&par\n', token: 'FooBot',
    allowed: ['/foo/bar?qux=taz&baz=http://foo.test?tar&par'],
  }),
  g('ID_Encoding', 'raw 3-byte character in the rule', { body: 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n', token: 'FooBot', allowed: ['/foo/bar/%E3%83%84'] }),
  g('ID_Encoding', 'raw 3-byte character in rule and URL', {
    body: 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n', token: 'FooBot', allowed: ['/foo/bar/ツ'],
    divergence: 'Google leaves encoding the URL to the caller and so disallows the raw URL; RFC 9309 §2.2.2 says non-ASCII '
      + 'octets MUST be percent-encoded before comparing, which isAllowed does, so /foo/bar/ツ is the allowed /foo/bar/%E3%83%84',
  }),
  g('ID_Encoding', 'encoded 3-byte character in the rule', { body: 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n', token: 'FooBot', allowed: ['/foo/bar/%E3%83%84'] }),
  g('ID_Encoding', 'encoded 3-byte character in the rule, raw URL', {
    body: 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n', token: 'FooBot', allowed: ['/foo/bar/ツ'],
    divergence: 'as above: RFC 9309 §2.2.2 percent-encodes the URL\'s non-ASCII octets before comparing',
  }),
  g('ID_Encoding', 'encoded unreserved characters, same spelling', { body: 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n', token: 'FooBot', allowed: ['/foo/bar/%62%61%7A'] }),
  g('ID_Encoding', 'encoded unreserved characters, plain URL', {
    body: 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n', token: 'FooBot', allowed: ['/foo/bar/baz'],
    divergence: 'Google compares the spellings and disallows /foo/bar/baz; the table in RFC 9309 §2.2.2 lists '
      + '/foo/bar/%62%61%7A as matching /foo/bar/baz (escapes of unreserved characters are those characters, RFC 3986 §2.3)',
  }),

  g('ID_SpecialCharacters', 'wildcard', {
    body: 'User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n', token: 'FooBot',
    disallowed: ['/foo/bar/quz'], allowed: ['/foo/quz', '/foo//quz', '/foo/bax/quz'],
  }),
  g('ID_SpecialCharacters', 'end anchor', {
    body: 'User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n', token: 'FooBot',
    disallowed: ['/foo/bar'], allowed: ['/foo/bar/qux', '/foo/bar/', '/foo/bar/baz'],
  }),
  g('ID_SpecialCharacters', 'comments', {
    body: 'User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n', token: 'FooBot', allowed: ['/foo/bar'], disallowed: ['/foo/quz'],
  }),

  g('GoogleOnly_IndexHTMLisDirectory', 'exact and other URLs', {
    body: INDEX_HTML, token: 'foobot', allowed: ['/allowed-slash/index.html'], disallowed: ['/allowed-slash/index.htm', '/anyother-url'],
  }),
  g('GoogleOnly_IndexHTMLisDirectory', 'the directory itself', {
    body: INDEX_HTML, token: 'foobot', disallowed: ['/allowed-slash/'],
    divergence: 'Google-only: Google reads "Allow: /d/index.html" as also allowing /d/; RFC 9309 §2.2.2 has no such '
      + 'equivalence, so /allowed-slash/ matches only Disallow: /',
  }),

  g('GoogleOnly_LineTooLong', 'cut disallow', {
    body: `user-agent: FooBot\ndisallow: ${LONG_DISALLOW}/qux\n`, token: 'FooBot', allowed: ['/fux'], disallowed: [`${LONG_DISALLOW}/fux`],
  }),
  g('GoogleOnly_LineTooLong', 'cut allow', {
    body: `user-agent: FooBot\ndisallow: /\nallow: ${LONG_ALLOW_A}/qux\nallow: ${LONG_ALLOW_B}/qux\n`, token: 'FooBot',
    disallowed: ['/'], allowed: [`${LONG_ALLOW_A}/qux`, `${LONG_ALLOW_B}/fux`],
  }),

  g('GoogleOnly_DocumentationChecks', '/fish', {
    body: DOCS('/fish'), token: 'FooBot', disallowed: ['/bar', '/Fish.asp', '/catfish', '/?id=fish'],
    allowed: ['/fish', '/fish.html', '/fish/salmon.html', '/fishheads', '/fishheads/yummy.html', '/fish.html?id=anything'],
  }),
  g('GoogleOnly_DocumentationChecks', '/fish*', {
    body: DOCS('/fish*'), token: 'FooBot', disallowed: ['/bar', '/Fish.bar', '/catfish', '/?id=fish'],
    allowed: ['/fish', '/fish.html', '/fish/salmon.html', '/fishheads', '/fishheads/yummy.html', '/fish.html?id=anything'],
  }),
  g('GoogleOnly_DocumentationChecks', '/fish/', {
    body: DOCS('/fish/'), token: 'FooBot', disallowed: ['/bar', '/fish', '/fish.html', '/Fish/Salmon.html'],
    allowed: ['/fish/', '/fish/salmon', '/fish/?salmon', '/fish/salmon.html', '/fish/?id=anything'],
  }),
  g('GoogleOnly_DocumentationChecks', '/*.php', {
    body: DOCS('/*.php'), token: 'FooBot', disallowed: ['/bar', '/php/', '/index?php', '/windows.PHP'],
    allowed: ['/filename.php', '/folder/filename.php', '/folder/filename.php?parameters', 'http://foo.test//folder/any.php.file.html',
      '/filename.php/', '/index?f=filename.php/'],
  }),
  g('GoogleOnly_DocumentationChecks', '/*.php$', {
    body: DOCS('/*.php$'), token: 'FooBot', allowed: ['/filename.php', '/folder/filename.php'],
    disallowed: ['/bar', '/filename.php?parameters', '/filename.php/', '/filename.php5', '/php/', '/filename?php', '/aaaphpaaa', 'http://foo.test//windows.PHP'],
  }),
  g('GoogleOnly_DocumentationChecks', '/fish*.php', {
    body: DOCS('/fish*.php'), token: 'FooBot', disallowed: ['/bar', '/Fish.PHP'], allowed: ['/fish.php', '/fishheads/catfish.php?parameters'],
  }),
  g('GoogleOnly_DocumentationChecks', 'precedence: /p', { body: 'user-agent: FooBot\nallow: /p\ndisallow: /\n', token: 'FooBot', allowed: ['/page'] }),
  g('GoogleOnly_DocumentationChecks', 'precedence: same pattern', { body: 'user-agent: FooBot\nallow: /folder\ndisallow: /folder\n', token: 'FooBot', allowed: ['/folder/page'] }),
  g('GoogleOnly_DocumentationChecks', 'precedence: wildcard', { body: 'user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n', token: 'FooBot', disallowed: ['/page.htm'] }),
  g('GoogleOnly_DocumentationChecks', 'precedence: /$', { body: 'user-agent: FooBot\nallow: /$\ndisallow: /\n', token: 'FooBot', allowed: ['/'], disallowed: ['/page.html'] }),

  ...LINE_ENDS.flatMap(([kind, body]) => [
    g('ID_LinesNumbersAreCountedCorrectly', `${kind} line ends, foo`, {
      body, token: 'foo', allowed: ['/x', '/some/path'], adapted: 'source counts directives and lines; here each directive shows in a decision',
    }),
    g('ID_LinesNumbersAreCountedCorrectly', `${kind} line ends, bar`, {
      body, token: 'bar', disallowed: ['/x'], adapted: 'source counts directives and lines; here each directive shows in a decision',
    }),
  ]),

  g('ID_UTF8ByteOrderMarkIsSkipped', 'full BOM', { body: decoded([0xef, 0xbb, 0xbf], BOM_TAIL + STAR_DISALLOW_ALL), token: 'foo', allowed: ['/x'], adapted: BOM_ADAPTED }),
  g('ID_UTF8ByteOrderMarkIsSkipped', 'partial BOM (2 bytes)', { body: decoded([0xef, 0xbb], BOM_TAIL + STAR_DISALLOW_ALL), token: 'foo', allowed: ['/x'], adapted: BOM_ADAPTED }),
  g('ID_UTF8ByteOrderMarkIsSkipped', 'partial BOM (1 byte)', { body: decoded([0xef], BOM_TAIL + STAR_DISALLOW_ALL), token: 'foo', allowed: ['/x'], adapted: BOM_ADAPTED }),
  g('ID_UTF8ByteOrderMarkIsSkipped', 'broken BOM', { body: decoded([0xef, 0x11, 0xbf], BOM_TAIL + STAR_DISALLOW_ALL), token: 'foo', disallowed: ['/x'], adapted: BOM_ADAPTED }),
  g('ID_UTF8ByteOrderMarkIsSkipped', 'BOM in the middle of the file', {
    body: decoded([], 'User-Agent: foo\n\uFEFFAllow: /AnyValue\n' + STAR_DISALLOW_ALL), token: 'foo', disallowed: ['/x', '/AnyValue'],
    adapted: 'source counts one unknown line; here that line, read as unknown, leaves foo in the "*" group\'s run of user-agent lines',
  }),

  g('ID_NonStandardLineExample_Sitemap', 'at the end', {
    body: 'User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nSitemap: http://foo.test/sitemap.xml\n', token: 'foo',
    sitemaps: ['http://foo.test/sitemap.xml'],
  }),
  g('ID_NonStandardLineExample_Sitemap', 'at the start', {
    body: 'Sitemap: http://foo.test/sitemap.xml\nUser-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\n', token: 'foo',
    sitemaps: ['http://foo.test/sitemap.xml'],
  }),

  ...PATH_OF_URL.map(([url, path]) =>
    g('TestGetPathParamsQuery', `${JSON.stringify(url)} is judged as ${path}`, { body: exactPath(path), allowed: [url] })),
  ...HOSTLESS.map(([url, path]) =>
    g('TestGetPathParamsQuery', `${JSON.stringify(url)} is not judged as ${path}`, { body: exactPath(path), disallowed: [url], divergence: HOSTLESS_WHY })),
];

/** ID_VerifyValidUserAgentsToObey: which strings are valid product tokens for a crawler (isValidProductToken). */
export const GOOGLE_PRODUCT_TOKENS: [token: string, valid: boolean][] = [
  ['Foobot', true], ['Foobot-Bar', true], ['Foo_Bar', true],
  ['', false], ['ツ', false], ['Foobot*', false], [' Foobot ', false], ['Foobot/2.1', false], ['Foobot Bar', false],
];

/** TestMaybeEscapePattern: how a rule's pattern is spelled before matching (normalizeForMatch(…, true)). */
export const GOOGLE_PATTERN_ESCAPES: [pattern: string, normalized: string][] = [
  ['http://www.example.test', 'http://www.example.test'], ['/a/b/c', '/a/b/c'], ['á', '%C3%A1'], ['%aa', '%AA'],
];
