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
  parseMs: number;
  links: number;
  microsPerLink: number;
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

function measure(file: string, body: string, links: string[], rounds: number): RobotsBenchRow {
  const parseStart = process.hrtime.bigint();
  const policy = parseRobotsTxt(body, ROBOTS_URL, 'crawlstream');
  const parseMs = Number(process.hrtime.bigint() - parseStart) / 1e6;
  let disallowed = 0;
  for (const url of links.slice(0, 200)) policy.isAllowed(url); // warm-up
  const start = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) {
    for (const url of links) if (!policy.isAllowed(url)) disallowed++;
  }
  const ns = Number(process.hrtime.bigint() - start);
  return {
    file,
    bodyKiB: Math.round(Buffer.byteLength(body) / 1024),
    parseMs: Math.round(parseMs * 10) / 10,
    links: links.length * rounds,
    microsPerLink: Math.round((ns / (links.length * rounds) / 1000) * 100) / 100,
    disallowed: disallowed / rounds,
  };
}

export function benchRobots(): RobotsBenchRow[] {
  const links = pageLinks('http://shop.test', 5000);
  return [
    measure('37,000 wildcard rules', manyWildcardRules(37_000), links, 1),
    measure('typical 20 rules', TYPICAL_ROBOTS, links, 20),
    // Long runs of 'a' let every hostile pattern get thousands of pieces deep before it fails.
    measure('hostile *a*a… patterns', hostileBody(), Array.from({ length: 200 }, (_, i) => `http://shop.test/${'a'.repeat(1500 + i)}b`), 1),
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const row of benchRobots()) {
    console.log(`${row.file.padEnd(26)} ${String(row.bodyKiB).padStart(4)} KiB  parse ${String(row.parseMs).padStart(7)} ms  `
      + `${String(row.microsPerLink).padStart(8)} µs/link over ${row.links} links (${row.disallowed} disallowed)`);
  }
}
