// The 'shared' scenario: shared hosting, many host names on one server. One address (default
// 127.50.0.1) serves SHARED_NAMES virtual hosts by their Host header, each a small site of interlinked
// pages answered after SHARED_PAGE_MS, so that a crawler without a per-address limit would have every
// name's request in flight at once. Crawl it with --resolve NAME=ADDRESS for each name.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { computeExpected } from './expected.js';
import { Site } from './site.js';
import type { BuiltScenario, HostHandler } from './scenario-test.js';
import { articleParagraphs } from './text.js';

export const SHARED_NAMES = 8;
export const SHARED_PAGES = 6;
export const SHARED_PAGE_MS = 40;

export const sharedName = (i: number) => `s${i}.shared.test`;

export function buildSharedScenario(addresses: string[], port: number): BuiltScenario {
  const address = addresses[0];
  const sites = Array.from({ length: SHARED_NAMES }, (_, i) => new Site(sharedName(i + 1), sharedName(i + 1), port));
  for (const s of sites) {
    s.seed = true;
    const paths = Array.from({ length: SHARED_PAGES }, (_, p) => `/p/${p + 1}`);
    s.page('/', { title: `${s.name} home`, paragraphs: articleParagraphs(`${s.name}-home`, 80) }, (a) => paths.map((p) => a(p)), false);
    for (const p of paths) s.page(p, { title: `${s.name} ${p}`, paragraphs: articleParagraphs(`${s.name}${p}`, 120) }, (a) => paths.map((q) => a(q)), false);
  }
  const byName = new Map(sites.map((s) => [`${s.name}:${port}`, s]));
  // One server for every name: the Host header picks the site, after a delay that keeps requests open.
  const server: HostHandler = {
    name: 'shared', address, origin: `http://${address}:${port}`,
    handle(req: IncomingMessage, res: ServerResponse) {
      const site = byName.get(String(req.headers.host ?? '').toLowerCase());
      if (!site) return void res.writeHead(421, { 'content-type': 'text/plain' }).end('no such host here\n');
      setTimeout(() => site.handle(req, res), req.url === '/robots.txt' ? 0 : SHARED_PAGE_MS);
    },
  };
  const seeds = sites.map((s) => s.url('/'));
  return {
    hosts: [server],
    seeds,
    expected: { ...computeExpected(sites, seeds), exactDuplicates: [], nearDuplicates: [], distinctPages: [], sessionTrapPages: [] },
    endpoints: { address },
  };
}
