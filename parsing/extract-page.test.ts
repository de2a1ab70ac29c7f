import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { collapse, extractPage, MAX_LINKS_PER_PAGE } from './extract-page.js';
import { MAX_TEXT_BYTES } from './text-digest.js';
import { simhash64 } from './simhash.js';
import { sampleArticleHtml, seededRng } from './sample-pages.js';

const PAGE = 'http://site.test/dir/page.html?q=1';
const extract = (html: string, url = PAGE) => extractPage(html, url, 'crawlstream');
const urls = (html: string, url = PAGE) => extract(html, url).links.map(l => l.url);

test('should resolve links against the page URL and keep only http(s)', () => {
  assert.deepEqual(urls(`
    <a href="other.html">1</a> <a href="../up/x?y=1#frag">2</a> <a href="/root">3</a>
    <a href="//cdn.example/lib">4</a> <a href="https://secure.test/">5</a> <a href=" spaced.html ">6</a>
    <a href="javascript:alert(1)">no</a> <a href="mailto:a@site.test">no</a> <a href="tel:+1555">no</a>
    <a href="data:text/html,hi">no</a> <a href="ftp://files.test/x">no</a> <a href="http://[::1">no</a>
    <a>no href</a> <area href="/area-is-not-a-link">`), [
    'http://site.test/dir/other.html', 'http://site.test/up/x?y=1#frag', 'http://site.test/root',
    'http://cdn.example/lib', 'https://secure.test/', 'http://site.test/dir/spaced.html']);
});

test('should resolve links against <base href>, itself resolved against the page URL', () => {
  assert.deepEqual(urls('<a href="a">1</a><base href="/base/sub/"><base href="http://ignored.test/"><a href="b">2</a>'),
    ['http://site.test/base/sub/a', 'http://site.test/base/sub/b']);
  assert.deepEqual(urls('<base href="javascript:void(0)/"><a href="a">1</a>'), ['http://site.test/dir/a']);
  assert.deepEqual(urls('<base href="http://[::1"><a href="a">1</a>'), ['http://site.test/dir/a']);
  assert.deepEqual(urls('<base target="_blank"><base href="https://other.test/x/"><a href="a">1</a>'),
    ['https://other.test/x/a']);
});

test('should deduplicate links by URL, keeping the first anchor text', () => {
  const { links } = extract(`<a href="/x">first</a> <a href="http://site.test/x">second</a> <a href="/x">third</a>
    <a href="/y" rel="nofollow">y1</a> <a href="/y">y2</a> <a href="/z" rel="nofollow">z1</a> <a href="/z" rel="ugc">z2</a>`);
  assert.deepEqual(links, [
    { url: 'http://site.test/x', anchor: 'first', nofollow: false },
    // nofollow only if every link to the URL is: one followed link is a vote to follow
    { url: 'http://site.test/y', anchor: 'y1', nofollow: false },
    { url: 'http://site.test/z', anchor: 'z1', nofollow: true },
  ]);
});

test('should mark rel nofollow, ugc and sponsored links nofollow but still return them', () => {
  const { links } = extract(`<a href="/1" rel="nofollow">1</a><a href="/2" rel="NoFollow noopener">2</a>
    <a href="/3" rel="ugc">3</a><a href="/4" rel="sponsored">4</a><a href="/5" rel="noopener noreferrer">5</a>
    <a href="/6" rel="nofollowing">6</a><a href="/7">7</a>`);
  assert.deepEqual(links.map(l => l.nofollow), [true, true, true, true, false, false, false]);
});

test('should collapse anchor text, use image alt text and cap anchors at 256 characters', () => {
  const long = 'word '.repeat(200);
  const { links } = extract(`<a href="/a">  Hello\n\t <b>big</b>&nbsp;world  </a><a href="/img"><img src="x.png" alt="Logo"></a>
    <a href="/long">${long}</a><a href="/blocks"><div>one</div><div>two</div></a>`);
  assert.equal(links[0].anchor, 'Hello big world');
  assert.equal(links[1].anchor, 'Logo');
  assert.equal(links[2].anchor.length, 256);
  assert.ok(long.startsWith(links[2].anchor));
  assert.equal(links[3].anchor, 'one two');
});

