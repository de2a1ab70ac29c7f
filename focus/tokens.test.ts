import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bucketOf, pathStartOf, WordScanner, wordHash } from './tokens.js';

function words(text: string): number[] {
  const s = new WordScanner();
  const n = s.scan(text, 0, text.length);
  return [...s.buckets.subarray(0, n)];
}

const bucket = (w: string) => bucketOf(wordHash(w));

describe('focus words', () => {
  it('should keep words of 3 to 24 letters and digits, lower-cased, and drop frequent English words and numbers', () => {
    assert.deepEqual(words('The HIVE and the queen, 2024 ok hive-tool'), [bucket('hive'), bucket('queen'), bucket('hive'), bucket('tool')]);
    assert.deepEqual(words('a'.repeat(25)), [], 'too long to be a word');
    assert.deepEqual(words('x86 b52'), [bucket('x86'), bucket('b52')], 'letters and digits make a word');
  });

  it('should fold a plural s, but not a double s', () => {
    assert.deepEqual(words('hives Hives mites'), [bucket('hive'), bucket('hive'), bucket('mite')]);
    assert.deepEqual(words('glass bees'), [bucket('glass'), bucket('bees')], 'glass is not a plural; a 4-letter word is left as it is');
  });

  it('should read letters beyond ASCII as word characters, capitals folded', () => {
    assert.deepEqual(words('RÉSEAU réseau'), [bucket('réseau'), bucket('réseau')]);
  });

  it('should say where each word ends, and append a second stretch after the first', () => {
    const s = new WordScanner();
    const text = 'hive nectar pollen swarm';
    const n = s.scan(text, 0, 11);
    assert.deepEqual([...s.ends.subarray(0, n)], [4, 11]);
    const m = s.scan(text, 12, text.length, n);
    assert.equal(m, 4);
    assert.deepEqual([...s.ends.subarray(0, m)], [4, 11, 18, 24]);
  });

  it('should grow its buffers for a long text', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `word${i}x`).join(' ');
    const s = new WordScanner();
    const n = s.scan(text, 0, text.length);
    // A word whose bucket a frequent word shares is dropped with it (0.6 % of buckets): the price of a table that stays in cache.
    assert.ok(n > 4900 && s.buckets.length >= n, `${n} words`);
    assert.ok(s.ends.subarray(1, n).every((e, i) => e > s.ends[i]), 'in order');
  });

  it('should find where a URL\'s path starts', () => {
    assert.equal(pathStartOf('http://a.test:8080/bees/hives?x=1'), 'http://a.test:8080'.length);
    assert.equal(pathStartOf('http://a.test'), 'http://a.test'.length);
  });
});
