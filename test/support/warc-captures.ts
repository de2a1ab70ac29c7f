// Reading a crawl's WARC files back with Python's warcio (an implementation independent of the one
// that wrote them) and lining them up with what the synthetic web's server logged.
import assert from 'node:assert/strict';
import type { WebRequest } from '../../test-web/synthetic-web.js';
import type { PythonTools } from '../../warc/python-tools.js';
import { header, listRecords, source, warcFiles, warcioCheck } from '../../warc/warc-reader.js';

export interface Capture {
  type: 'response' | 'revisit';
  uri: string;
  status: number;
  date: string;
  /** WARC-Payload-Digest as written (for a revisit: the earlier capture's). */
  digest: string;
  truncated: string;
  refersToDate: string;
  /** `topic/partition@offset` of the fetched record it came from. */
  source: string;
  file: string;
}

/** Response and revisit records of every .warc.gz file in `dir`, after `warcio check` passed on them. */
export async function readCaptures(tools: PythonTools, dir: string): Promise<Capture[]> {
  const files = warcFiles(dir);
  assert.ok(files.length > 0, `WARC files in ${dir}`);
  const check = await warcioCheck(tools, files);
  assert.ok(check.ok, `warcio check failed:\n${check.output.slice(-3000)}`);
  const records = await listRecords(tools, files);
  return records.filter((r) => r.type === 'response' || r.type === 'revisit').map((r) => {
    const s = source(r);
    return {
      type: r.type as Capture['type'],
      uri: header(r, 'WARC-Target-URI') ?? '',
      status: Number(/^(\d{3})/.exec(r.http?.statusline ?? '')?.[1] ?? 0),
      date: header(r, 'WARC-Date') ?? '',
      digest: header(r, 'WARC-Payload-Digest') ?? '',
      truncated: header(r, 'WARC-Truncated') ?? '',
      refersToDate: header(r, 'WARC-Refers-To-Date') ?? '',
      source: s ? `${s.topic}/${s.partition}@${s.offset}` : '',
      file: r.file,
    };
  });
}

export function uriOf(r: WebRequest): string {
  return new URL(`http://${r.host}${r.path}`).href;
}

/** `uri status` → how many times, for a multiset comparison. */
export function tally(keys: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return m;
}

export function serverResponses(requests: WebRequest[]): Map<string, number> {
  return tally(requests.filter((r) => r.status > 0).map((r) => `${uriOf(r)} ${r.status}`));
}

export function archived(captures: Capture[]): Map<string, number> {
  return tally(captures.map((c) => `${new URL(c.uri).href} ${c.status}`));
}

/** Keys whose counts differ, as `key: expected → actual`. */
export function differences(expected: Map<string, number>, actual: Map<string, number>): string[] {
  const out: string[] = [];
  for (const k of new Set([...expected.keys(), ...actual.keys()])) {
    if ((expected.get(k) ?? 0) !== (actual.get(k) ?? 0)) out.push(`${k}: ${expected.get(k) ?? 0} → ${actual.get(k) ?? 0}`);
  }
  return out.sort();
}

/** What identifies a capture whoever wrote it: target URI, date and payload digest. */
export function identities(captures: Capture[]): string[] {
  return captures.map((c) => `${c.type} ${c.uri} ${c.date} ${c.digest}`).sort();
}

export function sourcesTwice(captures: Capture[]): string[] {
  return [...tally(captures.map((c) => c.source))].filter(([, n]) => n > 1).map(([s, n]) => `${s} ×${n}`);
}
