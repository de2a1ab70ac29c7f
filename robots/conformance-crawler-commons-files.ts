// crawler-commons test vectors built on its test resource files (src/test/resources/robots/*.txt, read
// at commit 8e14e27), ported as data; see conformance-crawler-commons.ts. File texts are verbatim
// except: comment-only header lines dropped, public hostnames renamed to *.test, and two long files
// cut to an excerpt that keeps every line that decides the ported URLs (said where it happens).
import type { ConformanceCase } from './conformance-cases.js';
import { cc, DIGITS } from './conformance-crawler-commons.js';

const RFC9309_SIMPLE = 'User-Agent: *\nDisallow: *.gif$\nDisallow: /example/\nAllow: /publications/\n\nUser-Agent: foobot\nDisallow:/\n'
  + 'Allow:/example/page.html\nAllow:/example/allowed.gif\n\nUser-Agent: barbot\nUser-Agent: bazbot\nDisallow: /example/page.html\n\n'
  + 'User-Agent: quxbot';
const RFC9309_LONGEST = 'User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif';
const RFC9309_MERGING = 'user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n\n'
  + 'user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz';
const MERGE_RULES = 'User-Agent: testy\nDisallow: /\n\nUser-Agent: curl\nDisallow: /\n\nUser-Agent: wget\nAllow: /foo/bar\n\n'
  + 'User-Agent: *\nUser-Agent: wget\nDisallow: /foo/bar\nDisallow: /tmp/bar\nAllow: /ckh/bar\n\n\n';
const PRECEDENCE = 'User-Agent: testy\nDisallow: /foo\n\nUser-Agent: wget\nAllow: /\nAllow: /foo\nAllow: /index.html\nDisallow: /*\n\n'
  + 'User-Agent: testy\nAllow: /foo/bar\nDisallow: /foo/b*\n\n\n\n';
const FORMAT_ERRORS = 'User-agent: bot1\ndisallow : /whitespace-before-colon/\ndisallow /no-colon/\n\nuser-agent bot2\n'
  + 'disallow: /no-colon-useragent/\n\nuser-agent: bot3\nallow : /whitespace-before-colon\ndisallow: /\nsitemap : /sitemap.xml\n';
const DIRECTIVE_TYPOS = 'User-agent: bot1\nDesallow: /desallow/\ndissalow: /dissalow/\n\nuseragent: bot2\nDisallow: /useragent/\n\n'
  + 'useg-agent: bot3\nDisallow: /useg-agent/\n\nuseragent bot4\nDisallow: /useragent-no-colon/\n';
const MALFORMED_PATH = '# Snippet from Wikipedia robots.txt\nUser-agent: *\nDisallow: /wiki/Wikipedia_talk:Mediation_Committee/\n'
  + 'Disallow: /wiki/Wikipedia_talk%3Mediation_Committee/\n';
const FLOT = 'User-agent: *\nDisallow: /bitrix/\nDisallow: /admin/\nDisallow: /upload/\nDisallow: /img/\nHost: flot.test\n'
  + 'Sitemap: http://flot.test/sitemap_index.xml\n';
const NEWSWEEK = 'User-agent: *\nDisallow: /login.aspx\nDisallow: /register.aspx\nDisallow: /profile\nDisallow: /*/output/print\n'
  + 'Disallow: /search.aspx\n\nUser-agent: Googlebot\nDisallow: /*/output/print\nDisallow: /login.aspx\nDisallow: /register.aspx\n'
  + 'Disallow: /profile\nDisallow: /search.aspx\n\nSitemap: http://www.newsweek.test/sitemap_index.xml\n';
const SITEMAPS = '# Sitemap can occur anywhere\nsitemap: http://domain.test/sitemap.xml\n\nUser-agent: *\nDisallow: \n\n'
  + '# And sitemap directive that forgot "sitemap:"\nhttp://domain.test/dir/my-sitemap.xml\n\n'
  + '# And a mixed case URL which we want to preserve as such\nsitemap: http://domain.test/dir/MixedCased-sitemap.xml\n';
const RELATIVE_SITEMAP = 'Sitemap: /sitemap.xml\n\nUser-agent: *\nDisallow: /cache/\nDisallow: /cp/\nDisallow: /docs/\nDisallow: /files/';
const SITEMAP_DEDUP = 'User-agent: *\nDisallow: \n\nsitemap: http://example.test/sitemap.xml\nSitemap: http://example.test/sitemap.xml\n';
const CRAWL_DELAY_MERGING = 'User-agent: mybot\nCrawl-delay: 10\nUser-agent: yourbot\nDisallow: /private/  # Per RFC9309 (group merging): '
  + 'applies to mybot and yourbot\n\nUser-agent: *\nAllow: /\n\nUser-agent: yourbot\nDisallow: /login/    # Per RFC9309 (group merging): '
  + 'applies to mybot and yourbot\n\nUser-agent: *\nCrawl-delay: 30\n\n';
