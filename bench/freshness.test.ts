// The continuous-crawl bench judges what the server saw: refetches by kind of page, stories found among
// those listed long enough before the end, politeness; and its report marks the Kafka run's targets.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SyntheticWeb, WebRequest } from '../test-web/synthetic-web.js';
import { judge } from './freshness.js';
import { freshnessSection } from './freshness-report.js';

const PAGES = '127.40.0.1:8000';
const NEWS = '127.40.0.2:8000';

function web(requests: WebRequest[]): Pick<SyntheticWeb, 'requests' | 'fresh' | 'origin' | 'expected'> {
  return {
    requests,
    fresh: { pages: 1, storyAt: (i: number) => 10_000 + i * 4000, sitemapListed: [], sitemapForeign: '', hubs: [] } as unknown as SyntheticWeb['fresh'],
    origin: (name: string) => `http://${name === 'fresh-pages' ? PAGES : NEWS}`,
    expected: { hostDelayMs: {} } as unknown as SyntheticWeb['expected'],
  };
}

let clock = 0;
/** A request to `host` 300 ms after the one before (above the 200 ms delay), 50 ms long. */
const req = (host: string, path: string, status = 200): WebRequest => {
  clock += 300;
  return { host, path, method: 'GET', userAgent: 'x', startedAt: clock, endedAt: clock + 50, status };
};

test('should count refetches per kind of page, stories listed 20 s before the end, and politeness findings', () => {
  clock = 0;
  const requests = [
    ...Array.from({ length: 7 }, () => req(PAGES, '/always/1')),
    ...Array.from({ length: 3 }, () => req(PAGES, '/never/1', 304)),
    ...Array.from({ length: 2 }, () => req(PAGES, '/sometimes/1')),
    req(NEWS, '/story/0'), req(NEWS, '/story/1'), req(NEWS, '/story/1'), req(NEWS, '/story/3'),
  ];
  // Story i is listed at 10 s + 4 s × i; the run ends at 40 s: stories 0 to 2 were listed by 20 s.
  const run = judge(web(requests), 'kafka', 0, 40_000, 15_000);
  assert.deepEqual(run.refetchesPerPage, { always: 6, sometimes: 1, never: 2 });
  assert.equal(run.changingOverUnchanging, 3);
  assert.deepEqual([run.storiesDue, run.storiesFound], [3, 2]);
  assert.deepEqual(run.notes, ['stories never fetched: 2']);
  assert.deepEqual([run.overlaps, run.shortGaps], [0, 0]);
  const rendered = freshnessSection({ runs: [run] }).join('\n');
  assert.match(rendered, /\| changing ÷ unchanging refetches \| 3 \| ≥ 3 \| ✓ \|/);
  assert.match(rendered, /\| new stories found, of those listed ≥ 20 s before the end \| 2 \/ 3 \| all \| ✗ \|/);
});

test('should report two requests to a host at once, and two closer than the delay', () => {
  const at = (startedAt: number, endedAt: number): WebRequest => ({ host: PAGES, path: '/always/1', method: 'GET', userAgent: 'x', startedAt, endedAt, status: 200 });
  const run = judge(web([at(0, 500), at(100, 150), at(1000, 1010), at(1100, 1110)]), 'embedded', 0, 2000, 1000);
  assert.deepEqual([run.overlaps, run.shortGaps], [1, 2]);
  assert.match(freshnessSection({ runs: [run] }).join('\n'), /\| embedded \|/);
});
