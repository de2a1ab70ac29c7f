// The 'demo' scenario: four friendly hosts for the README's first command. One Disallow on the shop, one
// near-duplicate pair (the blog's release notes mirrored by the docs), no traps, nothing hostile.
// Addresses are consecutive from the first address (default 127.30.0.1): home, blog, docs, shop.
import { computeExpected } from './expected.js';
import { type BuiltScenario, makeSites } from './scenario-test.js';
import type { Site } from './site.js';
import { articleParagraphs, Rng } from './text.js';

export const DEMO_HOST_NAMES = ['home', 'blog', 'docs', 'shop'] as const;
const PAGES_PER_HOST = 11; // plus the root: 12 pages per host
const TEMPLATE_NAME = 'Crawlstream demo web';

const ADJECTIVES = ['Gentle', 'Practical', 'Quick', 'Patient', 'Curious', 'Tidy', 'Small', 'Honest', 'Calm', 'Bright'];
const NOUNS = ['queues', 'crawlers', 'partitions', 'timers', 'caches', 'streams', 'robots', 'offsets', 'hosts', 'links'];
const KINDS: Record<string, string> = { home: 'Welcome', blog: 'Notes on', docs: 'Guide to', shop: 'Kit for' };

function slugTitle(host: string, i: number): [string, string] {
  const rng = new Rng(`demo:${host}:${i}`);
  const adjective = rng.pick(ADJECTIVES);
  const noun = NOUNS[(i + rng.int(3)) % NOUNS.length];
  return [`${adjective.toLowerCase()}-${noun}-${i}`, `${KINDS[host]} ${adjective.toLowerCase()} ${noun}`];
}

function demoSite(s: Site, all: Site[], index: number): void {
  s.siteName = TEMPLATE_NAME;
  s.nav = [['/', 'Home']];
  const pages = Array.from({ length: PAGES_PER_HOST }, (_, i) => slugTitle(s.name, i + 1));
  const section = s.name === 'shop' ? '/products/' : '/pages/';
  const other = all[(index + 1) % all.length];
  s.page('/', { title: `${TEMPLATE_NAME}: ${s.name}`, paragraphs: articleParagraphs(`demo:${s.name}`, 120) }, (a) => [
    ...pages.map(([slug, title]) => a(`${section.slice(1)}${slug}`, title)),
    ...all.filter((o) => o !== s).map((o) => a(o.url('/'), `Visit ${o.name}`)),
  ]);
  pages.forEach(([slug, title], i) => {
    const near = (k: number) => pages[(i + k) % pages.length][0];
    s.page(`${section}${slug}`, { title, paragraphs: articleParagraphs(`demo:${s.name}:${slug}`, 220) }, (a) => [
      a(`./${near(1)}`, 'Next'),
      a(`${near(4)}#more`, 'Related'),
      a(`../${section.slice(1)}${near(7)}?utm_source=demo`, 'Also read'),
      a(other.url(i % 2 === 0 ? '/' : '/about'), `Over at ${other.name}`),
    ]);
  });
  s.page('/about', { title: `About the ${s.name} host`, paragraphs: articleParagraphs(`demo:${s.name}:about`, 150) });
}

export function buildDemoScenario(addresses: string[], port: number): BuiltScenario {
  const { sites, get } = makeSites(DEMO_HOST_NAMES, addresses, port);
  sites.forEach((s, i) => demoSite(s, sites, i));
  const home = get('home');
  home.seed = true;

  const shop = get('shop');
  shop.robots = { status: 200, body: 'User-agent: *\nDisallow: /checkout/\n' };
  shop.pages.get('/')!.links.push({ href: '/checkout/cart', text: 'Your cart', to: shop.url('/checkout/cart') });
  shop.page('/checkout/cart', { title: 'Your cart', paragraphs: ['Nothing to see for crawlers.'], disallowed: true });

  // Same 650-word article on two hosts; only the "Updated at … · view …" line differs.
  const blog = get('blog');
  const docs = get('docs');
  const notes = articleParagraphs('demo:release-notes', 650);
  blog.page('/release-notes', { title: 'Release notes', byline: 'Updated at 10:04 · view 18', paragraphs: notes });
  docs.page('/changelog', { title: 'Release notes', byline: 'Updated at 16:37 · view 2', paragraphs: notes });
  for (const [s, path] of [[blog, '/release-notes'], [docs, '/changelog']] as const) {
    s.pages.get('/')!.links.push({ href: path.slice(1), text: 'Release notes', to: s.url(path) });
  }
  const seeds = [home.url('/')];
  return {
    hosts: sites,
    seeds,
    expected: {
      ...computeExpected(sites, seeds),
      exactDuplicates: [],
      nearDuplicates: [[blog.url('/release-notes'), docs.url('/changelog')]],
      distinctPages: [...get('blog').pages.keys()].filter((p) => p.startsWith('/pages/')).map((p) => blog.url(p)),
      sessionTrapPages: [],
    },
    endpoints: {},
  };
}
