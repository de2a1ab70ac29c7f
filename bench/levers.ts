// The levers table: bench/levers.json records, for every lever tried, one figure measured before and
// after it on the same machine in the same session (paired runs, back to back). The lead fills it; the
// bench renders it under its results. An entry that does not say what, before, after and when is shown
// as invalid, with why, rather than dropped.
import { existsSync, readFileSync } from 'node:fs';

export interface Lever {
  /** What was changed, e.g. "parse: one worker per core instead of two". */
  lever: string;
  /** The figure it moves, as the bench names it, e.g. "embedded pages/s". */
  figure: string;
  /** Whether a higher or a lower value is better (default higher). */
  better?: 'higher' | 'lower';
  before: number;
  after: number;
  /** Where and when both were measured: date, machine, commits (same session, same machine). */
  session: string;
  note?: string;
}

export interface LeversFile {
  levers: Lever[];
  /** Entries that could not be read, with why. */
  invalid: string[];
}

function check(entry: unknown, i: number): Lever | string {
  if (typeof entry !== 'object' || entry === null) return `entry ${i}: not an object`;
  const e = entry as Record<string, unknown>;
  const missing = ['lever', 'figure', 'session'].filter((k) => typeof e[k] !== 'string' || (e[k] as string).trim() === '');
  if (missing.length) return `entry ${i}: ${missing.join(', ')} must be non-empty text`;
  for (const k of ['before', 'after']) if (typeof e[k] !== 'number' || !Number.isFinite(e[k])) return `entry ${i} (${String(e.lever)}): ${k} must be a number`;
  if (e.better !== undefined && e.better !== 'higher' && e.better !== 'lower') return `entry ${i} (${String(e.lever)}): better must be "higher" or "lower"`;
  if (e.note !== undefined && typeof e.note !== 'string') return `entry ${i} (${String(e.lever)}): note must be text`;
  return e as unknown as Lever;
}

export function readLevers(file: string): LeversFile {
  if (!existsSync(file)) return { levers: [], invalid: [`${file} does not exist`] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return { levers: [], invalid: [`${file} is not JSON: ${(err as Error).message}`] };
  }
  const list = (parsed as { levers?: unknown }).levers;
  if (!Array.isArray(list)) return { levers: [], invalid: [`${file} has no "levers" array`] };
  const out: LeversFile = { levers: [], invalid: [] };
  list.forEach((entry, i) => {
    const r = check(entry, i);
    if (typeof r === 'string') out.invalid.push(r);
    else out.levers.push(r);
  });
  return out;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderLevers(f: LeversFile): string[] {
  const out = ['## Levers (paired before/after runs, same machine, same session: bench/levers.json)', ''];
  if (f.levers.length === 0) out.push('No lever recorded yet.', '');
  else {
    out.push('| lever | figure | before | after | change | | session | note |', '|---|---|---:|---:|---:|:-:|---|---|');
    for (const l of f.levers) {
      const change = l.before !== 0 ? `${l.after >= l.before ? '+' : ''}${(((l.after - l.before) / Math.abs(l.before)) * 100).toFixed(1)} %` : '—';
      const better = (l.better ?? 'higher') === 'higher' ? l.after > l.before : l.after < l.before;
      out.push(`| ${cell(l.lever)} | ${cell(l.figure)} | ${l.before} | ${l.after} | ${change} | ${l.after === l.before ? '=' : better ? '✓' : '✗'} | ${cell(l.session)} | ${cell(l.note ?? '')} |`);
    }
    out.push('');
  }
  for (const why of f.invalid) out.push(`- INVALID lever entry: ${why}`);
  if (f.invalid.length) out.push('');
  return out;
}