const EXTENSIONS_MERGING = 'Content-Signal: search=yes,ai-train=yes,ai-input=yes  # global scope, affects all user-agents\n\n'
  + 'User-agent: *\nAllow: /llms.txt\nVisit-time: 0600-0845\n\nUser-agent: mybot\nRequest-rate: 10/1m\nUser-agent: yourbot\n'
  + 'Disallow: /private/  # Per RFC9309 (group merging): applies to mybot and yourbot\n\nUser-agent: *\nDisallow: /\n\n'
  + 'User-agent: mybot\nClean-Param: utm_source /\n\nUser-agent: yourbot\nDisallow: /login/    # Per RFC9309 (group merging): '
  + 'applies to mybot and yourbot\n\nUser-agent: *\nRequest-rate: 30/1m\n\n\n';
const EXTENSIONS = 'User-agent: *\nAllow: /\nLLM-Policy: /llms.txt\nSitemap: /sitemap.xml\nContent-Signals: /content-signals.json\n\n'
  + 'User-agent: mybot\nDisallow: /private/\nRequest-rate: 10/1m\nVisit-time: 0200-0600\nComment: only crawl at night\n'
  + 'No-index: /secret/\n\nUser-agent: otherbot\nDisallow: /admin/\nRequest-rate: 5/1m\n\nHost: www.example.test\n';
/** wildcards.txt, lines 50-69 of the "*" group: no other line of the file matches the ported URLs for "*". */
const AMAZON_EXCERPT = ['User-agent: *', 'Disallow: /gp/registry/wishlist/*/reserve', 'Disallow: /gp/structured-ratings/actions/get-experience.html',
  'Disallow: /gp/twitter/', 'Disallow: /ap/signin', 'Disallow: /gp/registry/wishlist/', 'Disallow: /wishlist/', 'Allow: /wishlist/universal*',
  'Allow: /wishlist/vendor-button*', 'Allow: /wishlist/get-button*', 'Disallow: /gp/wishlist/', 'Allow: /gp/wishlist/universal*',
  'Allow: /gp/wishlist/vendor-button*', 'Allow: /gp/wishlist/ipad-install*', 'Disallow: /registry/wishlist/', 'Disallow: /review/common/du',
  'Disallow: /gp/registry/search.html', 'Disallow: /product-reviews/B0069IY63Y', 'Disallow: /gp/orc/rml/', 'Disallow: */gcrnsts',
  'Disallow: /gp/gc/widget', '', 'User-agent: Googlebot', 'Disallow: /rss/people/*/reviews', ''].join('\n');
/**
 * many-user-agents.txt: 379 user-agent lines sharing one "Disallow: /", then a "*" group. Kept: the
 * first lines, the Wget lines, the last lines and the "*" group's bot-trap; none of the dropped
 * names reduces to "wget" or to the long test token.
 */
const MANY_AGENTS_EXCERPT = ['# From tech-faq.com', 'User-agent: OutfoxBot/0.5', 'User-agent: complex_network_group', 'User-agent: Alexibot',
  'User-agent: Website.Quester', 'User-agent: Webster Pro', 'User-agent: Wget', 'User-agent: Wget/1.10.2', 'User-agent: Wget/1.9-beta',
  'User-agent: Widow', 'User-agent: Xaldon WebSpider', 'User-agent: toCrawl/UrlDispatcher', 'User-agent: webfetch/2.1.0', 'User-agent: wget',
  'Disallow: /', '', 'User-agent: *', 'Disallow: /translate/', 'Disallow: /forum/', 'Disallow: /home.php', 'Disallow: /g/',
  'Disallow: /bot-trap/', ''].join('\n');
/** A UTF-16 file as politeness/robots-gate.ts reads every robots.txt: as UTF-8. */
const utf16AsUtf8 = (text: string, bigEndian: boolean) => {
  const bytes = Buffer.from('\uFEFF' + text, 'utf16le');
  if (bigEndian) bytes.swap16();
  return new TextDecoder('utf-8').decode(bytes);
};
const UTF16 = 'the file is UTF-16; RFC 9309 §2.3 says a robots.txt MUST be UTF-8, and read as UTF-8 it holds no record we know';

