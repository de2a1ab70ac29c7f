// The 'topic' scenario: a web of ~4,300 pages on 40 hosts in which ~330 pages are about one topic
// (beekeeping), for focused-crawl tests and benchmarks. Addresses are consecutive from the first
// address (default 127.70.0.1), in the order of TOPIC_HOST_NAMES:
//   portal-1 … portal-5     general portals (the seeds): news, sport, money, travel, food, garden, tech, culture
//   general-1 … general-20  sites on one general subject each; general-7 (garden) and general-11 (nature)
//                           each have an off-topic hub page listing the pages of a hidden topic site
//   topic-1 … topic-6       beekeeping sites (a few off-topic pages each: about, contact, shop…);
//                           topic-6's /members/ is disallowed by its robots.txt
//   mixed-1 … mixed-3       general news sites with a small "Bee diary" section
//   hidden-1, hidden-2      beekeeping sites linked only from the hubs of general-7 and general-11
//   decoy-spelling, decoy-royal, decoy-honeyfood, decoy-swarm: other subjects using the topic's words
//                           in another sense (a spelling bee, a queen's colonies, honey recipes, drone swarms)
// On-topic pages are linked mostly from on-topic pages, with their titles as anchor text. The truth
// (which reachable pages are on-topic) comes from the vocabulary each page was written from.
import { computeExpected } from './expected.js';
import { type BuiltScenario, makeSites } from './scenario-test.js';
import type { Site } from './site.js';
import { addLink, buildSite, pageText, type SectionSpec, siteName, type TopicPage } from './sites-topic.js';
import { Rng } from './text.js';
import { BRIDGE, DECOY_SENSES, DECOYS, GENERAL, TOPIC } from './topic-words.js';

const GENERAL_SUBJECTS = ['news', 'sport', 'money', 'travel', 'food', 'tech', 'garden', 'culture', 'health', 'cars', 'nature'];
const PORTAL_SECTIONS = ['news', 'sport', 'money', 'travel', 'food', 'garden', 'tech', 'culture'];
const DECOY_NAMES = ['spelling', 'royal', 'honeyfood', 'swarm'] as const;

export const TOPIC_HOST_NAMES: readonly string[] = [
  ...range(5).map((i) => `portal-${i}`),
  ...range(20).map((i) => `general-${i}`),
  ...range(6).map((i) => `topic-${i}`),
  ...range(3).map((i) => `mixed-${i}`),
  'hidden-1', 'hidden-2',
  ...DECOY_NAMES.map((d) => `decoy-${d}`),
];

/** Ground truth of a focused crawl of the scenario. */
export interface TopicTruth {
  /** Canonical URLs of the on-topic pages a crawler may fetch (reachable from the seeds, allowed by robots.txt). */
  onTopic: string[];
  /** Every page a crawler may fetch. */
  pages: number;
  /** Example pages about the topic (not pages of the web), as a user would give them. */
  examples: string[];
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}

const section = (name: string, label: string, vocabulary: readonly string[], articles: number, onTopic = false, mix?: SectionSpec['mix'],
  bridgeEvery?: number, lead = false): SectionSpec =>
  ({ name, label, vocabulary, articles, onTopic, mix, ...(bridgeEvery ? { bridges: { every: bridgeEvery, words: BRIDGE, share: 0.1, lead } } : {}) });

