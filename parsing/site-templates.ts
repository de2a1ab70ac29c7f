// Four site templates that publish an article, for near-duplicate measurements: from fully
// semantic HTML5 to a table layout with no hint at all of what is boilerplate. Each page also has
// parts that change from page to page (related headlines, reader comments, tags), drawn from the
// page's own seeded generator. All links stay on .test hosts.
import type { Rng } from './sample-pages.js';

export interface Article { title: string; byline: string; paragraphs: string[] }
/** `insert`: HTML placed inside the article after its second paragraph (a promo, a figure). */
export type Template = (article: Article, rng: Rng, insert?: string) => string;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const SYLLABLES = 'ka lo mi ne ru ta ver con sta pre ing tion al er ma po di sen tro gra ble ment'.split(' ');

/** A made-up word, for the parts of a page that change from page to page. */
function word(rng: Rng): string {
  let w = '';
  for (let n = 2 + Math.floor(rng() * 3); n > 0; n--) w += SYLLABLES[Math.floor(rng() * SYLLABLES.length)];
  return w;
}
const words = (rng: Rng, n: number) => Array.from({ length: n }, () => word(rng)).join(' ');
const headline = (rng: Rng) => words(rng, 5 + Math.floor(rng() * 5));
/** The article's paragraphs, with `insert` placed after the second one (as sites place figures and promos). */
const body = (a: Article, insert = '') =>
  a.paragraphs.map((p, i) => `<p>${esc(p)}</p>${i === 1 ? insert : ''}`).join('\n');
const links = (labels: string[], host: string, wrap: (a: string) => string) =>
  labels.map((l, i) => wrap(`<a href="http://${host}/${i}/${encodeURIComponent(l.slice(0, 12))}">${esc(l)}</a>`)).join('');

/** HTML5 landmarks: header, nav, main, article, aside, footer. */
const semantic: Template = (a, rng, insert = '') => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>${esc(a.title)} | The Semantic Review</title></head><body>
<header><a href="http://review.test/">The Semantic Review</a><nav><ul>${links(['Home', 'World', 'Technology',
  'Science', 'Opinion', 'Culture', 'Podcasts', 'Newsletters', 'About us', 'Subscribe'], 'review.test', x => `<li>${x}</li>`)}</ul></nav></header>
<main><article><h1>${esc(a.title)}</h1><p class="byline">${esc(a.byline)}</p>
${body(a, `<figure><img src="http://review.test/img/${Math.floor(rng() * 1e6)}.jpg" alt="${words(rng, 4)}"><figcaption>${words(rng, 7)}</figcaption></figure>${insert}`)}
</article></main>
<aside><h2>Related stories</h2><ul>${links(Array.from({ length: 6 }, () => headline(rng)), 'review.test', x => `<li>${x}</li>`)}</ul>
<p>Support independent journalism: become a member today and get our weekly digest, early access to events
and an advertising-free reading experience on every device.</p></aside>
<footer><p>© 2024 The Semantic Review. All rights reserved. Registered office: 1 Example Street, Testville.</p>
${links(['Privacy', 'Terms', 'Cookies', 'Contact', 'Careers'], 'review.test', x => x + ' ')}</footer></body></html>`;

/** Div soup whose class names and ids still say what each part is; reader comments change per page. */
const divs: Template = (a, rng, insert = '') => `<html><head><title>${esc(a.title)} - Div Times</title></head><body>
<div id="masthead"><div class="logo"><a href="http://divtimes.test/">Div Times</a></div>
<div class="menu">${links(['News', 'Markets', 'Companies', 'Tech', 'Life & Arts', 'Video', 'Events', 'Archive',
  'Sign in', 'Help'], 'divtimes.test', x => x + ' | ')}</div></div>
<div class="wrap"><div class="entry-content"><h1>${esc(a.title)}</h1><div class="byline">${esc(a.byline)}</div>
${body(a, `<p><strong>Read more:</strong> <a href="http://divtimes.test/story/${Math.floor(rng() * 1e6)}">${headline(rng)}</a></p>${insert}`)}
</div>
<div class="sidebar-widget"><h3>Popular now</h3>${links(Array.from({ length: 5 }, () => headline(rng)), 'divtimes.test', x => `<div>${x}</div>`)}
<p>Subscribe to the Div Times morning briefing: the five stories you need before your first coffee.</p></div></div>
<div class="comments"><h3>3 comments</h3>${Array.from({ length: 3 }, () =>
  `<div class="comment"><b>${word(rng)}</b><p>${words(rng, 15 + Math.floor(rng() * 25))}</p></div>`).join('')}</div>
<div id="footer"><p>Div Times Media Group Limited, registered in Testland under number 000000. Our journalists
follow the editors' code of practice; complaints go to the readers' editor.</p></div></body></html>`;

/**
 * A table layout with meaningless class names: only link density, block length and the container
 * with the most prose tell the article from the rest.
 */
const table: Template = (a, rng, insert = '') => `<html><head><title>${esc(a.title)}</title></head><body bgcolor="#ffffff">
<table width="100%"><tr><td width="180" class="c1" valign="top">${links(['Front page', 'Local', 'Sports', 'Weather',
  'Obituaries', 'Classifieds', 'Letters', 'Photos', 'Calendar', 'Contact us', 'Advertise', 'Jobs'], 'gazette.test', x => `<div>${x}</div>`)}
</td><td class="c2" valign="top"><h2>${esc(a.title)}</h2><p><i>${esc(a.byline)}</i></p>
${body(a, insert)}
<p>More: ${links(Array.from({ length: 4 }, () => headline(rng)), 'gazette.test', x => x + ' · ')}</p></td></tr></table>
<div class="c3"><p>The County Gazette has served the valley since 1887. Letters to the editor must include a
name and a town, may be shortened for space, and are published on Thursdays. Call the newsroom any
weekday between nine and five with news tips, corrections or questions about your delivery.</p>
<p>${links(['Contact', 'Advertise', 'Jobs'], 'gazette.test', x => x + ' ')}</p></div></body></html>`;

/** A personal blog: tags, share buttons, an author bio and a sign-up box around the post. */
const blog: Template = (a, rng, insert = '') => `<!DOCTYPE html><html><head><title>${esc(a.title)} · Notes from the workshop</title></head>
<body><div class="blog"><div class="top"><a href="http://notes.test/">Notes from the workshop</a>
${links(['Archive', 'About', 'Talks', 'RSS'], 'notes.test', x => x + ' ')}</div>
<div class="post"><h1>${esc(a.title)}</h1><div class="meta">${esc(a.byline)}</div>
${body(a, insert)}
<div class="tags">Tags: ${links(Array.from({ length: 5 }, () => word(rng)), 'notes.test', x => x + ', ')}</div>
<div class="share">Share this: ${links(['Mastodon', 'Bluesky', 'Email'], 'notes.test', x => x + ' ')}</div>
<div class="author-bio"><p>I write about software, tools and the small habits that make programming more
pleasant. I have built backends for twenty years, maintain a couple of open source libraries, and
spend my weekends restoring old bicycles and failing to keep tomatoes alive on the balcony.</p></div></div>
<div class="signup"><p>Get new posts by email. One message a month, no tracking, unsubscribe with one click.</p>
<form><input type="email" placeholder="you@example.test"><button>Sign me up</button></form></div></div></body></html>`;

export const TEMPLATES: readonly Template[] = [semantic, divs, table, blog];

/** A publisher's pitch placed inside an article with nothing in the markup to say it is not prose. */
export const INLINE_PROMO = `<p>Like what you are reading? This site is paid for by readers like you, and a
subscription costs less than a cup of coffee a week.</p>`;