test('should return at most 5,000 links, the first ones in document order', () => {
  const html = Array.from({ length: 6_000 }, (_, i) => `<a href="/p${i}">${i}</a>`).join('');
  const { links } = extract(html);
  assert.equal(links.length, MAX_LINKS_PER_PAGE);
  assert.equal(links[0].url, 'http://site.test/p0');
  assert.equal(links[4_999].url, 'http://site.test/p4999');
});

test('should return very long hrefs as they are', () => {
  const path = '/' + 'a'.repeat(10_000);
  assert.deepEqual(urls(`<a href="${path}">long</a>`), ['http://site.test' + path]);
});

test('should read title, canonical, lang and robots directives', () => {
  const page = extract(`<html lang="en-US"><head><title> My\n  Page &amp; more </title>
    <link rel="Canonical" href="/canonical?id=1"><link rel="canonical" href="/second">
    <meta name="robots" content="NOINDEX, follow"></head><body><svg><title>icon</title></svg></body></html>`);
  assert.equal(page.title, 'My Page & more');
  assert.equal(page.canonical, 'http://site.test/canonical?id=1');
  assert.equal(page.lang, 'en-us');
  assert.equal(page.metaNoindex, true);
  assert.equal(page.metaNofollow, false);
  const none = extract('<meta name="ROBOTS" content="none"><meta http-equiv="content-language" content="de, en">');
  assert.deepEqual([none.metaNoindex, none.metaNofollow, none.lang, none.title, none.canonical], [true, true, 'de', '', '']);
});

test('should honour a meta tag for our product token and ignore those for other crawlers', () => {
  const ours = extractPage('<meta name="CrawlStream" content="nofollow">', PAGE, 'crawlstream');
  assert.deepEqual([ours.metaNoindex, ours.metaNofollow], [false, true]);
  const theirs = extractPage('<meta name="otherbot" content="noindex,nofollow">', PAGE, 'crawlstream');
  assert.deepEqual([theirs.metaNoindex, theirs.metaNofollow], [false, false]);
});

test('should ignore a canonical in the body and canonicals that are not http(s)', () => {
  assert.equal(extract('<html><head></head><body><link rel="canonical" href="/injected"></body></html>').canonical, '');
  assert.equal(extract('<head><link rel="canonical" href="javascript:x"></head>').canonical, '');
});

test('should extract only visible text, separating blocks and collapsing whitespace', () => {
  const page = extract(`<html><head><title>Title</title><style>p { color: red }</style>
    <script>var hidden = "script";</script></head><body>
    <p>First&nbsp;&nbsp;para</p><p>Second <b>bo</b>ld</p><noscript>Enable JS</noscript>
    <template><p>template</p></template><div hidden>hidden text</div><ul><li>one</li><li>two</li></ul>
    <script type="application/ld+json">{"x": 1}</script>Tail &lt;&gt; &#233;\u0000!</body></html>`);
  assert.equal(page.text, 'First para Second bold one two Tail <> é!');
  assert.equal(page.textLength, page.text.length);
  assert.equal(page.contentHash, createHash('sha1').update(page.text).digest('hex'));
  assert.deepEqual(page.simhash, simhash64(page.text));
});

