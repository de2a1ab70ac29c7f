// `crawlstream query "SQL" [--format json|table]`: the crawl history, as JSON lines for programs or
// as an aligned table for people.
import type { ClickHouse } from './connection.js';

export type QueryFormat = 'json' | 'table';

const RETURNS_ROWS = /^(SELECT|WITH|SHOW|DESCRIBE|DESC|EXISTS|EXPLAIN)\b/i;

export async function runQuery(ch: ClickHouse, sql: string, format: QueryFormat): Promise<string> {
  const statement = sql.trim().replace(/;+\s*$/, '');
  if (!statement) throw new Error('empty query');
  if (/\bFORMAT\s+\w+\s*$/i.test(statement)) {
    throw new Error('leave FORMAT out of the query: choose the output with --format json|table');
  }
  if (!RETURNS_ROWS.test(withoutLeadingComments(statement))) {
    await ch.command(statement);
    return '';
  }
  if (format === 'json') {
    const text = await ch.queryText(statement, 'JSONEachRow');
    return text && !text.endsWith('\n') ? `${text}\n` : text;
  }
  const result = JSON.parse(await ch.queryText(statement, 'JSONCompact')) as {
    meta: { name: string; type: string }[];
    data: unknown[][];
  };
  return formatTable(result.meta, result.data);
}

/** Aligned columns with a header; numbers right-aligned, text left-aligned. */
export function formatTable(meta: { name: string; type: string }[], data: unknown[][]): string {
  const numeric = meta.map((m) => /^(Nullable\()?(U?Int|Float|Decimal)/.test(m.type));
  const cells = data.map((row) => row.map(cellText));
  const widths = meta.map((m, i) => Math.max(width(m.name), ...cells.map((r) => width(r[i]))));
  const pad = (s: string, i: number, right: boolean) => {
    const fill = ' '.repeat(widths[i] - width(s));
    return right ? fill + s : s + fill;
  };
  const line = (values: string[], alignNumbers: boolean) =>
    values.map((v, i) => pad(v, i, alignNumbers && numeric[i])).join(' | ').trimEnd();
  const out = [
    line(meta.map((m) => m.name), false),
    widths.map((w) => '-'.repeat(w)).join('-+-'),
    ...cells.map((r) => line(r, true)),
    `(${data.length} row${data.length === 1 ? '' : 's'})`,
  ];
  return `${out.join('\n')}\n`;
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return escapeControls(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return escapeControls(JSON.stringify(value));
}

/** A newline or tab inside a value would break the table's lines and columns. */
function escapeControls(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f]/g, (c) =>
    c === '\n' ? '\\n' : c === '\t' ? '\\t' : c === '\r' ? '\\r' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function width(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function withoutLeadingComments(sql: string): string {
  let s = sql;
  for (;;) {
    const t = s.replace(/^\s+/, '');
    if (t.startsWith('--')) s = t.slice(t.indexOf('\n') === -1 ? t.length : t.indexOf('\n') + 1);
    else if (t.startsWith('/*')) s = t.slice(t.indexOf('*/') === -1 ? t.length : t.indexOf('*/') + 2);
    else return t;
  }
}
