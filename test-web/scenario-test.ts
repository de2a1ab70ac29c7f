// The 'test' scenario: 23 hosts, one behaviour each. Addresses are consecutive from the first address
// (default 127.10.0.1), in this order:
//   +0..+5    plain-1 … plain-6          interlinked small sites (plain-1 is the only plain seed)
//   +6..+12   robots-404, robots-403, robots-503, robots-redirect, robots-token, robots-match, robots-delay
//   +13..+15  trap-calendar, trap-session, trap-deep
//   +16..+18  news-a, news-b, news-c     exact / near duplicates and distinct articles, one template
//   +19..+22  hostile-a (hang), hostile-b (trickle, 429, redirects, windows-1252),
//             hostile-c (500, 20 MB, gzip bombs, binary), hostile-d (malformed HTML, bad links, flaky)
// Seeds: plain-1's root and the root of every non-plain host; plain-2 … plain-6 are found through links.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { computeExpected } from './expected.js';
import { Site } from './site.js';
import { buildHostileSites } from './sites-hostile.js';
import { buildNewsSites } from './sites-news.js';
import { buildPlainSites, PLAIN_HOSTS } from './sites-plain.js';
import { buildRobotsSites } from './sites-robots.js';
import { buildTrapSites, SESSION_TRAP_PATHS } from './sites-traps.js';
import type { ExpectedOutcomes } from './types.js';

export interface HostHandler {
  name: string;
  address: string;
  origin: string;
  crawlDelayMs?: number;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

export interface BuiltScenario {
  hosts: HostHandler[];
  seeds: string[];
  expected: ExpectedOutcomes;
  endpoints: Record<string, string>;
}

export const TEST_HOST_NAMES: readonly string[] = [
  ...Array.from({ length: PLAIN_HOSTS }, (_, i) => `plain-${i + 1}`),
  'robots-404',
  'robots-403',
  'robots-503',
  'robots-redirect',
  'robots-token',
  'robots-match',
  'robots-delay',
  'trap-calendar',
  'trap-session',
  'trap-deep',
  'news-a',
  'news-b',
  'news-c',
  'hostile-a',
  'hostile-b',
  'hostile-c',
  'hostile-d',
];

/** Creates one Site per name and returns a lookup that fails loudly on a typo. */
export function makeSites(names: readonly string[], addresses: string[], port: number) {
  const sites = names.map((n, i) => new Site(n, addresses[i], port));
  const byName = new Map(sites.map((s) => [s.name, s]));
  const get = (name: string): Site => {
    const s = byName.get(name);
    if (!s) throw new Error(`unknown synthetic host ${name}`);
    return s;
  };
  return { sites, get };
}

export function buildTestScenario(addresses: string[], port: number): BuiltScenario {
  const { sites, get } = makeSites(TEST_HOST_NAMES, addresses, port);
  buildPlainSites(get);
  buildRobotsSites(get);
  buildTrapSites(get);
  const duplicates = buildNewsSites(get);
  const endpoints = buildHostileSites(get);
  get('plain-1').seed = true;
  const seeds = sites.filter((s) => s.seed).map((s) => s.url('/'));
  const expected: ExpectedOutcomes = {
    ...computeExpected(sites, seeds),
    ...duplicates,
    sessionTrapPages: SESSION_TRAP_PATHS.map((p) => get('trap-session').url(p)),
  };
  return { hosts: sites, seeds, expected, endpoints };
}
