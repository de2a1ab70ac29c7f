// Sites of the 'topic' scenario (scenario-topic.ts): every page's text is drawn from one vocabulary,
// and the page is on-topic exactly when that vocabulary is the topic's. Articles are listed by their
// section's index and link to a few articles of their own section; sites link to one another from
// chosen articles, with the target's title as anchor text, as related-reading links do.
import { resolveLink } from './html.js';
import type { Site } from './site.js';
import { COMMON_WORDS, Rng, titleCase } from './text.js';
import { FILLER, TITLE_SHAPES } from './topic-words.js';

export interface TopicPage {
  site: Site;
  path: string;
  title: string;
  onTopic: boolean;
  /** An off-topic article that mentions the topic (its title too) and links to a page about it. */
  bridge?: boolean;
}

export interface SectionSpec {
  /** The path segment and the nav label. */
  name: string;
  label: string;
  vocabulary: readonly string[];
  articles: number;
  onTopic: boolean;
  /** Other words mixed into the section's text (a garden page mentioning pollinators now and then). */
  mix?: { extra: readonly string[]; share: number };
  /** Which articles bridge to the topic: their title joins a word of the section and a word of `words`, and their text mentions it more. */
  bridges?: { every: number; words: readonly string[]; share: number; lead?: boolean };
}

/** A page's text: common words, neutral filler and its own vocabulary (Zipf-skewed, shuffled per page). */
export function pageText(seed: string, vocabulary: readonly string[], words: number, mix?: { extra: readonly string[]; share: number }): string[] {
  const rng = new Rng(seed);
  const order = [...vocabulary];
  for (let i = order.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  const paragraphs: string[] = [];
  let left = words;
  while (left > 0) {
    const n = Math.min(left, rng.range(45, 85));
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const u = rng.next();
      const w = mix && u < mix.share ? rng.pick(mix.extra)
        : u < 0.45 ? rng.pick(COMMON_WORDS) : u < 0.62 ? rng.pick(FILLER) : order[Math.floor(rng.next() ** 2 * order.length)];
      out.push(i === 0 ? w[0].toUpperCase() + w.slice(1) : w);
    }
    paragraphs.push(out.join(' ') + '.');
    left -= n;
  }
  return paragraphs;
}

export function pageTitle(seed: string, vocabulary: readonly string[]): string {
  const rng = new Rng(`title:${seed}`);
  const a = rng.pick(vocabulary);
  let b = rng.pick(vocabulary);
  if (b === a) b = vocabulary[(vocabulary.indexOf(a) + 1) % vocabulary.length];
  const t = rng.pick(TITLE_SHAPES).replace('{0}', a).replace('{1}', b);
  return t[0].toUpperCase() + t.slice(1);
}

/** "Roses and hives": a word of the page's subject and a word of the topic it mentions. */
function bridgeTitle(seed: string, vocabulary: readonly string[], topic: readonly string[]): string {
  const rng = new Rng(`bridge:${seed}`);
  const t = rng.pick(['{0} and {1}', 'Why {1} matter for {0}', '{0}: a note on {1}', 'Making room for {1} among the {0}']).replace('{0}', rng.pick(vocabulary)).replace('{1}', rng.pick(topic));
  return t[0].toUpperCase() + t.slice(1);
}

export function slug(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60);
}

/** Adds a link to a page already built (links to other sites are added once every site exists). */
export function addLink(from: TopicPage, to: string, text: string): void {
  from.site.pages.get(from.path)!.links.push({ href: to, text, to: resolveLink(to, to) });
}

/** One site: a home page, one index per section, and its articles. Returns its pages. */
export function buildSite(s: Site, displayName: string, home: { vocabulary: readonly string[]; onTopic: boolean }, sections: SectionSpec[],
  homeLinks: [string, string][] = []): TopicPage[] {
  s.siteName = displayName;
  s.nav = [['/', 'Home'], ...sections.map((x) => [`/${x.name}/`, x.label] as [string, string])];
  const pages: TopicPage[] = [];
  const articlesOf = new Map<string, { path: string; title: string }[]>();
  for (const x of sections) {
    const list: { path: string; title: string }[] = [];
    const seen = new Set<string>();
    for (let i = 0; list.length < x.articles; i++) {
      const bridge = x.bridges && list.length % x.bridges.every === x.bridges.every - 1;
      const title = bridge ? bridgeTitle(`${s.name}/${x.name}/${i}`, x.vocabulary, x.bridges!.words) : pageTitle(`${s.name}/${x.name}/${i}`, x.vocabulary);
      const path = `/${x.name}/${slug(title)}`;
      if (seen.has(path)) continue;
      seen.add(path);
      list.push({ path, title });
    }
    articlesOf.set(x.name, list);
  }
  s.page('/', { title: displayName, paragraphs: pageText(`${s.name}/home`, home.vocabulary, 120) },
    // Each section's lead story is teased on the home page; some sections lead with a bridge.
    (a) => [...sections.map((x) => {
      const list = articlesOf.get(x.name)!;
      const lead = list[x.bridges?.lead ? Math.min(list.length, x.bridges.every) - 1 : 0];
      return a(lead.path, lead.title);
    }),
      ...homeLinks.map(([href, text]) => a(href, text))]);
  pages.push({ site: s, path: '/', title: displayName, onTopic: home.onTopic });
  for (const x of sections) {
    const list = articlesOf.get(x.name)!;
    const indexPath = `/${x.name}/`;
    s.page(indexPath, { title: `${x.label} · ${displayName}`, paragraphs: pageText(`${s.name}${indexPath}`, x.vocabulary, 80) },
      (a) => list.map((p) => a(p.path, p.title)));
    pages.push({ site: s, path: indexPath, title: x.label, onTopic: x.onTopic });
    list.forEach((p, i) => {
      const rng = new Rng(`${s.name}${p.path}`);
      const related = new Set<number>();
      while (related.size < Math.min(4, list.length - 1)) {
        const j = rng.int(list.length);
        if (j !== i) related.add(j);
      }
      const words = rng.range(240, 380);
      const bridge = x.bridges !== undefined && i % x.bridges.every === x.bridges.every - 1;
      const mix = bridge ? { extra: x.bridges!.words, share: x.bridges!.share } : x.mix;
      s.page(p.path, { title: p.title, paragraphs: pageText(`${s.name}${p.path}`, x.vocabulary, words, mix) },
        (a) => [...related].map((j) => a(list[j].path, list[j].title)));
      pages.push({ site: s, path: p.path, title: p.title, onTopic: x.onTopic, ...(bridge ? { bridge } : {}) });
    });
  }
  return pages;
}

export function siteName(seed: string, vocabulary: readonly string[], kind: string): string {
  const rng = new Rng(`name:${seed}`);
  return `${titleCase([rng.pick(['north', 'river', 'oak', 'hill', 'bright', 'old', 'green', 'stone', 'west', 'lake'])])} ${titleCase([rng.pick(vocabulary)])} ${kind}`;
}
