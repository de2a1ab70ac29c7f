// Hostile endpoints, spread over four hosts so that a crawler stuck on one (a hang, a trickle) still makes
// progress on the others, and so that the failures of one (the hang, the 500s, the flaky page) do not
// add up into one host's backoff: on one host they made every crawl of the scenario wait ~20 s for it. Error, redirect and size endpoints are `unlisted` (in neither expected list);
// odd-but-valid pages (binary, malformed, windows-1252, bad links) are ordinary pages a crawl must fetch.
import {
  BAD_HREFS,
  BIG_BODY_BYTES,
  badLinksHtml,
  bigBody,
  longBadUrl,
  MALFORMED_HTML,
  pngImage,
  randomBytes,
  trickle,
  windows1252Page,
} from './hostile-bodies.js';
import { gzipBomb, nestedGzipBomb } from './gzip-bomb.js';
import type { Link } from './html.js';
import { type Handler, type LinkMaker, type PageSpec, send, type Site } from './site.js';
import type { SiteLookup } from './sites-plain.js';
import { articleParagraphs } from './text.js';

const HTML = 'text/html; charset=utf-8';

type Adder = (path: string, spec?: Partial<PageSpec>, links?: (a: LinkMaker) => Link[]) => void;

function setup(s: Site, title: string): Adder {
  s.seed = true;
  s.siteName = title;
  const text = (p: string) => articleParagraphs(`${s.name}${p}`, 80);
  return (path, spec = {}, links) => {
    const templated = spec.serve === undefined && spec.redirect === undefined;
    const full = { title: `${title}: ${path}`, paragraphs: templated ? text(path) : undefined, ...spec };
    s.page(path, full, links, templated);
  };
}

function root(s: Site, paths: string[]): void {
  s.page('/', { title: `${s.siteName} home`, paragraphs: articleParagraphs(`${s.name}/`, 80) }, (a) =>
    paths.map((p) => a(p, `Try ${p}`)),
  );
}

/** Per-URL failure counter: the first `failures` requests get `fail`, later ones the normal page. */
function failingFirst(failures: number, fail: Handler, succeed: Handler): Handler {
  let seen = 0;
  return (req, res) => (++seen <= failures ? fail(req, res) : succeed(req, res));
}

const okPage =
  (title: string): Handler =>
  (_req, res) =>
    send(res, 200, HTML, `<!doctype html><html><head><title>${title}</title></head><body><p>Recovered.</p></body></html>\n`);