test('should collapse whitespace exactly as /\\s+/ would, and drop NULs', () => {
  const rng = seededRng(7);
  const alphabet = ['a', 'é', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2003', '\u3000', '\ufeff', '\u0085', '\0', '界'];
  for (let i = 0; i < 20_000; i++) {
    let s = '';
    for (let n = Math.floor(rng() * 12); n > 0; n--) s += alphabet[Math.floor(rng() * alphabet.length)];
    assert.equal(collapse(s), s.replace(/\0/g, '').replace(/\s+/g, ' ').trim(), JSON.stringify(s));
  }
});

test('should keep links inside noscript and drop links inside template', () => {
  assert.deepEqual(urls('<noscript><a href="/page/2">Next</a></noscript><template><a href="/tpl">t</a></template>'),
    ['http://site.test/page/2']);
});

test('should recover links and text from malformed HTML as a browser would', () => {
  const page = extract(`<div><p>Unclosed <b>bold <a href="/one">one<a href="/two">two</a> after
    <form><form><a href="/nested-form">f</a></form> a < b <<< c <a href="/nul\u0000x">n\u0000ul</a>
    <table><tr><td>cell<td><a href=/unquoted>u</a></table>`);
  assert.deepEqual(page.links.map(l => [l.url, l.anchor]), [
    ['http://site.test/one', 'one'], ['http://site.test/two', 'two'], ['http://site.test/nested-form', 'f'],
    ['http://site.test/nul%EF%BF%BDx', 'nul'], ['http://site.test/unquoted', 'u']]);
  assert.equal(page.text, 'Unclosed bold onetwo after f a < b <<< c nul cell u');
});

test('should survive a megabyte of attributes and an unterminated comment', () => {
  const big = extract(`<a href="/x" data-junk="${'y'.repeat(1 << 20)}" ${'k=v '.repeat(20_000)}>ok</a>`);
  assert.deepEqual(big.links, [{ url: 'http://site.test/x', anchor: 'ok', nofollow: false }]);
  assert.deepEqual(urls('<a href="/seen">s</a><!-- <a href="/commented">c</a>'), ['http://site.test/seen']);
});

test('should parse runaway nesting in bounded time and still find the link at the bottom', () => {
  for (const html of ['<div>'.repeat(200_000), '<b><i>'.repeat(100_000) + '</p>'.repeat(50_000), '<table>'.repeat(50_000)]) {
    const started = Date.now();
    const { links } = extract(html + '<td><a href="/deep">deep</a>');
    // Unbounded, htmlparser2's O(depth) stack work makes each of these take tens of seconds.
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
    assert.deepEqual(links.map(l => l.url), ['http://site.test/deep']);
  }
});

test('should never throw, whatever the input', () => {
  const rng = seededRng(99);
  const pieces = ['<a href="', '">', '</a>', '<', '>', '"', "'", '<!--', '-->', '<script>', '</script>', '<base href=',
    '&', '&#x', ';', '\0', '<svg>', '<title>', '<meta name=robots content=', 'http://', '[::1', ' ', 'text', '\uD800'];
  for (let i = 0; i < 2_000; i++) {
    let html = '';
    const n = Math.floor(rng() * 60);
    for (let j = 0; j < n; j++) html += pieces[Math.floor(rng() * pieces.length)];
    const page = extractPage(html, i % 10 === 0 ? 'not a url' : PAGE, 'crawlstream');
    assert.equal(page.simhash.length, 8);
  }
  assert.equal(extractPage(undefined as unknown as string, PAGE, 'x').text, '');
  assert.deepEqual(extractPage('<a href="/rel">r</a><a href="http://abs.test/">a</a>', 'not a url', 'x').links.map(l => l.url),
    ['http://abs.test/']);
});

test('should find all 25 links and the article text of a realistic page', () => {
  const page = extractPage(sampleArticleHtml(3), 'https://site.example/stories/2024/article-3.html', 'crawlstream');
  assert.equal(page.links.length, 25);
  assert.equal(page.links.filter(l => l.nofollow).length, 2);
  assert.ok(page.text.split(' ').length > 1_000);
  assert.ok(!page.text.includes('gtag') && !page.text.includes('font-size'));
  assert.equal(page.canonical, 'https://site.example/stories/2024/article-3.html');
});

test('should decode character references in text, titles, textareas and the attributes it reads', () => {
  const page = extract(`<html lang="e&#110;"><head><title>a&lt;&amp;b &lt;&#x1F600;</title>
    <meta name="r&#111;bots" content="no&#105;ndex"><base href="/b&#97;se/"></head>
    <body><p>caf&eacute; &amp co &#0;</p><textarea>&lt;b&gt;</textarea>
    <a href="x?a=1&amp;b=2&copy=3" rel="no&#102;ollow">&copy; <img alt="&eacute;t&eacute;"></a></body></html>`);
  assert.equal(page.title, 'a<&b <😀');
  assert.equal(page.lang, 'en');
  assert.equal(page.metaNoindex, true);
  assert.equal(page.text, 'café & co \ufffd <b> ©');
  assert.deepEqual(page.links, [{ url: 'http://site.test/base/x?a=1&b=2&copy=3', anchor: '© été', nofollow: true }]);
});

test('should return at most 100 KB of visible text while length, hash and simhash cover all of it', () => {
  const paragraph = `<p>${'lorem ipsum dolor sit amet '.repeat(40).trim()}</p>`;
  const html = `<body>${paragraph.repeat(200)}</body>`;
  const page = extract(html);
  const whole = Array.from({ length: 200 }, () => 'lorem ipsum dolor sit amet '.repeat(40).trim()).join(' ');
  assert.equal(Buffer.byteLength(page.text), MAX_TEXT_BYTES);
  assert.ok(whole.startsWith(page.text));
  assert.equal(page.textLength, whole.length);
  assert.equal(page.contentHash, createHash('sha1').update(whole).digest('hex'));
});

test('should give one article the same simhash under different site templates, and keep all text visible', () => {
  const article = sampleArticleHtml(5).split('<article>')[1].split('</article>')[0];
  const semantic = `<html><body><header><nav><ul>${Array.from({ length: 12 }, (_, i) =>
    `<li><a href="/s${i}">Section number ${i} of the semantic site</a></li>`).join('')}</ul></nav></header>
    <main><article>${article}</article></main>
    <aside><h2>Most read</h2><p>Our newsletter brings the week's best reads to your inbox every Friday morning.</p></aside>
    <footer><p>Semantic Daily, 1 Main Street. All rights reserved. Contact our newsroom for corrections.</p></footer></body></html>`;
  const divs = `<html><body><div id="masthead"><div class="menu">${Array.from({ length: 30 }, (_, i) =>
    `<a href="/d${i}">Topic ${i}</a>`).join(' | ')}</div></div>
    <div class="wrap"><div class="entry-content">${article}</div>
    <div class="sidebar-widget"><p>Subscribe today and save forty percent on your first year of unlimited access.</p></div>
    <div class="comments"><p>Great piece, but the third paragraph misses the point entirely.</p></div></div>
    <div id="footer">Div Times Media Group, registered office somewhere else entirely.</div></body></html>`;
  const a = extract(semantic), b = extract(divs);
  assert.ok(a.text.includes('Semantic Daily') && b.text.includes('Div Times'), 'visible text keeps the boilerplate');
  assert.notEqual(a.contentHash, b.contentHash);
  assert.deepEqual(a.simhash, b.simhash);
});

test('should resolve path-absolute and absolute hrefs exactly as URL does against the base', () => {
  const rng = seededRng(5);
  const parts = ['/', '//', '\\', 'a', '..', '.', '%2e', '?q=1', '#f', '\t', '\n', ' ', '@', ':', '80', 'é', '%zz', '[', '/../', 'x.test', '|'];
  const starts = ['/', '/', 'http://', 'HTTPS://', 'http:/', 'https://u@'];
  for (const base of ['http://site.test/dir/page.html?q=1', 'https://site.test:8443/a/b/', 'http://[::1]:9/x', 'http://u:p@site.test/']) {
    for (let i = 0; i < 3_000; i++) {
      let href = starts[Math.floor(rng() * starts.length)];
      for (let k = Math.floor(rng() * 6); k > 0; k--) href += parts[Math.floor(rng() * parts.length)];
      const got = extractPage(`<a href="${href.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">x</a>`, base, 'c').links.map(l => l.url);
      let want: string[] = [];
      try {
        const url = new URL(href, base);
        if (url.protocol === 'http:' || url.protocol === 'https:') want = [url.href];
      } catch { /* unparsable: no link */ }
      assert.deepEqual(got, want, `${JSON.stringify(href)} against ${base}`);
    }
  }
});

test('should name the RSS and Atom feeds a page links with rel=alternate, resolved, and nothing else', () => {
  const page = extractPage(`<html><head><base href="/news/">
    <link rel="alternate" type="application/rss+xml" title="RSS" href="feed.rss">
    <link rel="Alternate Home" type="application/atom+xml; charset=utf-8" href="https://feeds.other.test/atom">
    <link rel="alternate" type="application/rss+xml" href="feed.rss">
    <link rel="alternate" type="text/html" hreflang="de" href="/de/">
    <link rel="stylesheet" type="application/rss+xml" href="/not-a-feed">
    <link rel="alternate" type="application/rss+xml" href="javascript:void(0)">
  </head><body><a href="/a">a</a></body></html>`, 'http://site.test/index.html', 'crawlstream');
  assert.deepEqual(page.feeds, ['http://site.test/news/feed.rss', 'https://feeds.other.test/atom']);
  assert.deepEqual(page.links.map((l) => l.url), ['http://site.test/a'], 'a feed is no link');
});