export function buildTopicScenario(addresses: string[], port: number): BuiltScenario & { topic: TopicTruth } {
  const { sites, get } = makeSites(TOPIC_HOST_NAMES, addresses, port);
  const pages: TopicPage[] = [];
  const garden = { extra: TOPIC, share: 0.03 };
  const subjectOf = (i: number) => GENERAL_SUBJECTS[(i - 1) % GENERAL_SUBJECTS.length];

  // Named first: the portals' home pages link to the general sites by name.
  for (const i of range(20)) get(`general-${i}`).siteName = siteName(`general-${i}`, GENERAL[subjectOf(i)], 'Times');
  for (const i of range(5)) {
    const s = get(`portal-${i}`);
    const generals = range(8).map((k) => get(`general-${((i - 1) * 4 + k - 1) % 20 + 1}`));
    pages.push(...buildSite(s, `The ${['Daily', 'Weekly', 'Morning', 'Evening', 'Sunday'][i - 1]} Portal`, { vocabulary: FILLER_HOME, onTopic: false },
      // Two portals lead their garden section with a story that mentions bees on their home page.
      PORTAL_SECTIONS.map((x) => x === 'garden' ? section(x, titleOf(x), GENERAL[x], 18, false, garden, 6, i % 2 === 0) : section(x, titleOf(x), GENERAL[x], 18)),
      generals.map((g) => [g.url('/'), g.siteName])));
  }
  for (const i of range(20)) {
    const s = get(`general-${i}`);
    const subject = subjectOf(i);
    const v = GENERAL[subject];
    const mix = subject === 'garden' ? garden : undefined;
    const bridges = subject === 'garden' || subject === 'nature' ? 40 : undefined;
    // The hubs' own text is off the topic; the links to them say a little of what they list.
    const hub: [string, string][] = i === 7 ? [['/links', 'Useful links: allotments, seed swaps and local beekeepers']]
      : i === 11 ? [['/noticeboard', 'Community noticeboard: walks, talks and an apiary open day']] : [];
    pages.push(...buildSite(s, s.siteName, { vocabulary: v, onTopic: false },
      [section('latest', 'Latest', v, 40, false, mix, bridges), section('features', 'Features', v, 40, false, mix, bridges), section('archive', 'Archive', v, 40, false, mix, bridges)], hub));
  }
  const topicSections = () => [section('start', 'Getting started', TOPIC, 10, true), section('hives', 'Hive management', TOPIC, 10, true),
    section('health', 'Bee health', TOPIC, 10, true), section('honey', 'Honey and harvest', TOPIC, 10, true)];
  for (const i of range(6)) {
    const s = get(`topic-${i}`);
    const aside = ['about', 'contact', 'shop', 'privacy', 'events'];
    pages.push(...buildSite(s, siteName(s.name, ['bee', 'hive', 'apiary', 'honey'], 'Beekeepers'), { vocabulary: TOPIC, onTopic: true }, topicSections(),
      aside.map((p) => [`/${p}`, titleOf(p)])));
    for (const [k, p] of aside.entries()) {
      const v = GENERAL[['news', 'news', 'money', 'tech', 'culture'][k]];
      s.page(`/${p}`, { title: `${titleOf(p)} · ${s.siteName}`, paragraphs: pagesText(`${s.name}/${p}`, v) });
      pages.push({ site: s, path: `/${p}`, title: p, onTopic: false });
    }
  }
  const members = get('topic-6');
  members.robots = { status: 200, body: 'User-agent: *\nDisallow: /members/\n' };
  for (const k of range(5)) {
    members.page(`/members/notes-${k}`, { title: `Members' notes ${k}`, paragraphs: pagesText(`members/${k}`, TOPIC), disallowed: true });
    addLink(pages.find((p) => p.site === members && p.path === '/')!, members.url(`/members/notes-${k}`), `Members' hive notes ${k}`);
  }
  for (const i of range(3)) {
    const s = get(`mixed-${i}`);
    pages.push(...buildSite(s, siteName(s.name, GENERAL.news, 'Gazette'), { vocabulary: GENERAL.news, onTopic: false },
      [section('news', 'News', GENERAL.news, 25), section('sport', 'Sport', GENERAL.sport, 25), section('nature', 'Nature', GENERAL.nature, 25),
        section('bees', 'Bee diary', TOPIC, 10, true), section('money', 'Money', GENERAL.money, 25)]));
  }
  for (const i of [1, 2]) {
    const s = get(`hidden-${i}`);
    pages.push(...buildSite(s, siteName(s.name, ['apiary', 'hive', 'honey'], 'Apiary'), { vocabulary: TOPIC, onTopic: true },
      [section('diary', 'Apiary diary', TOPIC, 19, true)]));
  }
  for (const d of DECOY_NAMES) {
    const s = get(`decoy-${d}`);
    const v = DECOYS[d];
    const sense = { extra: DECOY_SENSES[d].words, share: DECOY_SENSES[d].share };
    pages.push(...buildSite(s, siteName(s.name, v, 'Club'), { vocabulary: v, onTopic: false },
      [section('stories', 'Stories', v, 40, false, sense), section('guides', 'Guides', v, 40, false, sense)]));
  }
  addCrossLinks(pages, subjectOf);
  addHubs(get, pages);

  const seeds = range(5).map((i) => get(`portal-${i}`).url('/'));
  const base = computeExpected(sites, seeds);
  const reachable = reachablePages(sites, seeds);
  const onTopic = pages.filter((p) => p.onTopic && reachable.has(p.site.url(p.path))).map((p) => p.site.url(p.path)).sort();
  const examples = range(6).map((k) => pagesText(`example-${k}`, TOPIC).join('\n\n'));
  return {
    hosts: sites,
    seeds,
    expected: { ...base, mustFetch: seeds, exactDuplicates: [], nearDuplicates: [], distinctPages: [], sessionTrapPages: [] },
    endpoints: {},
    topic: { onTopic, pages: reachable.size, examples },
  };
}