export const CRAWLER_COMMONS_FILE_CASES: ConformanceCase[] = [
  cc('testExamplesRobotsTxtRFC9309', 'simple example, foobot', {
    body: RFC9309_SIMPLE, token: 'foobot', allowed: ['/example/page.html', '/example/allowed.gif'], disallowed: ['/', '/path/index.html'],
  }),
  ...['barbot', 'bazbot'].map((token) => cc('testExamplesRobotsTxtRFC9309', `simple example, ${token}`, {
    body: RFC9309_SIMPLE, token, allowed: ['/'], disallowed: ['/example/page.html'],
  })),
  cc('testExamplesRobotsTxtRFC9309', 'simple example, quxbot', { body: RFC9309_SIMPLE, token: 'quxbot', allowed: ['/', '/example/page.html'] }),
  cc('testExamplesRobotsTxtRFC9309', 'simple example, anyotherbot', {
    body: RFC9309_SIMPLE, token: 'anyotherbot', allowed: ['/publications/doc1.html', '/'], disallowed: ['/example/page.html', '/example.gif'],
  }),
  cc('testExamplesRobotsTxtRFC9309', 'longest match', {
    body: RFC9309_LONGEST, token: 'foobot', allowed: ['/example/page/', '/example/page/index.html', '/'], disallowed: ['/example/page/disallowed.gif'],
  }),
  cc('testExamplesRobotsTxtRFC9309', 'group merging, examplebot', {
    body: RFC9309_MERGING, token: 'examplebot', disallowed: ['/foo', '/bar', '/baz'], allowed: ['/'],
  }),
  cc('testExamplesRobotsTxtRFC9309', 'group merging, anyotherbot', {
    body: RFC9309_MERGING, token: 'anyotherbot', disallowed: ['/foo', '/bar'], allowed: ['/baz', '/'],
  }),
  cc('testExamplesRobotsTxtRFC9309', 'group merging, bazbot', { body: RFC9309_MERGING, token: 'bazbot', allowed: ['/foo', '/bar', '/'], disallowed: ['/baz'] }),
  cc('testAPIsanitizeUserAgentList', 'FOOBOT', {
    body: RFC9309_SIMPLE, token: 'FOOBOT', allowed: ['/example/page.html', '/example/allowed.gif'], disallowed: ['/', '/path/index.html'],
    adapted: 'source rejects an upper-case token unless sanitized; parseRobotsTxt lowercases it (RFC 9309 §2.2.1 matches case-insensitively)',
  }),
  cc('testRobotsWithUTF8BOM', '', {
    body: new TextDecoder('utf-8').decode(Buffer.from('\uFEFF' + NEWSWEEK, 'utf8')), token: 'foobot', disallowed: ['/profile'],
  }),
  cc('testRobotsWithUTF16LEBOM', '', { body: utf16AsUtf8(NEWSWEEK, false), token: 'foobot', allowed: ['/profile'], divergence: UTF16 }),
  cc('testRobotsWithUTF16BEBOM', '', { body: utf16AsUtf8(NEWSWEEK, true), token: 'foobot', allowed: ['/profile'], divergence: UTF16 }),
  cc('testIgnoringHost', '', { body: FLOT, token: 'foobot', disallowed: ['/img/'] }),
  cc('testDirectiveTypos', 'bot1', { body: DIRECTIVE_TYPOS, token: 'bot1', disallowed: ['/desallow/', '/dissalow/'] }),
  cc('testDirectiveTypos', 'bot2', { body: DIRECTIVE_TYPOS, token: 'bot2', disallowed: ['/useragent/'] }),
  cc('testDirectiveTypos', 'bot3', { body: DIRECTIVE_TYPOS, token: 'bot3', disallowed: ['/useg-agent/'] }),
  cc('testDirectiveTypos', 'bot4', { body: DIRECTIVE_TYPOS, token: 'bot4', disallowed: ['/useragent-no-colon/'] }),
  cc('testFormatErrors', 'bot1', { body: FORMAT_ERRORS, token: 'bot1', disallowed: ['/whitespace-before-colon/', '/no-colon/'] }),
  cc('testFormatErrors', 'bot2', { body: FORMAT_ERRORS, token: 'bot2', disallowed: ['/no-colon-useragent/'] }),
  cc('testFormatErrors', 'bot3', {
    body: FORMAT_ERRORS, token: 'bot3', disallowed: ['/whitespace-before-colon/'],
    divergence: DIGITS + 'bot3 also obeys bot1\'s longer "Disallow : /whitespace-before-colon/"',
  }),
  cc('testSitemap', '', {
    body: SITEMAPS, token: 'bot1', robotsUrl: 'http://domain.test/robots.txt',
    sitemaps: ['http://domain.test/sitemap.xml', 'http://domain.test/dir/MixedCased-sitemap.xml'],
    divergence: 'crawler-commons also takes a bare "http://…" line as a sitemap; RFC 9309 §2.2.4 records are "name: value", '
      + 'and that line\'s name is "http", an unknown record',
  }),
  cc('testRelativeSitemap', '', {
    body: RELATIVE_SITEMAP, token: 'bot1', robotsUrl: 'http://domain.test/robots.txt', sitemaps: ['http://domain.test/sitemap.xml'],
  }),
  cc('testSitemapInvalidBaseUrl', '', {
    body: 'Sitemap: https://www.example.test/sitemap.xml', token: 'a', robotsUrl: 'example.test', sitemaps: ['https://www.example.test/sitemap.xml'],
  }),
  cc('testSitemapDedup', '', { body: SITEMAP_DEDUP, token: 'bot1', sitemaps: ['http://example.test/sitemap.xml'] }),
  cc('testManyUserAgents', 'wget (excerpt)', { body: MANY_AGENTS_EXCERPT, token: 'wget', disallowed: ['/'] }),
  cc('testManyUserAgents', 'no listed name (excerpt)', {
    body: MANY_AGENTS_EXCERPT, token: 'mysuperlongbotnamethatmatchesnothing', allowed: ['/'], disallowed: ['/bot-trap/'],
  }),
  cc('testManyUserAgentsMergeRules', '', {
    body: MERGE_RULES, token: 'wget', allowed: ['/foo/bar/bar.txt', '/chk/bar/bar.txt'], disallowed: ['/tmp/bar/bar.txt'],
  }),
  cc('testPrecedenceOfRules', 'wget', { body: PRECEDENCE, token: 'wget', allowed: ['/foo/bar'], disallowed: ['/bar/foo'] }),
  cc('testPrecedenceOfRules', 'wget, the root', {
    body: PRECEDENCE, token: 'wget', disallowed: ['/'],
    divergence: 'crawler-commons, like Google, reads "Allow: /index.html" as also allowing "/", which then ties with '
      + '"Disallow: /*"; RFC 9309 §2.2.2 has no such rule, and "/*" (2 octets) is more specific than "Allow: /" (1 octet)',
  }),
  cc('testPrecedenceOfRules', 'testy', {
    body: PRECEDENCE, token: 'testy', allowed: ['/', '/foo/bar'], disallowed: ['/foo/blue', '/foo/', '/foo/tar'],
  }),
  cc('testMalformedPathInRobotsFile', '', {
    body: MALFORMED_PATH, token: 'bot1', disallowed: ['/wiki/Wikipedia_talk:Mediation_Committee/'], allowed: ['/wiki/'],
  }),
  cc('testDOSlineEndings', '', { body: '\n\n\nUser-agent: *\nCrawl-delay: 1\n\n', token: 'bot1', allowed: ['/'], crawlDelayMs: 1000 }),
  cc('testAmazonRobotsWithWildcards', 'excerpt', {
    body: AMAZON_EXCERPT, token: 'anybot', disallowed: ['/wishlist/bogus', '/anydirectoryhere/gcrnsts'], allowed: ['/wishlist/universal/page'],
  }),
  cc('testCrawlDelayGroupMerging', 'mybot', {
    body: CRAWL_DELAY_MERGING, token: 'mybot', crawlDelayMs: 10_000, disallowed: ['/private/'], allowed: ['/login/', '/'],
  }),
  cc('testCrawlDelayGroupMerging', 'yourbot', {
    body: CRAWL_DELAY_MERGING, token: 'yourbot', crawlDelayMs: undefined, disallowed: ['/private/', '/login/'], allowed: ['/'],
  }),
  cc('testCrawlDelayGroupMerging', 'anyotherbot', {
    body: CRAWL_DELAY_MERGING, token: 'anyotherbot', crawlDelayMs: 30_000, allowed: ['/private/', '/login/', '/'],
  }),
  ...['mybot', 'yourbot'].map((token) => cc('testExtensionsGroupMerging', token, {
    body: EXTENSIONS_MERGING, token, disallowed: ['/private/', '/login/'], allowed: ['/'],
  })),
  cc('testExtensionsGroupMerging', 'anyotherbot', {
    body: EXTENSIONS_MERGING, token: 'anyotherbot', disallowed: ['/private/', '/login/', '/'], allowed: ['/llms.txt'],
  }),
  cc('testEnableAllExtensions', 'core rules', {
    body: EXTENSIONS, token: 'mybot', disallowed: ['/private/page.html'], allowed: ['/public/page.html'],
  }),
];
