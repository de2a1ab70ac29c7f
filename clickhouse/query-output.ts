// `crawlstream query "SQL" [--format json|table]`: the crawl history, as JSON lines for programs or
// as an aligned table for people. Exactly one statement, run read-only: changing the schema is
// `crawlstream clickhouse migrate`'s job, and `SELECT 1; DROP TABLE robots` must not drop anything.
import type { ClickHouse } from './connection.js';
import { sqlString } from './connection.js';
import { assertReadsOnlyCrawlData } from './query-guard.js';

export type QueryFormat = 'json' | 'table';

const READS = /^(SELECT|WITH|SHOW|DESCRIBE|DESC|EXISTS|EXPLAIN)\b/i;
const MULTI = /Multi-statements are not allowed/i;
const ONE_STATEMENT = 'give one statement: crawlstream query runs a single read-only statement';

export async function runQuery(ch: ClickHouse, sql: string, format: QueryFormat): Promise<string> {
  // The connection's readonly setting is what guarantees that nothing changes; the checks below
  // say clearly what is wrong before ClickHouse answers with a less helpful error.
  if (!ch.readOnly) throw new Error('runQuery needs a read-only connection: openClickHouse({ ..., readOnly: true })');
  const statement = sql.trim().replace(/[;\s]+$/, '');
  if (!statement) throw new Error('empty query');
  const canonical = await assertOneStatement(ch, statement);
  // Checked on the text as typed and, where ClickHouse can print its own reading of it, on that too.
  const tableFunctions = await engineTableFunctions(ch);
  for (const text of [statement, canonical]) if (text !== undefined) assertReadsOnlyCrawlData(text, tableFunctions);
  if (!READS.test(withoutLeadingComments(statement))) {
    throw new Error(`crawlstream query only reads (SELECT, WITH, SHOW, DESCRIBE, EXISTS, EXPLAIN), got ${JSON.stringify(firstWords(statement))}; ` +
      'the schema changes through `crawlstream clickhouse migrate`');
  }
  if (/\bFORMAT\s+\w+\s*$/i.test(statement)) {
    throw new Error('leave FORMAT out of the query: choose the output with --format json|table');
  }
  if (/\bINTO\s+OUTFILE\b/i.test(statement)) throw new Error('leave INTO OUTFILE out of the query: redirect the output instead');
  try {
    if (format === 'json') {
      const text = await ch.queryText(statement, 'JSONEachRow');
      return text && !text.endsWith('\n') ? `${text}\n` : text;
    }
    const result = JSON.parse(await ch.queryText(statement, 'JSONCompact')) as {
      meta: { name: string; type: string }[];
      data: unknown[][];
    };
    return formatTable(result.meta, result.data);
  } catch (err) {
    const message = (err as Error).message.trim();
    if (MULTI.test(message)) throw new Error(`${ONE_STATEMENT} (${message})`, { cause: err });
    if (/readonly|read-only/i.test(message)) throw new Error(`crawlstream query only reads: ${message}`, { cause: err });
    throw err;
  }
}

/**
 * Embedded chdb runs every statement of a text it is given; a server refuses more than one. So on
 * chdb, ClickHouse's own parser (formatQuery) decides what is one statement: no second lexer here
 * to disagree with it about comments, quotes or heredocs.
 */
async function assertOneStatement(ch: ClickHouse, statement: string): Promise<string | undefined> {
  if (ch.engine !== 'chdb') return undefined;
  try {
    const [row] = await ch.query<{ q: string }>(`SELECT formatQuery(${sqlString(statement)}) AS q`);
    return row?.q;
  } catch (err) {
    const message = (err as Error).message;
    if (MULTI.test(message)) throw new Error(ONE_STATEMENT, { cause: err });
    // Never run what the parser refused: report its complaint without the wrapper query.
    throw new Error(message.replace(/[:.]?\s*In scope SELECT formatQuery[\s\S]*$/, '').trim(), { cause: err });
  }
}

/** The engine's table functions (a newer ClickHouse knows more than the guard's own list). */
async function engineTableFunctions(ch: ClickHouse): Promise<Set<string>> {
  const rows = await ch.query<{ name: string }>('SELECT name FROM system.table_functions');
  return new Set(rows.map((r) => r.name.toLowerCase()));
}

function firstWords(statement: string): string {
  const words = withoutLeadingComments(statement).split(/\s+/).slice(0, 3).join(' ');
  return words.length > 40 ? `${words.slice(0, 40)}…` : words;
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
