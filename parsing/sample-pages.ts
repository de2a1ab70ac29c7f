/**
 * Deterministic synthetic pages for the parsing tests and benchmarks: English-like text (function
 * words at realistic rates, a Zipf-distributed content vocabulary, per-article topic words) under
 * a fixed site template. Seeded, so a failing calibration test fails the same way every run.
 */

export type Rng = () => number;

/** xorshift32: tiny, fast and good enough to drive a text generator. */
export function seededRng(seed: number): Rng {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
}

// Ordered by English frequency; a Zipf draw over this list gives "the" ~ 1/4 of function words.
const FUNCTION_WORDS = ('the of and to a in is that for it as was with be by on not he i this are or his ' +
  'from at which but have an they you were her she there one all we can has been if more when will would ' +
  'who so no').split(' ');
const SYLLABLES = ('ka lo mi ne ru ta ver con sta pre ing tion al er ma po di sen tro gra ble ment ri fa zo ' +
  'quen por lin dex sys').split(' ');

function zipfSampler(n: number, exponent: number, rng: Rng): () => number {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) cumulative[i] = total += 1 / Math.pow(i + 1, exponent);
  return () => {
    const x = rng() * total;
    let lo = 0, hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
  };
}

export interface TextWorld {
  rng: Rng;
  /** `words` tokens: 45% function words, 10% from the article's 40 topic words, the rest Zipf content. */
  article(words: number, topicSeed: number): string[];
  /** A word drawn like article text, for edits. */
  randomWord(): string;
  /** A site template: ~25 navigation words and ~35 footer words. */
  template(seed: number): { nav: string[]; footer: string[] };
}

export function textWorld(seed: number): TextWorld {
  const rng = seededRng(seed);
  const vocabulary = new Set<string>();
  while (vocabulary.size < 30_000) {
    const syllables = 2 + Math.floor(rng() * 3);
    let w = '';
    for (let i = 0; i < syllables; i++) w += SYLLABLES[Math.floor(rng() * SYLLABLES.length)];
    vocabulary.add(w);
  }
  const vocab = [...vocabulary];
  const functionWord = zipfSampler(FUNCTION_WORDS.length, 1.0, rng);
  const contentWord = zipfSampler(vocab.length, 1.05, rng);
  const topicWord = zipfSampler(40, 1.0, rng);
  const capitalize = (w: string) => w[0].toUpperCase() + w.slice(1);
  return {
    rng,
    article(words, topicSeed) {
      const topicRng = seededRng(topicSeed);
      const topic = Array.from({ length: 40 }, () => vocab[Math.floor(topicRng() * vocab.length)]);
      const out: string[] = [];
      for (let i = 0; i < words; i++) {
        const x = rng();
        let w = x < 0.45 ? FUNCTION_WORDS[functionWord()] : x < 0.55 ? topic[topicWord()] : vocab[contentWord()];
        if (rng() < 0.06) w = capitalize(w) + (rng() < 0.5 ? '.' : ',');
        out.push(w);
      }
      return out;
    },
    randomWord() {
      return rng() < 0.45 ? FUNCTION_WORDS[functionWord()] : vocab[contentWord()];
    },
    template(templateSeed) {
      const t = seededRng(templateSeed);
      const pick = () => vocab[Math.floor(t() * 3000)];
      return {
        nav: Array.from({ length: 25 }, () => capitalize(pick())),
        footer: [...Array.from({ length: 35 }, pick), '©', '2024'],
      };
    },
  };
}

// Inline CSS and JS of the size real pages carry; the parser must skip over them cheaply.
const STYLE = Array.from({ length: 40 }, (_, i) =>
  `.c${i}{margin:${i}px 0;padding:0 ${i % 7}px;color:#${(0x333333 + i * 0x10101).toString(16)};font-size:${12 + (i % 5)}px}`)
  .join('\n    ');
