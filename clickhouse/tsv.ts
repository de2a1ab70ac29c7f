// Rows as ClickHouse's TabSeparated input, for INSERTs. Cheaper than JSONEachRow at both ends: no
// field names per row, a string needs escaping only where it holds one of a few characters, and
// ClickHouse parses it without looking up keys. Read the same way by chdb 26.x and servers back to
// 18.16 (both tested in clickhouse/testing/schema-suite.ts and tsv.test.ts).
//
// The rules (ClickHouse "TabSeparated" format): fields end at a tab, rows at a newline; in a string,
// backslash, tab, newline, carriage return, NUL, backspace and form feed are written as backslash
// escapes. Arrays are `[…]` with strings in single quotes (a quote escaped too) and numbers bare.
// Integers and floats are written as JavaScript prints them; DateTime columns receive Unix seconds,
// which ClickHouse reads as a timestamp (no time zone involved, as with JSON numbers).

/** A Uint8Array is a string already in UTF-8 (a text the sink read as bytes): escaped, not decoded. */
export type TsvValue = string | number | boolean | readonly (string | number)[] | Uint8Array;

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0', '\b': '\\b', '\f': '\\f', "'": "\\'" };
const NEEDS_ESCAPE = /[\\\t\n\r\0\b\f]/;
const ESCAPED = /[\\\t\n\r\0\b\f]/g;
const NEEDS_QUOTED_ESCAPE = /[\\\t\n\r\0\b\f']/;
const QUOTED_ESCAPED = /[\\\t\n\r\0\b\f']/g;
const escapeChar = (c: string) => ESCAPES[c];

export function tsvString(s: string): string {
  return NEEDS_ESCAPE.test(s) ? s.replace(ESCAPED, escapeChar) : s;
}

function quoted(s: string): string {
  return `'${NEEDS_QUOTED_ESCAPE.test(s) ? s.replace(QUOTED_ESCAPED, escapeChar) : s}'`;
}

function tsvNumber(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`cannot write ${n} to ClickHouse`);
  return String(n);
}

/** One field. Booleans become 1/0 (UInt8 columns). */
export function tsvField(v: TsvValue): string {
  if (v instanceof Uint8Array) return tsvString(Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8'));
  switch (typeof v) {
    case 'string': return tsvString(v);
    case 'number': return tsvNumber(v);
    case 'boolean': return v ? '1' : '0';
  }
  if (!Array.isArray(v)) throw new Error(`cannot write ${typeof v} to ClickHouse as TabSeparated`);
  let out = '[';
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (i > 0) out += ',';
    out += typeof x === 'string' ? quoted(x) : tsvNumber(x);
  }
  return out + ']';
}

/** The bytes that need a backslash escape in a TabSeparated string, and the letter that follows it. */
const BYTE_ESCAPES = new Map<number, number>([[0x5c, 0x5c], [0x09, 0x74], [0x0a, 0x6e], [0x0d, 0x72], [0x00, 0x30], [0x08, 0x62], [0x0c, 0x66]]);

/**
 * How many bytes `b` takes escaped. Each byte that needs escaping is ASCII, so never part of a
 * multi-byte UTF-8 character: escaping works on the bytes alone. Most texts hold none of them, and
 * seven native searches tell that much faster than a loop over every byte.
 */
export function tsvBytesLength(b: Uint8Array): number {
  let escapes = 0;
  for (const byte of BYTE_ESCAPES.keys()) {
    for (let at = b.indexOf(byte); at >= 0; at = b.indexOf(byte, at + 1)) escapes++;
  }
  return b.length + escapes;
}

/** Writes `b` escaped into `out` at `at` (room for tsvBytesLength(b) there); returns where it ended. */
export function writeTsvBytes(b: Uint8Array, out: Buffer, at: number, escapedLength: number): number {
  if (escapedLength === b.length) {
    out.set(b, at);
    return at + b.length;
  }
  for (let i = 0; i < b.length; i++) {
    const letter = BYTE_ESCAPES.get(b[i]);
    if (letter === undefined) out[at++] = b[i];
    else {
      out[at++] = 0x5c;
      out[at++] = letter;
    }
  }
  return at;
}

/**
 * One row's `columns` as TabSeparated fields, into `fields` (reused by the caller, so a row costs
 * its field strings and nothing more; `fields.join('\t')` then makes one flat string). Every column
 * must be present and the row must hold no other: a missing one is an error here, not a silent
 * default in ClickHouse, and an extra one would be dropped without a word.
 */
export function tsvFields(row: Readonly<Record<string, unknown>>, columns: readonly string[], fields: (string | Uint8Array)[]): void {
  let n = 0;
  for (const _ in row) n++;
  if (n !== columns.length) throw new Error(`row has ${n} fields for the ${columns.length} columns ${columns.join(', ')}`);
  for (let c = 0; c < columns.length; c++) {
    const v = row[columns[c]];
    if (v === undefined || v === null) throw new Error(`row has no value for column ${columns[c]}`);
    // Bytes are escaped as they are copied out (LineArena), never made a string.
    fields[c] = v instanceof Uint8Array ? v : tsvField(v as TsvValue);
  }
  fields.length = columns.length;
}
