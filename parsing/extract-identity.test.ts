// The parse's output on ~190 seeded pages (testing/page-corpus.ts), pinned: links, text, content hash,
// simhash and every other field of the extract, and the simhash of each text alone. A speed-up of
// the parse must leave every fingerprint as it is; a change meant to alter the output regenerates
// the file on purpose, and says why in its commit:
//   npm run build && UPDATE_PARSE_GOLDEN=1 node --test dist/parsing/extract-identity.test.js
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { extractPage } from './extract-page.js';
import { simhash64 } from './simhash.js';
import { corpusPages } from './testing/page-corpus.js';

const GOLDEN = fileURLToPath(new URL('../../parsing/testing/extract-golden.json', import.meta.url));

function fingerprint(html: string, url: string): string {
  const page = extractPage(html, url, 'crawlstream');
  const fields = { ...page, simhash: page.simhash.toString('hex'), textSimhash: simhash64(page.text).toString('hex') };
  return createHash('sha1').update(JSON.stringify(fields)).digest('hex');
}

test('should extract from every corpus page exactly what the pinned parse extracted', () => {
  const pages = corpusPages();
  const now: Record<string, string> = {};
  for (const p of pages) now[p.name] = fingerprint(p.html, p.url);
  if (process.env.UPDATE_PARSE_GOLDEN === '1') writeFileSync(GOLDEN, JSON.stringify(now, null, 1) + '\n');
  const pinned = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, string>;
  assert.deepEqual(Object.keys(now), Object.keys(pinned), 'the corpus itself changed: regenerate on purpose');
  const changed = pages.filter((p) => now[p.name] !== pinned[p.name]).map((p) => p.name);
  assert.deepEqual(changed, [], `the parse's output changed on ${changed.length} of ${pages.length} pages`);
});

test('should give the same fingerprints when pages are parsed in another order', () => {
  // Buffers and tables are reused from page to page: no page may leave state behind for the next.
  const pages = corpusPages();
  const forward = pages.map((p) => fingerprint(p.html, p.url));
  const backward = [...pages].reverse().map((p) => fingerprint(p.html, p.url)).reverse();
  assert.deepEqual(backward, forward);
});
