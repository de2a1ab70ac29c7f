// For tests: scrapes a /metrics endpoint and parses it with Python's prometheus_client
// (metrics/parse-metrics.py), a reader independent of the code that wrote the text.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pythonTools, REPO_ROOT, run } from '../../warc/python-tools.js';

export interface Sample { name: string; labels: Record<string, string>; value: number }

const tools = pythonTools();
/** Why the Python reader is missing (tests skip with this reason), or false when it is there. */
export const noPrometheusReader: string | false = typeof tools === 'string' ? tools : false;

export async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  if (typeof tools === 'string') throw new Error(tools);
  const r = await run(tools.python, [join(REPO_ROOT, 'metrics', 'parse-metrics.py')], text);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { samples: Sample[] }[]).flatMap((f) => f.samples);
}
