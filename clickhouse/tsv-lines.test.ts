import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SinkLines, tsvPayload, tsvPieces } from './tsv-lines.js';

test('should end each line with its batch stamps and name the stamped columns after the row\'s own', () => {
  const lines = new SinkLines();
  const a = lines.add('t', { url: 'http://a.test/é', n: 1 }, 'live\tfetched\t3\t7');
  const b = lines.add('t', { n: 2, url: 'tab\there' }, 'live\tfetched\t3\t8');
  assert.equal(tsvPayload([a, b], '\t99\t5\n').toString('utf8'),
    'http://a.test/é\t1\tlive\tfetched\t3\t7\t99\t5\ntab\\there\t2\tlive\tfetched\t3\t8\t99\t5\n');
  assert.deepEqual(lines.columns('t', true), ['url', 'n', 'sink_id', 'src_topic', 'src_partition', 'src_offset', 'version', 'sunk_at', 'log_id']);
  assert.deepEqual(lines.columns('t', false).at(-1), 'sunk_at');
});

test('should refuse a row whose columns differ from its table\'s first, or that holds a stamped column', () => {
  const lines = new SinkLines();
  lines.add('t', { url: 'x', n: 1 }, 's');
  assert.throws(() => lines.add('t', { url: 'x' }, 's'), /1 fields for the 2 columns/);
  assert.throws(() => lines.add('t', { url: 'x', m: 1 }, 's'), /no value for column n/);
  assert.throws(() => lines.add('u', { url: 'x', version: 1 }, 's'), /holds version, which the sink writer stamps itself/);
});

test('should write a field given as bytes escaped, the same line as the string would make, across chunks', () => {
  const lines = new SinkLines();
  const texts = Array.from({ length: 200 }, (_, i) => `${i}\t${'ü\\'.repeat((i * 7919) % 9_000)}`);
  const asBytes = texts.map((text, i) => lines.add('t', { n: i, text: Buffer.from(text, 'utf8') }, 's').bytes.toString('utf8'));
  const asStrings = texts.map((text, i) => new SinkLines().add('t', { n: i, text }, 's').bytes.toString('utf8'));
  assert.deepEqual(asBytes, asStrings);
});

test('should keep every line intact across chunks, whatever their sizes', () => {
  const lines = new SinkLines();
  const texts = Array.from({ length: 300 }, (_, i) => `${i}:${'ü'.repeat((i * 7919) % 20_000)}`);
  const held = texts.map((text, i) => lines.add('t', { text }, String(i)));
  assert.deepEqual(held.map((l) => l.bytes.toString('utf8')), texts.map((t, i) => `${t}\t${i}`));
});

test('a server insert\'s pieces hold whole lines, are no larger than asked unless one line is, and add up to the payload', () => {
  const lines = new SinkLines();
  const held = Array.from({ length: 200 }, (_, i) => lines.add('t', { text: 'x'.repeat((i * 7919) % 3_000) }, String(i)));
  const end = '\t99\t5\n';
  const pieces = [...tsvPieces(held, end, 4_096)];
  assert.ok(pieces.length > 50, `${pieces.length} pieces`);
  assert.ok(pieces.every((p) => p.length <= 4_096 || p.toString('utf8').split('\n').length === 2), 'only a piece of one line may pass the bound');
  assert.ok(pieces.every((p) => p.toString('utf8').endsWith(end)), 'no line is split between pieces');
  assert.deepEqual(Buffer.concat(pieces), tsvPayload(held, end));
  assert.deepEqual([...tsvPieces([], end)], []);
});
