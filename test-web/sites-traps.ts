// Crawler traps: unbounded URL spaces generated on demand. Only the session trap collapses under
// canonicalization; the calendar and the deep paths must be cut by depth, page budget or repeated-segment limits.
import type { ServerResponse } from 'node:http';
import { type Link, renderPage, resolveLink } from './html.js';
import { send, type Site } from './site.js';
import type { SiteLookup } from './sites-plain.js';
import { articleParagraphs, hashString, Rng } from './text.js';

export const SESSION_TRAP_PATHS = ['/', '/item/1', '/item/2', '/item/3', '/item/4'];

function servePage(s: Site, res: ServerResponse, path: string, title: string, hrefs: Array<[string, string]>): void {
  const base = s.url(path);
  const links: Link[] = hrefs.map(([href, text]) => ({ href, text, to: resolveLink(href, base) }));
  const paragraphs = articleParagraphs(`${s.name}:${path}`, 60);
  send(res, 200, 'text/html; charset=utf-8', renderPage({ siteName: s.siteName, title, paragraphs, links }));
}

function calendar(s: Site): void {
  s.siteName = 'Endless calendar';
  s.page('/', { title: 'Endless calendar', paragraphs: articleParagraphs('calendar', 60) }, (a) => [
    a('/calendar/2025/01', 'January 2025'),
  ]);
  s.dynamic = (_req, res, key) => {
    const m = /^\/calendar\/(\d{4,6})\/(\d{2})$/.exec(key);
    const month = m ? Number(m[2]) : 0;
    if (!m || month < 1 || month > 12) return false;
    const index = Number(m[1]) * 12 + month - 1;
    const at = (i: number) => `/calendar/${String(Math.floor(i / 12)).padStart(4, '0')}/${String((i % 12) + 1).padStart(2, '0')}`;
    const links: Array<[string, string]> = [[at(index + 1), 'Next month'], ['/', 'Calendar home']];
    if (index > 12) links.unshift([at(index - 1), 'Previous month']);
    servePage(s, res, key, `Calendar ${m[1]}-${m[2]}`, links);
    return true;
  };
}

function sessions(s: Site): void {
  s.siteName = 'Session shop';
  let served = 0;
  const seed = hashString(s.name);
  s.dynamic = (_req, res, key) => {
    if (!SESSION_TRAP_PATHS.includes(key)) return false;
    // A fresh id per response (deterministic in the order of requests), like a server that tracks visitors.
    const rng = new Rng(seed ^ ++served);
    const links: Array<[string, string]> = [[`${key}?sid=${rng.hex(16)}`, 'This page']];
    for (const p of SESSION_TRAP_PATHS) {
      links.push([`${p};jsessionid=${rng.hex(24).toUpperCase()}`, `Go to ${p}`]);
      links.push([`${p}?sid=${rng.hex(16)}`, `Go to ${p} (sid)`]);
    }
    servePage(s, res, key, `Session shop ${key}`, links);
    return true;
  };
}

function deepPaths(s: Site): void {
  s.siteName = 'Deep paths';
  s.page('/', { title: 'Deep paths', paragraphs: articleParagraphs('deep', 60) }, (a) => [
    a('/a/', 'Alternating'),
    a('/deep/1/', 'Counting'),
  ]);
  s.dynamic = (_req, res, key) => {
    if (/^(\/[ab])+\/$/.test(key)) {
      const next = key.endsWith('/a/') ? 'b/' : 'a/';
      servePage(s, res, key, `Path ${key}`, [[next, 'Deeper'], ['../', 'Up']]);
      return true;
    }
    const m = /^\/deep(?:\/\d+)*\/(\d+)\/$/.exec(key);
    if (m) {
      servePage(s, res, key, `Depth ${m[1]}`, [[`${Number(m[1]) + 1}/`, 'Deeper'], ['./', 'Here']]);
      return true;
    }
    return false;
  };
}

export function buildTrapSites(get: SiteLookup): void {
  for (const [name, build] of [['trap-calendar', calendar], ['trap-session', sessions], ['trap-deep', deepPaths]] as const) {
    const s = get(name);
    s.trap = true;
    s.seed = true;
    build(s);
  }
}
