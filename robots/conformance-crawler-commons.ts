// Test vectors of crawler-commons' RFC 9309 robots.txt parser (github.com/crawler-commons/crawler-commons,
// src/test/java/crawlercommons/robots/SimpleRobotRulesParserTest.java and SimpleRobotRulesTest.java,
// read at commit 8e14e27), ported as data; cases built on its test resource files are in
// conformance-crawler-commons-files.ts. URLs are given as paths (only path and query decide); hosts
// that must stay are renamed to *.test. Where crawler-commons expects otherwise, `divergence` says
// what we assert and why. Its GoogleRobotsTxtTest is a port of Google's suite (conformance-google.ts).
import type { ConformanceCase } from './conformance-cases.js';

const SUITE = 'crawler-commons/crawler-commons SimpleRobotRulesParserTest';

export function cc(test: string, detail: string, c: Omit<ConformanceCase, 'name' | 'ref' | 'source'>, suite = SUITE): ConformanceCase {
  return { name: detail === '' ? test : `${test}: ${detail}`, ref: 'crawler-commons', source: `${suite} ${test}`, ...c };
}

/** Why names with digits collide: the most common divergence in this suite. */
export const DIGITS = 'RFC 9309 §2.2.1 allows only letters, "_" and "-" in a product token, so (as in Google\'s parser) '
  + 'a user-agent value is read up to its first other character and names with digits collide: ';

const CRLF = '\r\n';
const ESCAPED = (rule: string) => `User-agent: *${CRLF}Disallow: ${rule}${CRLF}Allow: /`;
const FISH = (rule: string) => `User-agent: *${CRLF}Disallow: ${rule}${CRLF}`;
const RFP = ['# /robots.txt for http://www.fict.test/', '# comments to webmaster@fict.test', '', 'User-agent: unhipbot', 'Disallow: /', '',
  'User-agent: webcrawler', 'User-agent: excite', 'Disallow: ', '', 'User-agent: *', 'Disallow: /org/plans.html', 'Allow: /org/',
  'Allow: /serv', 'Allow: /~mak', 'Disallow: /', ''].join(CRLF);
const MIXED_ENDINGS_TAIL = `User-agent: unhipbot\nDisallow: /\r${CRLF}User-agent: webcrawler\nUser-agent: excite\rDisallow: \u0085\r`
  + `User-agent: *${CRLF}Disallow: /org/plans.html\nAllow: /org/\rAllow: /serv${CRLF}Allow: /~mak\nDisallow: /${CRLF}`;
const MIXED_ENDINGS_1 = `# /robots.txt for http://www.fict.test/${CRLF}# comments to webmaster@fict.test${CRLF}${MIXED_ENDINGS_TAIL}`;
const MIXED_ENDINGS_2 = `# /robots.txt for http://www.fict.test/${CRLF}# comments to webmaster@fict.test\n\r${MIXED_ENDINGS_TAIL}`;
const RFP_URLS = ['/', '/index.html', '/robots.txt', '/server.html', '/services/fast.html', '/services/slow.html', '/orgo.gif',
  '/org/about.html', '/org/plans.html', '/%7Ejim/jim.html', '/%7Emak/mak.html'];
const RFP_UNKNOWN_ALLOWED = ['/robots.txt', '/server.html', '/services/fast.html', '/services/slow.html', '/org/about.html', '/%7Emak/mak.html'];
const RFP_UNKNOWN_DISALLOWED = ['/', '/index.html', '/orgo.gif', '/org/plans.html', '/%7Ejim/jim.html'];
const NUTCH = 'User-Agent: Agent1 #foo\rDisallow: /a\rDisallow: /b/a\r#Disallow: /c\r\r\rUser-Agent: Agent2 Agent3#foo\r'
  + 'User-Agent: Agent4\rDisallow: /d\rDisallow: /e/d/\r\rUser-Agent: *\rDisallow: /foo/bar/\r';
