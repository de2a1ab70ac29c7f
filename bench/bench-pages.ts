// The pages of the bench web, rendered once before the server listens so that serving one costs only a
// lookup and a write. Two kinds:
// - 'bench': exactly the pages of test-web's bench scenario (scenario-bench.ts renders them; the same
//   web the earlier benchmark results were measured on): ~18 KB, 25 links, text from a large pool.
// - 'template-heavy': the same link structure, but every page's text is drawn from one small vocabulary
//   under one shared template, as on sites where a template outweighs each page's own content. Such
//   pages all resemble one another, which is what the near-duplicate stage has to cope with.
import { buildBenchScenario, DEFAULT_BENCH } from '../test-web/scenario-bench.js';
import { Rng } from '../test-web/text.js';

export type WebKind = 'bench' | 'template-heavy';

export interface PageSet<T> {
  /** pages[host][n] is page n of host (path '/' for 0, '/p/n' otherwise), as `wrap` made it. */
  pages: T[][];
  /** Bytes of all page bodies. */
  totalBytes: number;
}

const FANOUT = 8;
const CROSS_HOST_LINKS = 2;

/** The small vocabulary of the template-heavy web: what a shop or forum template repeats on every page. */
const VOCABULARY = (
  'home products catalog account login cart checkout shipping returns contact support help search menu ' +
  'category price sale offer delivery order customer service privacy terms cookies newsletter subscribe ' +
  'reviews rating stock available color size brand quality warranty payment secure gift store'
).split(' ');

export const pagePath = (n: number) => (n === 0 ? '/' : `/p/${n}`);

/** Links of page n of host `index`: its tree children, random pages of its host, two pages elsewhere. */
function links(rng: Rng, index: number, n: number, hosts: number, pagesPerHost: number, origins: string[]): string[] {
  const hrefs: string[] = [];
  for (let c = n * FANOUT + 1; c <= n * FANOUT + FANOUT && c < pagesPerHost; c++) hrefs.push(pagePath(c));
  const cross = hosts > 1 ? CROSS_HOST_LINKS : 0;
  while (hrefs.length < DEFAULT_BENCH.linksPerPage - cross) hrefs.push(pagePath(rng.int(pagesPerHost)));
  for (let i = 0; i < cross; i++) hrefs.push(origins[(index + 1 + rng.int(hosts - 1)) % hosts] + pagePath(rng.int(pagesPerHost)));
  return hrefs;
}

export function renderTemplateHeavy(index: number, n: number, hosts: number, pagesPerHost: number, origins: string[]): string {
  const rng = new Rng((Math.imul(index + 1, 0x85ebca6b) ^ n) >>> 0);
  const title = `Store ${index} item ${n}`;
  const nav = VOCABULARY.slice(0, 12).map((w) => `<span class="nav">${w}</span>`).join(' ');
  let html = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>\n` +
    `<body><header>${nav}</header><h1>${title}</h1>\n<ul>` +
    links(rng, index, n, hosts, pagesPerHost, origins).map((h, i) => `<li><a href="${h}">item ${i}</a></li>`).join('') + '</ul>\n';
  const footer = `<footer>${VOCABULARY.slice(-12).join(' ')}</footer></body></html>\n`;
  const target = DEFAULT_BENCH.pageBytes - footer.length;
  while (html.length < target - 200) {
    const words: string[] = [];
    for (let w = 0; w < 24; w++) words.push(rng.pick(VOCABULARY));
    html += `<p>${words.join(' ')}.</p>\n`;
  }
  return html + footer;
}

/** Every page of the web, each handed to `wrap` as soon as it is rendered (so only the wrapped form is kept). */
export function renderPages<T = Buffer>(kind: WebKind, origins: string[], pagesPerHost: number, wrap: (body: Buffer) => T = (b) => b as T): PageSet<T> {
  const hosts = origins.length;
  let render: (h: number, n: number) => string;
  if (kind === 'bench') {
    // The scenario's hosts render their pages with render(n); reusing it keeps this web identical to test-web's.
    const addresses = origins.map((o) => new URL(o).hostname);
    const port = Number(new URL(origins[0]).port);
    const built = buildBenchScenario(addresses, port, { ...DEFAULT_BENCH, hosts, pagesPerHost });
    const renderers = built.hosts.map((host) => {
      const fn = (host as unknown as { render?: (n: number) => string }).render;
      if (typeof fn !== 'function') throw new Error('test-web/scenario-bench.ts no longer exposes render(n) on its hosts');
      return (n: number) => fn.call(host, n);
    });
    render = (h, n) => renderers[h](n);
  } else {
    render = (h, n) => renderTemplateHeavy(h, n, hosts, pagesPerHost, origins);
  }
  let totalBytes = 0;
  // test-web's scenario writes its cross-host links as http://; over HTTPS they name the same origins.
  const https = origins[0]?.startsWith('https://') ?? false;
  const pages = Array.from({ length: hosts }, (_, h) => Array.from({ length: pagesPerHost }, (_, n) => {
    const html = render(h, n);
    const body = Buffer.from(https ? html.replaceAll('href="http://', 'href="https://') : html);
    totalBytes += body.length;
    return wrap(body);
  }));
  return { pages, totalBytes };
}
