// Three news hosts sharing one template: an exact duplicate pair, two near-duplicate pairs and six distinct
// articles. Exact duplicates are byte-identical pages (only path-absolute links, same template name), so any
// content hash matches; near duplicates differ only in the byline's time and view count (2 words).
import type { ExpectedOutcomes } from './types.js';
import type { Site } from './site.js';
import type { SiteLookup } from './sites-plain.js';
import { articleParagraphs, inventTitle } from './text.js';

export const ARTICLE_WORDS = 700;
const TEMPLATE_NAME = 'The Synthetic Times';

interface Article {
  path: string;
  seed: string;
  byline: string;
}

type DuplicateTruth = Pick<ExpectedOutcomes, 'exactDuplicates' | 'nearDuplicates' | 'distinctPages'>;

export function buildNewsSites(get: SiteLookup): DuplicateTruth {
  const [a, b, c] = ['news-a', 'news-b', 'news-c'].map(get);
  const articles = new Map<Site, Article[]>([
    [
      a,
      [
        { path: '/articles/exact-story', seed: 'exact-story', byline: 'Published on the wire' },
        { path: '/articles/near-one', seed: 'near-one', byline: 'Updated at 09:15 · view 3' },
        { path: '/articles/distinct-a1', seed: 'distinct-a1', byline: 'Updated at 08:00 · view 12' },
        { path: '/articles/distinct-a2', seed: 'distinct-a2', byline: 'Updated at 08:30 · view 40' },
      ],
    ],
    [
      b,
      [
        { path: '/stories/exact-story-copy', seed: 'exact-story', byline: 'Published on the wire' },
        { path: '/articles/near-two', seed: 'near-two', byline: 'Updated at 11:02 · view 77' },
        { path: '/articles/distinct-b1', seed: 'distinct-b1', byline: 'Updated at 10:00 · view 5' },
        { path: '/articles/distinct-b2', seed: 'distinct-b2', byline: 'Updated at 10:45 · view 9' },
      ],
    ],
    [
      c,
      [
        { path: '/articles/near-one', seed: 'near-one', byline: 'Updated at 17:42 · view 1208' },
        { path: '/articles/near-two-mirror', seed: 'near-two', byline: 'Updated at 23:59 · view 4' },
        { path: '/articles/distinct-c1', seed: 'distinct-c1', byline: 'Updated at 12:00 · view 31' },
        { path: '/articles/distinct-c2', seed: 'distinct-c2', byline: 'Updated at 12:10 · view 2' },
      ],
    ],
  ]);
  const fronts = [a, b, c];
  for (const [s, list] of articles) {
    s.seed = true;
    s.siteName = TEMPLATE_NAME;
    s.nav = [['/', 'Front page'], ['/archive', 'Archive']];
    const intro = (p: string) => articleParagraphs(`${s.name}${p}`, 150);
    s.page('/', { title: `${TEMPLATE_NAME}: front page of ${s.name}`, paragraphs: intro('/') }, (l) =>
      list.map((x) => l(x.path, inventTitle(x.seed, 4))),
    );
    s.page('/archive', { title: `${TEMPLATE_NAME}: archive of ${s.name}`, paragraphs: intro('/archive') }, (l) => [
      ...list.map((x) => l(`.${x.path}`, inventTitle(x.seed, 4))),
      ...fronts.filter((f) => f !== s).map((f) => l(f.url('/'), `Our sister paper at ${f.address}`)),
    ]);
    for (const x of list) {
      s.page(x.path, { title: inventTitle(x.seed, 4), byline: x.byline, paragraphs: articleParagraphs(x.seed, ARTICLE_WORDS) });
    }
  }
  return {
    exactDuplicates: [[a.url('/articles/exact-story'), b.url('/stories/exact-story-copy')]],
    nearDuplicates: [
      [a.url('/articles/near-one'), c.url('/articles/near-one')],
      [b.url('/articles/near-two'), c.url('/articles/near-two-mirror')],
    ],
    distinctPages: [...articles]
      .flatMap(([s, list]) => list.filter((x) => x.seed.startsWith('distinct')).map((x) => s.url(x.path)))
      .sort(),
  };
}