const NUTCH_A = ['/a', '/a/', '/a/bloh/foo.html', '/b/a', '/b/a/index.html'];
const NUTCH_D = ['/d', '/d/a', '/e/d/foo.html'];
const NUTCH_OTHER = ['/b', '/b/b/foo.html', '/c', '/c/a', '/c/a/index.html', '/c/b/foo.html', '/e/a/index.html', '/e/d', '/e/doh.html', '/f/index.html', '/f/'];
const HTML = '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN"><HTML>\n<HEAD>\n<TITLE>/robots.txt</TITLE>\n</HEAD>\n<BODY>\n'
  + 'User-agent: mybot<BR>\nDisallow: <BR>\nCrawl-Delay: 10<BR>\n\nUser-agent: *<BR>\nDisallow: /<BR>\nCrawl-Delay: 30<BR>\n\n</BODY>\n</HTML>\n';
const HERITRIX = 'User-agent: *\nDisallow: /cgi-bin/\nDisallow: /details/software\n\nUser-agent: denybot\nDisallow: /\n\n'
  + 'User-agent: allowbot1\nDisallow: \n\nUser-agent: allowbot2\nDisallow: /foo\nAllow: /\n\nUser-agent: delaybot\nDisallow: /\n'
  + 'Crawl-Delay: 20\nAllow: /images/\n';
const HERITRIX_ADAPTED = 'source passes a browser-like name ("Mozilla allowbot1 99.9") and matches its words; our API takes the product token';
const KRUGLE = 'User-agent: *\rDisallow: /maintenance.html\rDisallow: /perl/\rDisallow: /cgi-bin/\rDisallow: /examples/\rCrawl-delay: 3\r\r'
  + 'User-agent: googlebot\rCrawl-delay: 1\r\rUser-agent: qihoobot\rDisallow: /';
const CRAWL_DELAY_GROUPS = `User-Agent: bingbot${CRLF}Crawl-delay: 1${CRLF}${CRLF}User-Agent: msnbot${CRLF}Crawl-delay: 2${CRLF}${CRLF}`
  + `User-Agent: pinterestbot${CRLF}Crawl-delay: 0.2${CRLF}${CRLF}User-agent: *${CRLF}Disallow: /login${CRLF}`
  + `Sitemap: http://www.example.test/sitemap.xml${CRLF}Disallow: /assets/`;
const ORDER_1 = 'User-agent: crawlerbot\nDisallow: /foo/bar\n';
const ORDER_2 = 'User-agent: crawler\nAllow: /foo/bar\n';
const EMPTY_LIST = `User-agent: *${CRLF}Allow: /allowed/${CRLF}Disallow: /${CRLF}User-agent: allowedbot${CRLF}Allow: /`;
const UNICODE = `User-agent: *${CRLF}Disallow: /bücher/${CRLF}Disallow: /k%C3%B6nyvek/${CRLF}${CRLF}User-agent: GoodBot${CRLF}Allow: /`;
/** The same file saved as ISO-8859-1, as the UTF-8 decoder in politeness/robots-gate.ts reads it (ü becomes U+FFFD). */
const UNICODE_LATIN1 = new TextDecoder('utf-8').decode(Buffer.from(UNICODE, 'latin1'));
const SPACES = `User-agent: One, Two, Three${CRLF}Disallow: /${CRLF}${CRLF}User-agent: *${CRLF}Allow: /${CRLF}`;
const NOT_NORMALIZED = 'source judges the URL as written; isAllowed parses it as a browser would (WHATWG URL), which '
  + 'removes dot segments (RFC 3986 §5.2.4), and judges /disallowed/bar.html, the path a fetch would request';

