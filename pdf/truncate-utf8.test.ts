import { test } from 'node:test';
import assert from 'node:assert/strict';
import { truncateUtf8 } from './truncate-utf8.js';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

test('should keep text that fits the budget unchanged', () => {
  assert.deepEqual(truncateUtf8('héllo', 6), { text: 'héllo', truncated: false });
  assert.deepEqual(truncateUtf8('', 0), { text: '', truncated: false });
});

test('should cut before a multi-byte character that would not fit whole', () => {
  // 'é' is 2 bytes, '€' 3, '😀' 4 (a surrogate pair in UTF-16)
  assert.deepEqual(truncateUtf8('aé', 2), { text: 'a', truncated: true });
  assert.deepEqual(truncateUtf8('a€b', 3), { text: 'a', truncated: true });
  assert.deepEqual(truncateUtf8('a😀', 4), { text: 'a', truncated: true });
  assert.deepEqual(truncateUtf8('a😀b', 5), { text: 'a😀', truncated: true });
});

test('should never exceed the budget nor leave a lone surrogate, at every cut point', () => {
  const text = 'x€😀é'.repeat(50);
  for (let max = 0; max <= bytes(text) + 1; max++) {
    const { text: cut, truncated } = truncateUtf8(text, max);
    assert.ok(bytes(cut) <= max, `budget ${max}`);
    assert.ok(text.startsWith(cut));
    assert.equal(truncated, cut.length < text.length);
    assert.ok(!/[\uD800-\uDBFF]$/.test(cut), `lone high surrogate at budget ${max}`);
    // the cut is maximal: the next character would not have fit
    if (truncated) assert.ok(bytes(text.slice(0, cut.length + (text.codePointAt(cut.length)! > 0xffff ? 2 : 1))) > max);
  }
});
