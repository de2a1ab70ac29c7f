// The six "plain" hosts of the test scenario: small interlinked sites whose links exercise URL resolution and
// canonicalization (./ ../ fragments, tracking parameters, reordered queries, scheme-relative and upper-case
// scheme links), plus the <base href>, rel=nofollow and meta-nofollow cases.
import type { Site } from './site.js';
import { articleParagraphs, inventTitle, Rng } from './text.js';

export type SiteLookup = (name: string) => Site;

export const PLAIN_HOSTS = 6;

function plainSite(get: SiteLookup, k: number): void {
  const s = get(`plain-${k}`);
  const next = get(`plain-${(k % PLAIN_HOSTS) + 1}`);
  const prev = get(`plain-${((k + PLAIN_HOSTS - 2) % PLAIN_HOSTS) + 1}`);
  const far = get(`plain-${((k + 1) % PLAIN_HOSTS) + 1}`);
  const posts = new Rng(`plain-${k}`).range(2, 5);
  const text = (path: string) => articleParagraphs(`plain-${k}${path}`, 160);
  const t = (path: string) => `${inventTitle(`plain-${k}${path}`, 2)} · ${s.siteName}`;
  s.siteName = `${inventTitle(`plain-${k}`, 1)} site ${k}`;
  s.nav = [['/', 'Home'], ['/about', 'About'], ['/blog/', 'Blog'], ['/docs/guide/', 'Docs']];
  // Each plain host points at one other kind of host, so the crawl reaches them through cross-host links too.
  const elsewhere = ['news-a', 'robots-match', 'robots-token', 'hostile-d', 'robots-503', 'trap-session'][k - 1];

  s.page('/', { title: t('/'), paragraphs: text('/') }, (a) => [
    a('about', 'About us'),
    a('./blog/', 'Our blog'),
    a('/docs/guide/#start', 'Guide'),
    a('/products?id=3&color=red', 'Red widget'),
    a(next.url('/'), 'Next site'),
    a(`//${prev.address}:${prev.port}/blog/`, 'Previous site blog'),
    a(get(elsewhere).url('/'), 'Elsewhere'),
    ...(k === 4 ? [a(`HTTP://${next.address}:${next.port}/about`, 'Upper-case scheme')] : []),
    ...(k === 5 ? [a('./blog/../about', 'Dot segments')] : []),
    ...(k === 6 ? [a('  /docs/api/  ', 'Padded href')] : []),
  ]);
  s.page('/about', { title: t('/about'), paragraphs: text('/about'), metaNofollow: k === 3 }, (a) => [
    a('./', 'Back home'),
    a('/about?utm_source=x&utm_medium=email', 'This page, tracked'),
    a('blog/post-1#comments', 'Comments on the first post'),
    // plain-3's /about is meta-nofollow: these two pages are reachable only from here.
    ...(k === 3 ? [a('/hidden/meta-1', 'Hidden one'), a('hidden/meta-2', 'Hidden two')] : []),
    ...(k === 2 ? [a(get('robots-match').url('/shop/cart'), 'A disallowed page on another host')] : []),
  ]);
  s.page('/blog/', { title: t('/blog/'), paragraphs: text('/blog/') }, (a) => [
    ...Array.from({ length: posts }, (_, j) => {
      const i = j + 1;
      const href = i === 1 ? 'post-1' : i === 2 ? './post-2' : i === 3 ? 'post-3?utm_source=x' : `/blog/post-${i}#top`;
      return a(href, `Post ${i}`);
    }),
    a('../about', 'About'),
    ...(k === 2 ? [a('/hidden/nofollow-only', 'Sponsored', { nofollow: true }), a('/about', 'About', { nofollow: true })] : []),
  ]);
  for (let i = 1; i <= posts; i++) {
    const path = `/blog/post-${i}`;
    s.page(path, { title: t(path), paragraphs: text(path) }, (a) => [
      a('../', 'Home'),
      a('./', 'All posts'),
      ...(i < posts ? [a(`post-${i + 1}`, 'Next post')] : []),
      a('../docs/guide/setup', 'Setup guide'),
      ...(i === 1 ? [a(far.url('/blog/post-1'), 'A post on another site')] : []),
    ]);
  }
  s.page('/docs/guide/', { title: t('/docs/guide/'), paragraphs: text('/docs/guide/') }, (a) => [
    a('intro', 'Introduction'),
    a('./setup', 'Setup'),
    a('../api/', 'API'),
    a('../../products?color=blue&id=4&utm_campaign=spring', 'Blue widget'),
    ...(k === 1 ? [a('../base-demo', 'A page with a base element')] : []),
  ]);
  s.page('/docs/guide/intro', { title: t('/docs/guide/intro'), paragraphs: text('/docs/guide/intro') }, (a) => [
    a('../guide/setup', 'Setup'),
    a('../../about#team', 'Team'),
  ]);
  s.page('/docs/guide/setup', { title: t('/docs/guide/setup'), paragraphs: text('/docs/guide/setup') }, (a) => [
    a('./intro', 'Introduction'),
  ]);
  s.page('/docs/api/', { title: t('/docs/api/'), paragraphs: text('/docs/api/') }, (a) => [
    a('../guide/', 'Guide'),
    a('/products?color=red&id=3', 'Red widget'),
  ]);
  s.page('/products?color=red&id=3', { title: t('red'), paragraphs: text('red') }, (a) => [
    a('?id=4&color=blue', 'Blue widget'),
    a('/products?color=red&id=3&utm_source=x', 'This page, tracked'),
  ]);
  s.page('/products?color=blue&id=4', { title: t('blue'), paragraphs: text('blue') }, (a) => [
    a('?color=red&id=3#specs', 'Red widget specs'),
  ]);

  if (k === 1) {
    // Relative links here resolve against /docs/reference/, not against the page's own directory.
    s.page('/docs/base-demo', { title: t('base'), paragraphs: text('base'), baseHref: '/docs/reference/' }, (a) => [
      a('intro', 'Reference introduction'),
      a('../api/', 'API'),
    ]);
    s.page('/docs/reference/intro', { title: t('/docs/reference/intro'), paragraphs: text('ref') });
    // Where "intro" lands when <base href> is ignored: a correct crawler never asks for it.
    s.page('/docs/intro', { title: 'You ignored <base href>', paragraphs: text('misread') });
  }
  if (k === 2) s.page('/hidden/nofollow-only', { title: t('nofollow'), paragraphs: text('nofollow') });
  if (k === 3) {
    s.page('/hidden/meta-1', { title: t('meta-1'), paragraphs: text('meta-1') });
    s.page('/hidden/meta-2', { title: t('meta-2'), paragraphs: text('meta-2') });
  }
}

export function buildPlainSites(get: SiteLookup): void {
  for (let k = 1; k <= PLAIN_HOSTS; k++) plainSite(get, k);
}
