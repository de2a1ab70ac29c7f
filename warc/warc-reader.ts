// Test helpers: read WARC files with Python's warcio (list-records.py, `warcio check`) from the venv.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pythonTools, REPO_ROOT, run, type PythonTools } from './python-tools.js';
import { SOURCE_HEADER, parseSource, type SourcePosition } from './records.js';

export interface ListedRecord {
  file: string;
  offset: number;
  version: string;
  type: string;
  warc_headers: [string, string][];
  http: { statusline: string; protocol: string; headers: [string, string][] } | null;
  payload_sha1: string;
  payload_length: number;
  payload_text: string;
}

export function header(r: ListedRecord, name: string): string | undefined {
  return r.warc_headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
}

export function source(r: ListedRecord): SourcePosition | undefined {
  return parseSource(header(r, SOURCE_HEADER));
}

export function warcFiles(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.endsWith('.warc.gz')).sort().map((n) => join(dir, n));
}

export async function listRecords(tools: PythonTools, files: string[]): Promise<ListedRecord[]> {
  if (files.length === 0) return [];
  const r = await run(tools.python, [join(REPO_ROOT, 'warc', 'list-records.py'), ...files]);
  if (r.code !== 0) throw new Error(`list-records.py failed (${r.code}): ${r.stderr}`);
  return r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as ListedRecord);
}

/** `warcio check`: every block and payload digest verifies; exits non-zero otherwise. */
export async function warcioCheck(tools: PythonTools, files: string[]): Promise<{ ok: boolean; output: string }> {
  const r = await run(tools.bin('warcio'), ['check', '-v', ...files]);
  return { ok: r.code === 0 && !/digest failed|invalid/i.test(r.stdout), output: r.stdout + r.stderr };
}

export function toolsOrSkip(): PythonTools | { skip: string } {
  const t = pythonTools();
  return typeof t === 'string' ? { skip: t } : t;
}