/** Vocabulary of a portal's home page: neutral words only. */
const FILLER_HOME = [...GENERAL.news, ...GENERAL.culture];

function titleOf(name: string): string {
  return name[0].toUpperCase() + name.slice(1);
}

function pagesText(seed: string, v: readonly string[]): string[] {
  return pageText(seed, v, 260);
}

/** Related-reading links between sites, chosen by subject. */
function addCrossLinks(pages: TopicPage[], subjectOf: (i: number) => string): void {
  const rng = new Rng('topic-cross-links');
  const articles = (host: string, section?: string) => pages.filter((p) => p.site.name === host && p.path.split('/').length === 3 && (!section || p.path.startsWith(`/${section}/`)));
  const generalOf = (subject: string) => range(20).filter((i) => subjectOf(i) === subject).map((i) => `general-${i}`);
  const pick = <T>(list: T[]) => list[rng.int(list.length)];
  const to = (from: TopicPage, target: TopicPage) => addLink(from, target.site.url(target.path), target.title);
  const topicArticles = range(6).flatMap((i) => articles(`topic-${i}`));
  const decoyFor: Record<string, string> = { food: 'honeyfood', culture: 'spelling', news: 'royal', tech: 'swarm' };
  for (const i of range(5)) {
    for (const x of PORTAL_SECTIONS) {
      const list = articles(`portal-${i}`, x);
      list.forEach((p, k) => {
        to(p, pick(articles(pick(generalOf(x)))));
        if (k % 2 === 0) to(p, pick(articles(pick(generalOf(pick(GENERAL_SUBJECTS))))));
        if (p.bridge) to(p, pick(topicArticles));
        if (decoyFor[x] && k % 9 === 4) to(p, pick(articles(`decoy-${decoyFor[x]}`)));
        if (x === 'news' && k % 9 === 7) to(p, pick(articles(`mixed-${1 + rng.int(3)}`)));
      });
    }
  }
  for (const i of range(20)) {
    const subject = subjectOf(i);
    articles(`general-${i}`).forEach((p, k) => {
      if (k % 3 === 0) to(p, pick(articles(pick(range(20).map((j) => `general-${j}`)))));
      if (k % 10 === 0) to(p, pick(articles(`portal-${1 + rng.int(5)}`)));
      if (p.bridge) to(p, pick(topicArticles));
      if (subject === 'news' && k % 30 === 11) to(p, pick(articles(`mixed-${1 + rng.int(3)}`)));
    });
  }
  for (const i of range(3)) {
    for (const p of articles(`mixed-${i}`, 'bees')) to(p, pick(topicArticles));
  }
  for (const p of topicArticles) {
    if (rng.next() < 0.5) to(p, pick(topicArticles.filter((q) => q.site !== p.site)));
    if (rng.next() < 0.15) to(p, pick([...articles('decoy-honeyfood'), ...articles(pick(generalOf('garden')))]));
  }
  for (const d of DECOY_NAMES) {
    articles(`decoy-${d}`).forEach((p, k) => {
      if (k % 4 === 0) to(p, pick(articles(pick(range(20).map((j) => `general-${j}`)))));
    });
  }
}

/** Off-topic pages that are the only way to the hidden topic sites. */
function addHubs(get: (name: string) => Site, pages: TopicPage[]): void {
  for (const [hubHost, path, title, hidden] of [['general-7', '/links', 'Useful links', 'hidden-1'], ['general-11', '/noticeboard', 'Community noticeboard', 'hidden-2']] as const) {
    const s = get(hubHost);
    const targets = pages.filter((p) => p.site.name === hidden).slice(0, 8);
    s.page(path, { title: `${title} · ${s.siteName}`, paragraphs: pagesText(`${hubHost}${path}`, GENERAL.garden) },
      (a) => targets.map((t) => a(t.site.url(t.path), t.title)));
    pages.push({ site: s, path, title, onTopic: false });
  }
}

/** Every page URL a crawler can reach from the seeds through links, robots.txt obeyed. */
function reachablePages(sites: Site[], seeds: string[]): Set<string> {
  const byOrigin = new Map(sites.map((s) => [s.origin, s]));
  const seen = new Set<string>();
  const queue = [...seeds];
  for (let i = 0; i < queue.length; i++) {
    const url = queue[i];
    if (seen.has(url)) continue;
    const u = new URL(url);
    const page = byOrigin.get(u.origin)?.pages.get(u.pathname);
    if (!page || page.disallowed) continue;
    seen.add(url);
    for (const l of page.links) if (l.to !== null && !l.nofollow && !seen.has(l.to)) queue.push(l.to);
  }
  return seen;
}
