import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextSitemapReader } from './text-reader.js';

function lines(pieces: string[]): [string, boolean][] {
  const out: [string, boolean][] = [];
  const r = new TextSitemapReader({ line: (text, tooLong) => out.push([text, tooLong]) });
  for (const p of pieces) r.write(p);
  r.end();
  return out;
}

test('should end a line at \\n, \\r\\n and \\r, even with the pair split across writes', () => {
  const expected: [string, boolean][] = [['a', false], ['b', false], ['c', false], ['d', false]];
  assert.deepEqual(lines(['a\nb\r\nc\rd']), expected);
  assert.deepEqual(lines(['a\nb\r', '\nc\r', 'd']), expected);
  assert.deepEqual(lines([...'a\nb\r\nc\rd']), expected);
});

test('should skip blank lines and trim the others', () => {
  assert.deepEqual(lines(['\n\n  x  \n\t\n\r\n']), [['x', false]]);
});

test('should report an over-long line once, without its text, and read the next one', () => {
  const long = 'h'.repeat(5000);
  assert.deepEqual(lines([long.slice(0, 1000), long.slice(1000), '\nnext']), [['', true], ['next', false]]);
  assert.deepEqual(lines(['x'.repeat(2049)]), [['', true]]);
  assert.deepEqual(lines(['  ' + 'x'.repeat(2048) + '  ']), [['x'.repeat(2048), false]]);
});

test('should emit nothing after stop()', () => {
  const out: string[] = [];
  const r = new TextSitemapReader({ line: (text) => { out.push(text); if (out.length === 1) r.stop(); } });
  r.write('a\nb\nc\n');
  r.end();
  assert.deepEqual(out, ['a']);
});
