// Micro-benchmark for robots.txt decisions: parse time and microseconds per link through
// parseRobotsTxt(...).isAllowed(url), the path the scheduler takes for every extracted link.
// Files: 37,000 short wildcard rules (issue 14: a 5,000-link page stalled the event loop ~8 s),
// an ordinary 20-rule file, and a hostile 500 KiB file of patterns made of thousands of '*'.
// Run: npx tsc -p tsconfig.json && node dist/robots/robots-policy.bench.js
import { pathToFileURL } from 'node:url';
import { parseRobotsTxt } from './robots-policy.js';
import { manyWildcardRules, pageLinks, TYPICAL_ROBOTS } from './sample-robots.js';

const ROBOTS_URL = 'http://shop.test/robots.txt';

export interface RobotsBenchRow {
  file: string;
  bodyKiB: number;
  /** The first parse in the process (code not yet optimized) and the best of five. */
  firstParseMs: number;
  bestParseMs: number;
  links: number;
  /** Best and mean over the rounds: the best is what the code costs, the mean what a noisy machine adds. */
  bestMicrosPerLink: number;
  meanMicrosPerLink: number;
  disallowed: number;
}

function hostileBody(): string {
  const lines = ['User-agent: *'];
  let size = 0;
  // Each pattern forces a greedy matcher through many pieces before it fails on the last one.
  for (let i = 0; size < 500 * 1024 - 20_000; i++) {
    const line = 'Disallow: /' + '*a'.repeat(2000 + i) + '*b' + i;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n') + '\n';
}

const round2 = (x: number) => Math.round(x * 100) / 100;

function measure(file: string, body: string, links: string[], rounds: number): RobotsBenchRow {
  const parses: number[] = [];
  let policy = parseRobotsTxt('', ROBOTS_URL, 'crawlstream');
  for (let i = 0; i < 5; i++) {
    const start = process.hrtime.bigint();
    policy = parseRobotsTxt(body, ROBOTS_URL, 'crawlstream');
    parses.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  for (const url of links.slice(0, 500)) policy.isAllowed(url); // warm-up
  let disallowed = 0;
  const perLink: number[] = [];
  for (let r = 0; r < rounds; r++) {
    disallowed = 0;
    const start = process.hrtime.bigint();
    for (const url of links) if (!policy.isAllowed(url)) disallowed++;
    perLink.push(Number(process.hrtime.bigint() - start) / links.length / 1000);
  }
  return {
    file,
    bodyKiB: Math.round(Buffer.byteLength(body) / 1024),
    firstParseMs: Math.round(parses[0] * 10) / 10,
    bestParseMs: Math.round(Math.min(...parses) * 10) / 10,
    links: links.length,
    bestMicrosPerLink: round2(Math.min(...perLink)),
    meanMicrosPerLink: round2(perLink.reduce((a, b) => a + b, 0) / perLink.length),
    disallowed,
  };
}

export function benchRobots(): RobotsBenchRow[] {
  const links = pageLinks('http://shop.test', 5000);
  // Long runs of 'a' let every hostile pattern get thousands of pieces deep before it fails.
  const hostileLinks = Array.from({ length: 200 }, (_, i) => `http://shop.test/${'a'.repeat(1500 + i)}b`);
  return [
    measure('37,000 wildcard rules', manyWildcardRules(37_000), links, 5),
    measure('typical 20 rules', TYPICAL_ROBOTS, links, 20),
    measure('hostile *a*a… patterns', hostileBody(), hostileLinks, 3),
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of benchRobots()) {
    console.log(`${row.file.padEnd(24)} ${String(row.bodyKiB).padStart(4)} KiB  parse first ${String(row.firstParseMs).padStart(6)} ms, `
      + `best ${String(row.bestParseMs).padStart(6)} ms  µs/link best ${String(row.bestMicrosPerLink).padStart(8)}, `
      + `mean ${String(row.meanMicrosPerLink).padStart(8)} over ${row.links} links (${row.disallowed} disallowed)`);
  }
}
