import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cutUtf8, MAX_TEXT_BYTES, MIN_BLOCK_TOKENS, MIN_MAIN_TOKENS, TextDigest } from './text-digest.js';
import { simhash64 } from './simhash.js';
import { seededRng } from './sample-pages.js';

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

/** Feeds `chunks` as a parser would, a block boundary wherever a chunk is null. */
function digest(chunks: (string | null)[]) {
  const d = new TextDigest();
  for (const c of chunks) if (c === null) d.boundary(); else d.push(c);
  return d.finish();
}

test('should collapse whitespace across chunks exactly as joining and /\\s+/ would, and drop NULs', () => {
  const rng = seededRng(17);
  const alphabet = ['a', 'Zé', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2003', '\u3000', '\ufeff', '\u1680', '\0', '界', 'x y'];
  for (let i = 0; i < 20_000; i++) {
    const chunks: (string | null)[] = [];
    for (let n = Math.floor(rng() * 8); n > 0; n--) {
      if (rng() < 0.15) { chunks.push(null); continue; }
      let s = '';
      for (let m = Math.floor(rng() * 6); m > 0; m--) s += alphabet[Math.floor(rng() * alphabet.length)];
      chunks.push(s);
    }
    const expected = chunks.map(c => c ?? ' ').join('').replace(/\0/g, '').replace(/\s+/g, ' ').trim();
    const out = digest(chunks);
    assert.equal(out.text, expected, JSON.stringify(chunks));
    assert.equal(out.textLength, expected.length);
    assert.equal(out.contentHash, sha1(expected));
  }
});

test('should read a range of a string in place', () => {
  const d = new TextDigest();
  d.push('<p>Hello  world</p>', 3, 15);
  d.push('xx, again!xx', 2, 10);
  assert.equal(d.finish().text, 'Hello world, again!');
});

test('should keep at most 100 KB of text, cut at a character boundary, while length and hash cover it all', () => {
  for (const unit of ['abc ', 'é€😀 ']) {
    const whole = unit.repeat(Math.ceil((MAX_TEXT_BYTES * 2) / Buffer.byteLength(unit))).trim();
    const d = new TextDigest();
    for (let i = 0; i < whole.length; i += 1000) d.push(whole.slice(i, i + 1000));
    const out = d.finish();
    assert.ok(Buffer.byteLength(out.text) <= MAX_TEXT_BYTES);
    assert.ok(Buffer.byteLength(out.text) > MAX_TEXT_BYTES - 4, 'cut no earlier than the last whole character');
    assert.ok(whole.startsWith(out.text), 'a prefix, no replacement characters');
    assert.equal(out.textLength, whole.length);
    assert.equal(out.contentHash, sha1(whole));
  }
  assert.equal(cutUtf8('a😀', 4), 'a', 'a 4-byte character is not split');
  assert.equal(cutUtf8('é', 1), '');
});

test('should give plain text the same simhash through any chunking', () => {
  const text = 'The quick brown fox jumps over the lazy dog near the riverbank at dawn. '.repeat(20);
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += 7) chunks.push(text.slice(i, i + 7));
  assert.deepEqual(digest(chunks).simhash, simhash64(text));
});

/** `n` distinct words, so the token counts are known. */
const words = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i.toString(36)}x`).join(' ');

test('should hash only main content when it is substantial, else everything', () => {
  const article = words('art', 300);
  const run = (level: 0 | 1 | 2, boilerplate: string) => {
    const d = new TextDigest();
    d.setLevel(0);
    d.push(boilerplate);
    d.boundary();
    d.setLevel(level);
    d.push(article);
    return d.finish();
  };
  const main = run(2, words('nav', 200));
  assert.equal(main.simhashLevel, 2);
  assert.deepEqual(main.simhash, simhash64(article), 'boilerplate does not vote');
  assert.deepEqual(run(1, words('other', 50)).simhash, simhash64(article));
  // Main content under a fifth of the page's tokens: all text votes.
  const swamped = run(2, words('nav', 1_300));
  assert.equal(swamped.simhashLevel, 0);
  assert.deepEqual(swamped.simhash, simhash64(words('nav', 1_300) + ' ' + article));
  // Too few main tokens to describe a page: all text votes.
  const d = new TextDigest();
  d.setLevel(0);
  d.push(words('nav', 20));
  d.boundary();
  d.setLevel(2);
  d.push(words('art', MIN_MAIN_TOKENS - 1));
  assert.equal(d.finish().simhashLevel, 0);
});

test('should count a block that is mostly link text as boilerplate', () => {
  const article = words('art', 300);
  const d = new TextDigest();
  d.push(article);
  d.boundary();
  d.push('see ');
  d.setLink(true);
  d.push(words('link', 50)); // a list of related links: 50 of 51 tokens are link text
  d.setLink(false);
  d.boundary();
  const out = d.finish();
  assert.equal(out.simhashLevel, 1);
  assert.deepEqual(out.simhash, simhash64(article));
  assert.ok(out.text.endsWith('see ' + words('link', 50)), 'the text keeps it');
  // A paragraph with a link in it stays content.
  const e = new TextDigest();
  e.push(article + ' read ');
  e.setLink(true);
  e.push('the guide');
  e.setLink(false);
  e.push(' for more');
  assert.deepEqual(e.finish().simhash, simhash64(article + ' read the guide for more'));
});

test('should leave blocks shorter than MIN_BLOCK_TOKENS out of the simhash', () => {
  const article = words('art', 300);
  const d = new TextDigest();
  d.push('By Ada Moreno, May 3, 2020'); // a byline: one short block
  d.boundary();
  d.push(article);
  const out = d.finish();
  assert.equal(out.simhashTokens, 300);
  assert.equal(out.tokens, 300 + 6);
  assert.deepEqual(out.simhash, simhash64(article));
  assert.ok(MIN_BLOCK_TOKENS > 6 && MIN_BLOCK_TOKENS <= 12);
});

test('should hash the container holding the most prose, crediting wrapper divs to their parent', () => {
  const paragraphs = Array.from({ length: 6 }, (_, i) => words(`p${i}w`, 60));
  const d = new TextDigest();
  d.openContainer(); // body
  d.openContainer(); // an unmarked footer-like box with one long paragraph
  d.push(words('footer', 45));
  d.boundary();
  d.closeContainer();
  d.openContainer(); // the article: each paragraph in a wrapper div of its own
  for (const p of paragraphs) {
    d.openContainer();
    d.push(p);
    d.boundary();
    d.closeContainer();
  }
  d.closeContainer();
  const out = d.finish();
  assert.equal(out.simhashTokens, 360);
  assert.deepEqual(out.simhash, simhash64(paragraphs.join(' ')));
});
