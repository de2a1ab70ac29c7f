// Parts of the crawl's tables that ClickHouse set aside and no query sees any more.
//
// Embedded chdb (26.x) moves a part it cannot read at start (a truncated column file, a bad
// checksum) to the table's detached/ directory as `broken-on-start_<part>` and starts anyway: every
// count comes back smaller, with no error. system.detached_parts lists those parts, so opening a
// connection checks it and says what is missing. ClickHouse 18.16 has no system.detached_parts, and
// it deletes a part it cannot read at start (its error log says "Considering to remove broken part
// … because it's impossible to repair"): nothing in SQL shows the loss, so on such a server the
// check reports that it could not run instead of reporting nothing.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';

export interface DamagedPart {
  table: string;
  /** The part's name before ClickHouse detached it, e.g. all_1_1_0. */
  part: string;
  /** Why ClickHouse detached it: broken-on-start, broken, covered-by-broken, '' when detached by hand, … */
  reason: string;
  /** Rows the part held, when its count.txt can still be read (embedded chdb only). */
  rows?: number;
  bytes?: number;
  /** Where the detached part lies (on the server's file system for a server). */
  path?: string;
}

export interface DamageCheck {
  parts: DamagedPart[];
  /** Why no check was possible; undefined when it ran. */
  unknown?: string;
}

/** Reads the detached parts of `database`; `local` when the part paths are on this machine (chdb). */
export async function checkDamage(client: ClickHouseClient, database: string, opts: { local: boolean; version: string }): Promise<DamageCheck> {
  const columns = new Set((await rows<{ name: string }>(client,
    "SELECT name FROM system.columns WHERE database = 'system' AND table = 'detached_parts'")).map((c) => c.name));
  if (columns.size === 0) {
    return {
      parts: [],
      unknown: `ClickHouse ${opts.version} has no system.detached_parts, so parts it could not read are not visible from SQL ` +
        '(18.16 deletes such a part when it starts and says so only in its error log: look there for "broken part")',
    };
  }
  const extra = ['path', 'bytes_on_disk'].filter((c) => columns.has(c));
  const found = await rows<{ table: string; name: string; reason: string | null; path?: string; bytes_on_disk?: string | number }>(client,
    `SELECT table, name, reason${extra.map((c) => `, ${c}`).join('')} FROM system.detached_parts
     WHERE database = '${database}' ORDER BY table, name`);
  return {
    parts: found.map((p) => {
      const reason = p.reason ?? '';
      const part: DamagedPart = { table: p.table, part: reason && p.name.startsWith(`${reason}_`) ? p.name.slice(reason.length + 1) : p.name, reason };
      if (p.bytes_on_disk !== undefined) part.bytes = Number(p.bytes_on_disk);
      if (p.path) part.path = p.path;
      const count = opts.local && p.path ? readCount(p.path) : undefined;
      if (count !== undefined) part.rows = count;
      return part;
    }),
  };
}

/** One line per damaged part, and what the user can do about it. */
export function describeDamage(database: string, check: DamageCheck): string[] {
  if (check.parts.length === 0) return [];
  const lines = check.parts.map((p) => {
    const rows = p.rows === undefined ? 'an unknown number of rows' : `${p.rows} row${p.rows === 1 ? '' : 's'}`;
    return `ClickHouse set aside part ${p.part} of table ${database}.${p.table} (${explainReason(p.reason)}): ` +
      `its ${rows} are missing from every query${p.path ? `; the part lies in ${p.path}` : ''}`;
  });
  lines.push('the crawl history is incomplete: replay the crawl log to write the missing rows again ' +
    '(crawlstream replay --from fetched), or delete the detached part(s) to accept the loss');
  return lines;
}

function explainReason(reason: string): string {
  switch (reason) {
    case 'broken':
    case 'broken-on-start':
      return `${reason}: ClickHouse could not read it`;
    case 'covered-by-broken':
      return 'covered-by-broken: set aside together with a broken part';
    case '':
      return 'detached by hand';
    default:
      return reason;
  }
}

/** count.txt holds a part's row count as decimal text; a damaged one is simply not believed. */
function readCount(path: string): number | undefined {
  try {
    const file = join(path, 'count.txt');
    if (statSync(file).size > 32) return undefined;
    const text = readFileSync(file, 'utf8').trim();
    return /^\d{1,15}$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

async function rows<T>(client: ClickHouseClient, query: string): Promise<T[]> {
  return (await client.query({ query, format: 'JSONEachRow' })).json<T>();
}