const SCRIPT = Array.from({ length: 30 }, (_, i) =>
  `window.__cfg${i}={id:${i},enabled:${i % 2 === 0},path:'/static/chunk-${i}.js',retry:function(n){return n<3&&${i}>0}};`)
  .join('\n    ');

/**
 * A realistic ~18 KB article page: head with meta/canonical/styles/scripts, a nav, ~1,000 words of
 * paragraphs with inline links, a footer; 25 distinct links in total (1 logo, 10 nav, 9 inline, 5 footer;
 * some relative, some nofollow).
 */
export function sampleArticleHtml(seed = 1): string {
  const world = textWorld(seed);
  const words = world.article(1_200, seed * 31 + 7);
  const slug = (w: string) => w.toLowerCase().replace(/[^a-z0-9]+/g, '');
  const nav = ['Home', 'News', 'Sport', 'Business', 'Tech', 'Science', 'Health', 'Culture', 'Travel', 'About']
    .map((label, i) => `<li class="nav-item"><a class="nav-link" href="/${label.toLowerCase()}/">${label}</a></li>`)
    .join('\n        ');
  const paragraphs: string[] = [];
  let linkNo = 0;
  for (let i = 0; i < words.length; i += 80) {
    const chunk = words.slice(i, i + 80);
    if (linkNo < 9) {
      const at = 20 + (linkNo % 5) * 7;
      const rel = linkNo % 4 === 3 ? ' rel="nofollow noopener"' : '';
      const href = linkNo % 2 ? `https://www.partner-${linkNo}.example/articles/${slug(chunk[at])}?ref=site&amp;id=${linkNo}`
        : `../stories/2024/${slug(chunk[at])}-${slug(chunk[at + 1])}.html`;
      chunk[at] = `<a href="${href}"${rel} class="inline">${chunk[at]} ${chunk[at + 1]}</a>`;
      chunk[at + 1] = '';
      linkNo++;
    }
    paragraphs.push(`<p class="article-paragraph" data-index="${i / 80}">${chunk.join(' ')} &mdash; &quot;ok&quot;</p>`);
  }
  const footer = ['Privacy', 'Terms', 'Cookies', 'Contact', 'Careers']
    .map(label => `<a href="https://site.example/${label.toLowerCase()}" class="footer-link">${label}</a>`)
    .join(' | ');
  return `<!DOCTYPE html>
<html lang="en-GB">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="index, follow, max-image-preview:large">
  <title>${words.slice(0, 8).join(' ')} | Example News</title>
  <link rel="canonical" href="https://site.example/stories/2024/article-${seed}.html">
  <link rel="stylesheet" href="/static/css/main.3f9a1c.css">
  <style>${STYLE}</style>
  <script async src="/static/js/analytics.js"></script>
  <script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());
    gtag('config','UA-000000-1',{anonymize_ip:true,page_path:location.pathname});
    ${SCRIPT}</script>
  <script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"${words.slice(0, 6).join(' ')}","datePublished":"2024-03-05T12:31:00Z"}</script>
</head>
<body class="article-page">
  <header class="site-header"><div class="logo"><a href="/">Example News</a></div>
    <nav aria-label="Main"><ul class="nav">
        ${nav}
    </ul></nav></header>
  <main id="content"><article>
    <h1 class="headline">${words.slice(0, 10).join(' ')}</h1>
    <div class="byline">By <span class="author">Staff Writer</span> · <time datetime="2024-03-05">5 March 2024</time></div>
    ${paragraphs.join('\n    ')}
    <figure><img src="/img/photo-${seed}.jpg" alt="A photo" width="640" height="360"><figcaption>Photo caption text</figcaption></figure>
  </article></main>
  <noscript><img src="https://tracker.example/pixel.gif" alt=""></noscript>
  <footer class="site-footer"><p>${footer}</p><p>© 2024 Example News. All rights reserved.</p></footer>
  <script src="/static/js/app.8c2e.js" defer></script>
</body>
</html>
`;
}
