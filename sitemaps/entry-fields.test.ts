import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseChangefreq, parsePriority, parseW3cDatetime } from './entry-fields.js';

// The six precisions and both TZD forms of https://www.w3.org/TR/NOTE-datetime, its own examples
// among them (1997-07-16T19:20+01:00 and 1997-07-16T19:20:30.45+01:00).
const datetimes: [string, string][] = [
  ['1997', '1997-01-01T00:00:00.000Z'],
  ['1997-07', '1997-07-01T00:00:00.000Z'],
  ['1997-07-16', '1997-07-16T00:00:00.000Z'],
  ['1997-07-16T19:20+01:00', '1997-07-16T18:20:00.000Z'],
  ['1997-07-16T19:20:30+01:00', '1997-07-16T18:20:30.000Z'],
  ['1997-07-16T19:20:30.45+01:00', '1997-07-16T18:20:30.450Z'],
  ['1997-07-16T19:20:30.123456789Z', '1997-07-16T19:20:30.123Z'],
  ['2024-02-29T23:59:59-05:30', '2024-03-01T05:29:59.000Z'],
  ['2024-01-01T10:00:00', '2024-01-01T10:00:00.000Z'],
  ['  2024-01-01  ', '2024-01-01T00:00:00.000Z'],
  ['0099-12-31', '0099-12-31T00:00:00.000Z'],
];

for (const [text, iso] of datetimes) {
  test(`should read the W3C datetime ${JSON.stringify(text)}`, () => {
    assert.equal(new Date(parseW3cDatetime(text) as number).toISOString(), iso);
  });
}

const badDatetimes = [
  '', 'yesterday', '97-07-16', '1997-7-16', '1997-13-01', '1997-00-10', '2023-02-29', '2024-04-31',
  '1997-07-16T24:00Z', '1997-07-16T19:60Z', '1997-07-16T19:20:61Z', '1997-07-16T19Z', '1997-07-16 19:20Z',
  '1997-07-16T19:20+0100', '1997-07-16T19:20+25:00', 'Tue, 16 Jul 1997 19:20:30 GMT', '1997-07-16T19:20:30.Z',
  '1'.repeat(100),
];
for (const text of badDatetimes) {
  test(`should reject the lastmod ${JSON.stringify(text.slice(0, 30))}`, () => {
    assert.equal(parseW3cDatetime(text), undefined);
  });
}

test('should accept the seven changefreq values in any case and nothing else', () => {
  for (const v of ['always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'never']) {
    assert.equal(parseChangefreq(v), v);
    assert.equal(parseChangefreq(` ${v.toUpperCase()}\n`), v);
  }
  for (const v of ['', 'sometimes', 'dayly', 'daily weekly', 'quarterly']) assert.equal(parseChangefreq(v), undefined);
});

test('should accept priorities from 0.0 to 1.0 and reject the rest', () => {
  const good: [string, number][] = [['0.0', 0], ['0', 0], ['1', 1], ['1.0', 1], ['0.5', 0.5], ['.8', 0.8], [' 0.25 ', 0.25], ['1.', 1]];
  for (const [text, value] of good) assert.equal(parsePriority(text), value, text);
  for (const text of ['', '-0.1', '1.1', '2', 'high', '1e-1', '0x1', 'NaN', '0.5.1', '+0.5', '.']) {
    assert.equal(parsePriority(text), undefined, text);
  }
});
