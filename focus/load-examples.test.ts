import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadExamples } from './load-examples.js';
import { checkFocusSpec, MAX_EXAMPLE_CHARS, MAX_FOCUS_CHARS } from './focus-spec.js';
import { loadFocusModule } from './focus-module.js';

describe('example pages', () => {
  it('should read .txt as text and .html as its title and visible text, in file-name order, and leave other files out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'examples-'));
    writeFileSync(join(dir, 'b.html'), '<html><head><title>Hive care</title><script>var x = "no"</script></head><body><p>Varroa &amp; brood</p></body></html>');
    writeFileSync(join(dir, 'a.txt'), 'Queen rearing\n\nin   spring');
    writeFileSync(join(dir, 'c.pdf'), '%PDF-1.4');
    writeFileSync(join(dir, 'd.txt'), '   ');
    mkdirSync(join(dir, 'e.txt'));
    writeFileSync(join(dir, 'f.TXT'), 'x'.repeat(MAX_EXAMPLE_CHARS + 10));
    const loaded = loadExamples(dir);
    assert.deepEqual(loaded.files, ['a.txt', 'b.html', 'f.TXT']);
    assert.deepEqual(loaded.texts.slice(0, 2), ['Queen rearing in spring', 'Hive care Varroa & brood']);
    assert.equal(loaded.texts[2].length, MAX_EXAMPLE_CHARS);
    assert.deepEqual(loaded.cut, ['f.TXT']);
    assert.deepEqual(loaded.ignored, ['c.pdf', 'd.txt', 'e.txt']);
  });

  it('should refuse a folder that is missing or holds no page', () => {
    const empty = mkdtempSync(join(tmpdir(), 'examples-'));
    assert.throws(() => loadExamples(empty), /holds no .txt or .html page/);
    assert.throws(() => loadExamples(join(empty, 'nope')), /cannot read the example folder .*ENOENT/);
  });

  it('should refuse a spec over what a crawl\'s options may carry, or with a bad mode or threshold', () => {
    const big = Array.from({ length: 10 }, () => 'x'.repeat(MAX_FOCUS_CHARS / 8));
    assert.throws(() => checkFocusSpec({ examples: big, counterexamples: [], mode: 'soft' }), /over the .* a crawl's options may carry/);
    assert.throws(() => checkFocusSpec({ examples: ['a'], counterexamples: [], mode: 'loose' as 'soft' }), /soft or hard/);
    assert.throws(() => checkFocusSpec({ examples: ['a'], counterexamples: [], mode: 'soft', threshold: 2 }), /from 0 to 1/);
    assert.throws(() => checkFocusSpec({ examples: [], counterexamples: [], mode: 'soft' }), /give example pages/);
  });
});

describe('a focus module', () => {
  it('should load from its source and say what is wrong with a bad one', async () => {
    const m = await loadFocusModule({ name: 'm.mjs', source: 'import { createHash } from "node:crypto";\nexport const threshold = 0.25;\nexport function scorePage() { return createHash("sha1") ? 1 : 0; }' });
    assert.equal(m.threshold, 0.25);
    assert.equal(m.scorePage!({ url: '', title: '', text: '' }), 1);
    await assert.rejects(loadFocusModule({ name: 'bad.mjs', source: 'export function (' }), /cannot load the focus module bad.mjs/);
    await assert.rejects(loadFocusModule({ name: 'rel.mjs', source: 'import "./other.mjs";' }), /self-contained/);
    await assert.rejects(loadFocusModule({ name: 'none.mjs', source: 'export const x = 1;' }), /must export scorePage/);
    await assert.rejects(loadFocusModule({ name: 't.mjs', source: 'export const threshold = 3; export function scorePage() { return 1; }' }), /threshold must be a number from 0 to 1/);
  });
});
