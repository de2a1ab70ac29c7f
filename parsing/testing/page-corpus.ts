// Seeded pages for the parse's identity test (extract-identity.test.ts): what the parse makes of them
// (links, text, content hash, simhash) is pinned, so a change meant to be a pure speed-up proves it
// changed nothing. The pages reach the odd corners of the text pass and the walker: entities, upper
// case and digits, CJK, emoji and lone surrogates, NUL, every kind of whitespace, boilerplate and
// main-content elements, hidden and skipped elements, links of every shape, unclosed tags.
import { seededRng, type Rng, sampleArticleHtml, textWorld, type TextWorld } from '../sample-pages.js';
import { TEMPLATES } from '../site-templates.js';
import { buildBenchScenario, DEFAULT_BENCH } from '../../test-web/scenario-bench.js';

export interface CorpusPage { name: string; url: string; html: string }

const pick = <T>(rng: Rng, a: readonly T[]): T => a[Math.floor(rng() * a.length)];

const SPACES = [' ', ' ', ' ', ' ', '  ', '\n', '\t', '\r\n', '\u00a0', '\u3000', ' \n  ', '\u2003', '\f'];
const ODD_WORDS = ['Café', 'ÉCOLE', 'Straße', 'ΣΟΦΙΑ', 'naïve', 'İstanbul', 'ﬁne', '1,234', '2024-03-05', 'v2.0.1',
  'x\u0000y', '東京都', '日本語の文章', '한국어', 'emoji😀here', '\ud83d', 'a\udc00b', 'ß', 'Ǆ', '١٢٣', 'e\u0301',
  'don\'t', 'co-op', 'e-mail', 'USA', 'NASA2', '$100', '50%', '#tag', '@user', '—', '…', '«quoted»'];
const ENTITIES = ['&amp;', '&lt;', '&gt;', '&quot;', '&#39;', '&nbsp;', '&eacute;', '&#233;', '&#x4E2D;', '&mdash;',
  '&copy', '&amp', '&notanentity;', '&#0;', '&#xD800;', '&AElig;', '&hellip;'];
const HREFS = ['/a', 'b/c', '../d?x=1&amp;y=2', '?q=1', '#frag', '/a#frag', 'https://other.test/x', 'http://other.test:8080/',
  '//proto.test/rel', 'javascript:void(0)', 'mailto:a@b.test', 'data:text/html,hi', 'http://[::1', '  /spaced  ',
  '/nul\u0000in', '/tab\tin', '/with spaces', '/caf&eacute;', 'HTTPS://UPPER.TEST/Path', 'ftp://files.test/',
  '/p/1', '/p/1', '/p/2', 'p/3?utm=&amp;a=b', '/%7Euser', '/ünïcode'];
const BOILER = ['<nav>', '<header>', '<footer>', '<aside>', '<div class="sidebar">', '<div id="comments">',
  '<div role="navigation">', '<section class="related-links">', '<ul class="menu">'];
const MAIN = ['<main>', '<article>', '<div class="entry-content">', '<div id="content">', '<section role="main">',
  '<div itemprop="articleBody">'];

function text(rng: Rng, words: string[], n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) {
    const r = rng();
    let w = r < 0.06 ? pick(rng, ODD_WORDS) : r < 0.1 ? pick(rng, ENTITIES) : pick(rng, words);
    if (rng() < 0.08) w = w[0].toUpperCase() + w.slice(1);
    s += w + (rng() < 0.1 ? pick(rng, ['.', ',', ';', '!', '?', ':']) : '') + (rng() < 0.2 ? pick(rng, SPACES) : ' ');
  }
  return s;
}

