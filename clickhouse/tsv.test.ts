import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chdbEngine } from './testing/test-engines.js';
import { tsvSuite } from './testing/tsv-suite.js';
import fc from 'fast-check';
import { tsvBytesLength, tsvField, tsvFields, tsvString, writeTsvBytes } from './tsv.js';

test('should escape what TabSeparated reads as structure, and nothing else', () => {
  assert.equal(tsvField('plain text, "quoted" and \'single\''), 'plain text, "quoted" and \'single\'');
  assert.equal(tsvField('a\tb\nc\\d\re\0f\bg\fh'), 'a\\tb\\nc\\\\d\\re\\0f\\bg\\fh');
  assert.equal(tsvField(['it\'s', 'a\\b', '']), "['it\\'s','a\\\\b','']");
  assert.equal(tsvField([1, 0, 65535]), '[1,0,65535]');
  assert.equal(tsvField(true), '1');
  assert.equal(tsvField(0.30000000000000004), '0.30000000000000004');
  assert.throws(() => tsvField(Number.NaN), /cannot write NaN/);
  assert.throws(() => tsvField({} as never), /cannot write object/);
});

test('should write a row\'s fields in the given column order, and refuse a row missing a column or holding another', () => {
  const line = (row: Record<string, unknown>, columns: string[]) => {
    const fields: string[] = ['left over from an earlier, longer row', 'x', 'y'];
    tsvFields(row, columns, fields);
    return fields.join('\t');
  };
  assert.equal(line({ a: 'x', b: 1 }, ['b', 'a']), '1\tx');
  assert.equal(line({ a: 'y\tz', b: 2 }, ['b', 'a']), '2\ty\\tz');
  assert.throws(() => line({ a: 'x' }, ['a', 'b']), /row has 1 fields for the 2 columns a, b/);
  assert.throws(() => line({ a: 'x', c: 1 }, ['a', 'b']), /no value for column b/);
  assert.throws(() => line({ a: 'x', b: 1, c: 2 }, ['a', 'b']), /row has 3 fields/);
});

test('should escape a text given as UTF-8 bytes exactly as the same text given as a string', () => {
  const text = fc.string({ unit: fc.oneof(fc.constantFrom('\\', '\t', '\n', '\r', '\0', '\b', '\f', "'", 'é', '€', '𝄞', '\uD800'), fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp))) });
  fc.assert(fc.property(text, (s) => {
    const bytes = Buffer.from(s, 'utf8');
    const size = tsvBytesLength(bytes);
    const out = Buffer.alloc(size + 4, 0xff);
    assert.equal(writeTsvBytes(bytes, out, 2, size), 2 + size);
    assert.deepEqual(out.subarray(2, 2 + size), Buffer.from(tsvString(s), 'utf8'), JSON.stringify(s));
    assert.equal(tsvField(bytes), tsvString(bytes.toString('utf8')));
  }), { numRuns: 2_000 });
});

tsvSuite(chdbEngine());