export const CRAWLER_COMMONS_CASES: ConformanceCase[] = [
  cc('testEmptyRules', '', { body: '', token: 'anybot', allowed: ['/anypage.html'] }),
  cc('testQueryParamInDisallow', '', {
    body: `User-agent: *${CRLF}Disallow: /index.cfm?fuseaction=sitesearch.results*`, token: 'anybot',
    disallowed: ['/index.cfm?fuseaction=sitesearch.results&type=People&qry=california&pg=2'],
  }),
  ...['/fish', '/fish*'].map((rule) => cc('testGooglePatternMatching1', rule, {
    body: FISH(rule), token: 'anybot', allowed: ['/Fish.asp', '/catfish', '/?id=fish', '/fis'],
    disallowed: ['/fish', '/fish.html', '/fish/salmon.html', '/fishheads', '/fishheads/yummy.html', '/fish.php?id=anything'],
  })),
  cc('testGooglePatternMatching2', '/fish/', {
    body: FISH('/fish/'), token: 'anybot', disallowed: ['/fish/', '/fish/?id=anything', '/fish/salmon.htm'],
    allowed: ['/fish', '/fish.html', '/Fish/Salmon.asp'],
  }),
  cc('testGooglePatternMatching3', '/*.php', {
    body: FISH('/*.php'), token: 'anybot', allowed: ['/', '/windows.PHP'],
    disallowed: ['/filename.php', '/folder/filename.php', '/folder/filename.php?parameters', '/folder/any.php.file.html', '/filename.php/'],
  }),
  cc('testGooglePatternMatching4', '/*.php$', {
    body: FISH('/*.php$'), token: 'anybot', disallowed: ['/filename.php', '/folder/filename.php'],
    allowed: ['/filename.php?parameters', '/filename.php/', '/filename.php5', '/windows.PHP'],
  }),
  cc('testGooglePatternMatching5', '/fish*.php', {
    body: FISH('/fish*.php'), token: 'anybot', disallowed: ['/fish.php', '/fishheads/catfish.php?parameters'], allowed: ['/Fish.PHP'],
  }),
  cc('testGooglePatternMatching6', '/*fish*.php', {
    body: FISH('/*fish*.php'), token: 'anybot', disallowed: ['/fish.php', '/superfishheads/catfish.php?parameters'], allowed: ['/fishheads/catfish.htm'],
  }),
  cc('testCommentedOutLines', '', {
    body: '#user-agent: testAgent\n\n#allow: /index.html\n#allow: /test\n\n#user-agent: test\n\n#allow: /index.html\n#disallow: /test\n\n'
      + '#user-agent: someAgent\n\n#disallow: /index.html\n#disallow: /test\n\n', token: 'anybot', allowed: ['/anypage.html'],
  }),
  cc('testRobotsTxtAlwaysAllowed', '', { body: `User-agent: *${CRLF}Disallow: /`, token: 'any-darn-crawler', allowed: ['/robots.txt'] }),
  cc('testAgentNotListed', '', {
    body: `User-agent: crawler1${CRLF}Disallow: /index.html${CRLF}Allow: /${CRLF}${CRLF}User-agent: crawler2${CRLF}Disallow: /`,
    token: 'crawler3', allowed: ['/anypage.html'],
  }),
  cc('testAgentNotListed', 'a digit is all that tells the names apart', {
    body: `User-agent: crawler1${CRLF}Disallow: /index.html${CRLF}Allow: /${CRLF}${CRLF}User-agent: crawler2${CRLF}Disallow: /`,
    token: 'crawler3', disallowed: ['/index.html'], divergence: DIGITS + 'crawler3 obeys the groups of crawler1 and crawler2',
  }),
  cc('testNonAsciiEncoding', '', { body: `User-agent: * # \u00A2 \u20B5${CRLF}Disallow:`, token: 'anybot', allowed: ['/anypage.html'] }),
  cc('testUnicodeUnescapedPaths', 'UTF-8', {
    body: UNICODE, token: 'mybot', allowed: ['/'],
    disallowed: ['/b%C3%BCcher/book1.html', '/bücher/book2.html', '/k%C3%B6nyvek/book1.html', '/könyvek/book2.html'],
  }),
  cc('testUnicodeUnescapedPaths', 'ISO-8859-1, goodbot', { body: UNICODE_LATIN1, token: 'goodbot', allowed: ['/', '/b%C3%BCcher/book1.html'] }),
  cc('testUnicodeUnescapedPaths', 'ISO-8859-1, mybot', {
    body: UNICODE_LATIN1, token: 'mybot', allowed: ['/'], disallowed: ['/k%C3%B6nyvek/book1.html', '/könyvek/book2.html'],
  }),
  ...([
    ['/*%20', ['/', '/foobar/'], ['/foobar%20/']],
    ['/*%2F*', ['/path/index.html'], ['/topic/9%2F11/index.html']],
    ['/topic/9%2F11/', [], ['/topic/9%2F11/index.html', '/topic/9%2f11/index.html']],
    ['/q?*mime=application%2Fpdf', [], ['/q?mime=application%2Fpdf']],
    ['/$', ['/foobar'], ['/']],
    ['/%24', ['/'], ['/%24100', '/$100']],
    ['/search/%2A/', ['/search/foobar/'], ['/search/%2A/', '/search/%2a/']],
    ['/search/%2a/', [], ['/search/%2a/', '/search/*/']],
    ['/search/*/', [], ['/search/foobar/']],
    ['/foo/bar?baz=quz', [], ['/foo/bar?baz=quz']],
    ['/foo/bar?baz=https://foo.test', [], ['/foo/bar?baz=https://foo.test']],
    ['/foo/bar?baz=https%3A%2F%2Ffoo.test', [], ['/foo/bar?baz=https%3A%2F%2Ffoo.test']],
    ['/foo/bar/\u30C4', [], ['/foo/bar/%E3%83%84']],
    ['/foo/bar/%E3%83%84', [], ['/foo/bar/%E3%83%84']],
    ['/foo/bar/%62%61%7A', [], ['/foo/bar/baz']],
    ['/path/file-with-a-%2A.html', ['/path/file-with-a-foo.html'], ['/path/file-with-a-*.html', '/path/file-with-a-%2A.html']],
    ['/path/foo-%24', ['/path/foo-'], ['/path/foo-$', '/path/foo-%24']],
  ] as [string, string[], string[]][]).map(([rule, allowed, disallowed]) =>
    cc('testEscapedPaths', `Disallow: ${rule}`, { body: ESCAPED(rule), token: 'mybot', allowed, disallowed })),
  cc('testSimplestAllowAll', '', { body: `User-agent: *${CRLF}Disallow:`, token: 'anybot', allowed: ['/anypage.html'] }),
  cc('testDisallowWithQueryOnly', '', {
    body: `User-agent: *${CRLF}Disallow: /`, token: 'anybot', disallowed: ['http://www.example.test', 'http://www.example.test?q=a'],
  }),
  cc('testMixedEndings1', '', { body: MIXED_ENDINGS_1, token: 'WebCrawler/3.0', allowed: ['/', '/index.html'] }),
  cc('testMixedEndings2', '', { body: MIXED_ENDINGS_2, token: 'Unknown/1.0', allowed: RFP_UNKNOWN_ALLOWED, disallowed: RFP_UNKNOWN_DISALLOWED }),
  cc('testRfpCases', 'UnhipBot/0.1', { body: RFP, token: 'UnhipBot/0.1', allowed: ['/robots.txt'], disallowed: RFP_URLS.filter((u) => u !== '/robots.txt') }),
  cc('testRfpCases', 'WebCrawler/3.0', { body: RFP, token: 'WebCrawler/3.0', allowed: RFP_URLS }),
  cc('testRfpCases', 'Excite/1.0', { body: RFP, token: 'Excite/1.0', allowed: RFP_URLS }),
  cc('testRfpCases2', '', { body: RFP, token: 'Unknown/1.0', allowed: RFP_UNKNOWN_ALLOWED, disallowed: RFP_UNKNOWN_DISALLOWED }),
  cc('testNutchCases', 'Agent1', { body: NUTCH, token: 'Agent1', disallowed: NUTCH_A, allowed: [...NUTCH_OTHER, '/foo/bar/baz.html'] }),
  cc('testNutchCases', 'Agent1, the Agent2 group', {
    body: NUTCH, token: 'Agent1', disallowed: NUTCH_D, divergence: DIGITS + 'Agent1 to Agent5 all name "agent", so Agent1 obeys the Agent2-4 group too',
  }),
  ...['Agent2', 'Agent3', 'Agent4'].flatMap((token) => [
    cc('testNutchCases2', token, { body: NUTCH, token, disallowed: NUTCH_D, allowed: [...NUTCH_OTHER, '/foo/bar/baz.html'] }),
    cc('testNutchCases2', `${token}, the Agent1 group`, {
      body: NUTCH, token, disallowed: NUTCH_A, divergence: DIGITS + `Agent1 to Agent5 all name "agent", so ${token} obeys the Agent1 group too`,
    }),
  ]),
  cc('testNutchCases3', 'Agent5', {
    body: NUTCH, token: 'Agent5', disallowed: [...NUTCH_A, ...NUTCH_D], allowed: [...NUTCH_OTHER, '/foo/bar/baz.html'],
    divergence: DIGITS + 'Agent5 names "agent" like the Agent1-4 groups, so it obeys them rather than "*"',
  }),
  cc('testHtmlMarkupInRobotsTxt', 'mybot', { body: HTML, token: 'mybot', allowed: ['/index.html'], crawlDelayMs: 10_000 }),
  cc('testHtmlMarkupInRobotsTxt', 'bogusbot', {
    body: HTML, token: 'bogusbot', allowed: ['/index.html'], crawlDelayMs: undefined,
    divergence: 'crawler-commons strips HTML tags; RFC 9309 §2.2.1 reads "*<BR>" as no product token (only "*" alone, or '
      + 'followed by a space as Google allows, is the global group) and §2.2.2 "/<BR>" as a literal path, so nothing applies',
  }),
  cc('testIgnoreOfHtml', '', { body: '<HTML><HEAD><TITLE>Site under Maintenance</TITLE></HTML>', token: 'anybot', allowed: ['/'] }),
  cc('testHeritrixCases', 'allowbot1', { body: HERITRIX, token: 'allowbot1', allowed: ['/path', '/'], adapted: HERITRIX_ADAPTED }),
  cc('testHeritrixCases', 'allowbot2', { body: HERITRIX, token: 'allowbot2', allowed: ['/path', '/'], disallowed: ['/foo'], adapted: HERITRIX_ADAPTED }),
  cc('testHeritrixCases', 'denybot', { body: HERITRIX, token: 'denybot', disallowed: ['/path', '/'], crawlDelayMs: undefined, adapted: HERITRIX_ADAPTED }),
  cc('testHeritrixCases', 'anonbot', { body: HERITRIX, token: 'anonbot', allowed: ['/path'], disallowed: ['/cgi-bin/foo.pl'], adapted: HERITRIX_ADAPTED }),
  cc('testHeritrixCases', 'delaybot', { body: HERITRIX, token: 'delaybot', crawlDelayMs: 20_000, adapted: HERITRIX_ADAPTED }),
  cc('testCaseSensitivePaths', '', {
    body: `User-agent: *${CRLF}Allow: /AnyPage.html${CRLF}Allow: /somepage.html${CRLF}Disallow: /`, token: 'anybot',
    allowed: ['/AnyPage.html', '/somepage.html'], disallowed: ['/anypage.html', '/SomePage.html'],
  }),
  cc('testEmptyDisallow', '', { body: `User-agent: *${CRLF}Disallow:`, token: 'anybot', allowed: ['/anypage.html'] }),
  cc('testEmptyAllow', '', { body: `User-agent: *${CRLF}Allow:`, token: 'anybot', allowed: ['/anypage.html'] }),
  ...[`User-agent: *${CRLF}Disallow: /disallowed/${CRLF}Allow: /allowed/${CRLF}Disallow: `,
    `User-agent: *${CRLF}Disallow: /disallowed/${CRLF}Allow: /allowed/${CRLF}User-agent: *${CRLF}Disallow: `].map((body, i) =>
    cc('testEmptyDisallowLowestPrecedence', i === 0 ? 'one group' : 'merged groups', {
      body, token: 'anybot', allowed: ['/', '/anypage.html', '/allowed/index.html'], disallowed: ['/disallowed/index.html'],
    })),
  cc('testMultiWildcard', '', {
    body: `User-agent: *${CRLF}Disallow: /index.html${CRLF}Allow: /${CRLF}${CRLF}User-agent: *${CRLF}Disallow: /`, token: 'anybot',
    disallowed: ['/index.html'], allowed: ['/anypage.html'],
  }),
  cc('testMultiMatches', '', {
    body: `User-agent: crawlerbot${CRLF}Disallow: /index.html${CRLF}Allow: /${CRLF}${CRLF}User-agent: crawler${CRLF}Disallow: /`,
    token: 'crawlerbot', disallowed: ['/index.html'], allowed: ['/anypage.html'],
  }),
  cc('testMultiAgentNames', 'matches only because crawler1 and crawler2 both name "crawler"', {
    body: `User-agent: crawler1 crawler2${CRLF}Disallow: /index.html${CRLF}Allow: /`, token: 'crawler2',
    disallowed: ['/index.html'], allowed: ['/anypage.html'],
  }),
  cc('testMultiWordAgentName', '', {
    body: `User-agent: Download Ninja${CRLF}Disallow: /index.html${CRLF}Allow: /`, token: 'Download Ninja',
    disallowed: ['/index.html'], allowed: ['/anypage.html'],
  }),
  ...['foo/1.2', 'foo bar'].map((agent) => cc('testAgentTokenMatch', `User-agent: ${agent}`, {
    body: `User-agent: ${agent}${CRLF}Disallow: /index.html${CRLF}Allow: /`, token: 'foo', disallowed: ['/index.html'], allowed: ['/anypage.html'],
  })),
  cc('testUnsupportedFields', '', {
    body: `User-agent: crawler1${CRLF}Disallow: /index.html${CRLF}Allow: /${CRLF}newfield: 234${CRLF}User-agent: crawler2${CRLF}Disallow: /`,
    token: 'crawler2', allowed: ['/anypage.html'],
    divergence: DIGITS + 'crawler2 also obeys the crawler1 group, whose Allow: / ties with Disallow: / and wins (§2.2.2)',
  }),
  cc('testAcapFields', '', {
    body: `acap-crawler: *${CRLF}acap-disallow-crawl: /ultima_ora/`, token: 'foobot', allowed: ['/ultima_ora/'],
    adapted: 'source counts parser warnings; here the unknown ACAP records must not restrict anything',
  }),
  cc('testCrawlDelay', 'own group', {
    body: 'User-agent: bixo\rCrawl-delay: 10\rUser-agent: foobot\rCrawl-delay: 20\rUser-agent: *\rDisallow:/baz\r', token: 'bixo', crawlDelayMs: 10_000,
  }),
  cc('testCrawlDelay', '"*" group', {
    body: 'User-agent: foobot\rCrawl-delay: 20\rUser-agent: *\rDisallow:/baz\r', token: 'bixo', crawlDelayMs: undefined,
  }),
  cc('testBigCrawlDelay', '', {
    body: 'User-agent: *\rCrawl-delay: 3600\rDisallow:\r', token: 'bixo', allowed: ['/'], crawlDelayMs: 3_600_000,
    divergence: 'crawler-commons disallows everything when Crawl-delay exceeds its maximum; Crawl-delay is not part of '
      + 'RFC 9309, which allows all here (empty Disallow), so we report the delay and the scheduler spaces requests by it',
  }),
  ...([['googlebot/2.1', 1000, ['/examples/index.html', '/']], ['googlebot', 1000, ['/examples/index.html', '/']],
    ['qihoobot', undefined, ['/examples/index.html', '/']]] as [string, number | undefined, string[]][]).map(([token, delay, disallowed]) =>
    cc('testBrokenKrugleRobotsTxtFile', token, { body: KRUGLE, token, crawlDelayMs: delay, disallowed })),
  cc('testBrokenKrugleRobotsTxtFile', 'anybot', { body: KRUGLE, token: 'anybot', crawlDelayMs: 3000, disallowed: ['/examples/index.html'], allowed: ['/'] }),
  ...([['bingbot', 1000], ['msnbot', 2000], ['anybot', undefined]] as [string, number | undefined][]).map(([token, delay]) =>
    cc('testSelectCrawlDelayGroup', token, {
      body: CRAWL_DELAY_GROUPS, token, crawlDelayMs: delay, disallowed: ['/login', '/assets/'], allowed: ['/'],
      sitemaps: ['http://www.example.test/sitemap.xml'],
    })),
  cc('testFloatingPointCrawlDelay', '', { body: 'User-agent: *\rCrawl-delay: 0.5\rDisallow:\r', token: 'bixo', crawlDelayMs: 500 }),
  cc('testAllowBeforeDisallow', '', { body: `User-agent: *${CRLF}Disallow: /fish${CRLF}Allow: /fish${CRLF}`, token: 'anybot', allowed: ['/fish'] }),
  cc('testSpacesInMultipleUserAgentNames', 'One', { body: SPACES, token: 'One', disallowed: ['/fish'] }),
  cc('testSpacesInMultipleUserAgentNames', 'anybot', { body: SPACES, token: 'anybot', allowed: ['/fish'] }),
  ...['Two', 'Three'].map((token) => cc('testSpacesInMultipleUserAgentNames', token, {
    body: SPACES, token, allowed: ['/fish'],
    divergence: 'a user-agent line names one product token (RFC 9309 §2.2.1); "One, Two, Three" is read as "one", as Google\'s parser reads it',
  })),
  ...[ORDER_1 + '\n' + ORDER_2, ORDER_2 + '\n' + ORDER_1].flatMap((body, i) => [
    cc('testMatchingOfUserAgentNamesIndependentFromSequentialOrder', `crawlerbot, order ${i + 1}`, { body, token: 'crawlerbot', disallowed: ['/foo/bar'] }),
    cc('testMatchingOfUserAgentNamesIndependentFromSequentialOrder', `crawler, order ${i + 1}`, { body, token: 'crawler', allowed: ['/foo/bar'] }),
  ]),
  cc('testMatchingUserAgentNamesHttpHeader', 'exact token', {
    body: 'User-agent: Mozilla/5.0 (compatible; Butterfly/1.0; +http://labs.topsy.test/butterfly/) Gecko/2009032608 Firefox/3.0.8\nDisallow: /',
    token: 'butterfly', allowed: ['/'],
  }),
  cc('testSitemapAtEndOfFile', '', {
    body: `User-agent: a${CRLF}Disallow: /content/dam/${CRLF}${CRLF}User-agent: b${CRLF}Disallow: /content/dam/${CRLF}${CRLF}`
      + `User-agent: c${CRLF}Disallow: /content/dam/${CRLF}${CRLF}${CRLF}Sitemap: https://wwwfoocom/sitemapxml`,
    token: 'a', sitemaps: ['https://wwwfoocom/sitemapxml'],
  }),
  cc('testAPIemptyUserAgentList', 'no token', { body: EMPTY_LIST, token: '', allowed: ['/allowed/page.html'], disallowed: ['/'] }),
  cc('testAPIemptyUserAgentList', 'anybot', { body: EMPTY_LIST, token: 'anybot', allowed: ['/allowed/page.html'], disallowed: ['/'] }),
  cc('testAPIemptyUserAgentList', 'allowedbot', { body: EMPTY_LIST, token: 'allowedbot', allowed: ['/'] }),
  ...[['foobot', ['/search', '/home'], []], ['anybot', ['/home'], ['/search']]].map(([token, allowed, disallowed]) =>
    cc('testMatchedWildcard', token as string, {
      body: `User-agent: *${CRLF}Allow: /${CRLF}User-agent: anybot${CRLF}Disallow: /search`, token: token as string,
      allowed: allowed as string[], disallowed: disallowed as string[],
    })),
  cc('testExtensionPerGroupNotLeakedFromWildcard', '', {
    body: `User-agent: *${CRLF}Request-rate: 1/10m${CRLF}Disallow: /wild/${CRLF}${CRLF}User-agent: mybot${CRLF}Disallow: /bot/`,
    token: 'mybot', allowed: ['/wild/'], disallowed: ['/bot/'],
  }),
  cc('testExtensionDoesNotAffectCoreRules', '', {
    body: `User-agent: *${CRLF}Disallow: /private/${CRLF}Allow: /private/public.html${CRLF}LLM-Policy: /llms.txt`, token: 'anybot',
    disallowed: ['/private/secret.html'], allowed: ['/private/public.html', '/other.html'],
  }),
  cc('testIsAllowed', '', {
    body: 'User-agent: *\nAllow: /\nDisallow: /disallowed/\nDisallow: *?isallowed=false\n', token: 'anybot',
    allowed: ['/index.html', '/', '/?isallowed=true'], disallowed: ['/disallowed/file.html', '/?isallowed=false', 'http://example.test?isallowed=false'],
    adapted: 'source adds the rules through the SimpleRobotRules API; here they are written as a robots.txt',
  }, 'crawler-commons/crawler-commons SimpleRobotRulesTest'),
  cc('testUrlsNotNormalized', 'as written', {
    body: 'User-agent: *\nAllow: /\nDisallow: /disallowed/\n', token: 'anybot', allowed: ['////disallowed/bar.html', '/'],
    disallowed: ['/disallowed/bar.html'],
  }, 'crawler-commons/crawler-commons SimpleRobotRulesTest'),
  cc('testUrlsNotNormalized', 'dot segments', {
    body: 'User-agent: *\nAllow: /\nDisallow: /disallowed/\n', token: 'anybot', disallowed: ['/foo/../disallowed/bar.html'],
    divergence: NOT_NORMALIZED,
  }, 'crawler-commons/crawler-commons SimpleRobotRulesTest'),
];