function element(rng: Rng, words: string[], depth: number): string {
  const r = rng();
  const inner = () => (depth > 0 ? Array.from({ length: 1 + Math.floor(rng() * 4) }, () => element(rng, words, depth - 1)).join('') : text(rng, words, 5 + Math.floor(rng() * 40)));
  if (r < 0.25) return `<p>${text(rng, words, 10 + Math.floor(rng() * 120))}</p>`;
  if (r < 0.4) {
    const rel = rng() < 0.2 ? pick(rng, [' rel="nofollow"', ' rel="ugc sponsored"', ' REL="NoFollow"', ' rel="noopener"']) : '';
    const img = rng() < 0.15 ? `<img src="/i.png" alt="${text(rng, words, 2).replace(/"/g, '')}">` : '';
    return `<a href="${pick(rng, HREFS)}"${rel}>${img}${text(rng, words, 1 + Math.floor(rng() * 6))}</a>`;
  }
  if (r < 0.5) return `${pick(rng, BOILER)}${inner()}</${'div'}>`;
  if (r < 0.6) return `${pick(rng, MAIN)}${inner()}</div>`;
  if (r < 0.65) return pick(rng, ['<script>var a = "<p>not text</p>";</script>', '<style>p { color: red }</style>',
    '<noscript>no script text <a href="/ns">ns link</a></noscript>', '<template><p>inert</p></template>',
    '<div hidden>hidden text</div>', '<div hidden="until-found">found text</div>', '<!-- a comment <a href="/c"> -->',
    '<svg><title>svg title</title><text>svg text</text></svg>', '<iframe>frame <b>text</b></iframe>', '<br>', '<hr/>']);
  if (r < 0.75) return `<${pick(rng, ['b', 'i', 'span', 'em', 'strong', 'B', 'Span'])}>${inner()}</${pick(rng, ['b', 'i', 'span', 'em'])}>`;
  if (r < 0.85) return `<${pick(rng, ['div', 'section', 'li', 'td', 'h2', 'blockquote'])}>${inner()}`;
  return `<div class="${pick(rng, ['x', 'story-body', 'ad-slot', 'post-text', 'byline'])}">${inner()}</div>`;
}

function randomPage(seed: number, world: TextWorld): CorpusPage {
  const rng = seededRng(seed);
  const words = world.article(400, seed);
  const head = [
    rng() < 0.7 ? `<title>${text(rng, words, 3 + Math.floor(rng() * 8))}</title>` : '',
    rng() < 0.3 ? `<base href="${pick(rng, ['/base/', 'https://base.test/dir/', 'javascript:x', '../up/'])}">` : '',
    rng() < 0.4 ? `<link rel="canonical" href="${pick(rng, HREFS)}">` : '',
    rng() < 0.2 ? '<link rel="alternate" type="application/rss+xml" href="/feed.xml">' : '',
    rng() < 0.3 ? `<meta name="robots" content="${pick(rng, ['noindex', 'nofollow', 'none', 'index, follow', 'NOINDEX,NOFOLLOW'])}">` : '',
    rng() < 0.2 ? '<meta http-equiv="content-language" content="de-DE, en">' : '',
  ].join('');
  const body = Array.from({ length: 3 + Math.floor(rng() * 25) }, () => element(rng, words, 2)).join('\n');
  const lang = rng() < 0.5 ? ` lang="${pick(rng, ['en', 'EN-gb', 'fr', ' de '])}"` : '';
  const html = `<!doctype html><html${lang}><head>${head}</head><body>${body}${rng() < 0.8 ? '</body></html>' : ''}`;
  return { name: `random-${seed}`, url: `http://site${seed % 7}.test/dir/page-${seed}.html`, html };
}

/** The pages: the bench web's, the sample articles, the near-duplicate templates', and random ones. */
export function corpusPages(): CorpusPage[] {
  const pages: CorpusPage[] = [];
  const addresses = Array.from({ length: 4 }, (_, i) => `127.20.0.${i + 1}`);
  const scenario = buildBenchScenario(addresses, 41234, { ...DEFAULT_BENCH, hosts: addresses.length });
  const hosts = scenario.hosts as unknown as { origin: string; render(n: number): string }[];
  for (let i = 0; i < 12; i++) {
    const host = hosts[i % hosts.length];
    const n = Math.floor(i / hosts.length);
    pages.push({ name: `bench-${i}`, url: `${host.origin}/p/${n}`, html: host.render(n) });
  }
  for (let i = 1; i <= 6; i++) pages.push({ name: `article-${i}`, url: `https://site.test/stories/2024/article-${i}.html`, html: sampleArticleHtml(i) });
  // One world (a 30,000-word vocabulary takes a while to build) for all the generated pages.
  const world = textWorld(200);
  for (let i = 0; i < 8; i++) {
    const rng = seededRng(100 + i);
    const paragraphs = Array.from({ length: 6 }, (_, p) => world.article(60 + 20 * p, i).join(' '));
    const article = { title: world.article(6, i).join(' '), byline: 'By A. Writer', paragraphs };
    pages.push({ name: `template-${i}`, url: `http://news${i}.test/a/${i}`, html: TEMPLATES[i % TEMPLATES.length](article, rng) });
  }
  for (let seed = 1; seed <= 160; seed++) pages.push(randomPage(seed, world));
  return pages;
}