export function buildHostileSites(get: SiteLookup): Record<string, string> {
  const [a, b, c, d] = ['hostile-a', 'hostile-b', 'hostile-c', 'hostile-d'].map(get);

  const addA = setup(a, 'Hostile A');
  addA('/ok');
  addA('/hang', { unlisted: true, serve: () => {} });
  root(a, ['/ok', '/hang']);

  const addB = setup(b, 'Hostile B');
  addB('/ok');
  addB('/trickle', { unlisted: true, serve: trickle });
  const tooMany: Handler = (_q, res) => send(res, 429, HTML, '<title>Slow down</title>\n', { 'retry-after': '2' });
  addB('/retry-after', { unlisted: true, serve: failingFirst(1, tooMany, okPage('Retry-After honoured')) });
  addB('/redirect/hop1', { unlisted: true, redirect: { status: 301, location: b.url('/redirect/hop2') } });
  addB('/redirect/hop2', { unlisted: true, redirect: { status: 302, location: '/redirect/hop3' } });
  addB('/redirect/hop3', { unlisted: true, redirect: { status: 307, location: 'final' } });
  addB('/redirect/final', {});
  addB('/loop/a', { unlisted: true, redirect: { status: 302, location: '/loop/b' } });
  addB('/loop/b', { unlisted: true, redirect: { status: 302, location: '/loop/a' } });
  for (let i = 1; i <= 7; i++) addB(`/long/${i}`, { unlisted: true, redirect: { status: 302, location: `/long/${i + 1}` } });
  addB('/long/8', {});
  const cp1252 = windows1252Page();
  addB('/charset/windows-1252', { serve: (_q, res) => send(res, 200, 'text/html', cp1252) }, (l) => [l('/charset/next')]);
  addB('/charset/next', {});
  root(b, ['/ok', '/trickle', '/retry-after', '/redirect/hop1', '/loop/a', '/long/1', '/charset/windows-1252']);

  const addC = setup(c, 'Hostile C');
  addC('/ok');
  addC('/error/500', { unlisted: true, serve: (_q, res) => send(res, 500, HTML, '<title>Server error</title>\n') });
  addC('/big/20mb', { unlisted: true, serve: bigBody(BIG_BODY_BYTES) });
  addC('/bomb/gzip', {
    unlisted: true,
    serve: (_q, res) => send(res, 200, HTML, gzipBomb(), { 'content-encoding': 'gzip' }),
  });
  addC('/bomb/nested', {
    unlisted: true,
    serve: (_q, res) => send(res, 200, HTML, nestedGzipBomb(), { 'content-encoding': 'gzip, gzip' }),
  });
  const blob = randomBytes('blob', 64 * 1024);
  addC('/binary/blob', { serve: (_q, res) => send(res, 200, 'application/octet-stream', blob) });
  const png = pngImage();
  addC('/binary/png-as-html', { serve: (_q, res) => send(res, 200, 'text/html', png) });
  root(c, ['/ok', '/error/500', '/big/20mb', '/bomb/gzip', '/bomb/nested', '/binary/blob', '/binary/png-as-html']);

  const addD = setup(d, 'Hostile D');
  // The model lists what an HTML5 parser finds; the commented-out link is not among them.
  addD('/malformed', { serve: (_q, res) => send(res, 200, HTML, MALFORMED_HTML) }, (l) => [
    l('/malformed/target-1'),
    l('/malformed/target-2'),
    l('malformed/target-3'),
  ]);
  for (const t of ['target-1', 'target-2', 'target-3', 'in-comment']) addD(`/malformed/${t}`);
  const badLinks = badLinksHtml(d.origin);
  // Only the two spellings of /bad-links/ok certainly yield a fetch; how the rest fail is the crawler's choice.
  addD('/bad-links', { serve: (_q, res) => send(res, 200, HTML, badLinks) }, (l) =>
    BAD_HREFS(d.origin).map((h) => (h.trim() === '/bad-links/ok' ? l(h) : l(h, 'bad link', { to: null }))),
  );
  addD('/bad-links/ok');
  const fail500: Handler = (_q, res) => send(res, 500, HTML, '<title>Try again</title>\n');
  addD('/flaky', { unlisted: true, serve: failingFirst(2, fail500, okPage('Flaky, now fine')) });
  root(d, ['/malformed', '/bad-links', '/flaky']);
  return {
    hang: a.url('/hang'),
    error500: c.url('/error/500'),
    flaky: d.url('/flaky'),
    trickle: b.url('/trickle'),
    retryAfter: b.url('/retry-after'),
    redirectChain: b.url('/redirect/hop1'),
    redirectFinal: b.url('/redirect/final'),
    redirectLoop: b.url('/loop/a'),
    longRedirectChain: b.url('/long/1'),
    longRedirectFinal: b.url('/long/8'),
    windows1252: b.url('/charset/windows-1252'),
    bigBody: c.url('/big/20mb'),
    gzipBomb: c.url('/bomb/gzip'),
    nestedGzipBomb: c.url('/bomb/nested'),
    binaryBlob: c.url('/binary/blob'),
    pngAsHtml: c.url('/binary/png-as-html'),
    malformed: d.url('/malformed'),
    malformedInComment: d.url('/malformed/in-comment'),
    badLinks: d.url('/bad-links'),
    longUrl: longBadUrl(d.origin),
  };
}
