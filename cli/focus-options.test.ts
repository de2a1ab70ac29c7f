import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeFocus, focusFrom } from './focus-options.js';
import { crawlLevelOptions, defaultCrawlConfig } from '../contract/config.js';
import { EXAMPLES, decoyText } from '../focus/testing/topic-texts.js';

function folder(texts: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'focus-flags-'));
  texts.forEach((t, i) => writeFileSync(join(dir, `page-${i}.txt`), t));
  return dir;
}

const examples = folder(EXAMPLES);

describe('focus options', () => {
  it('should read the examples into the spec as text, and carry it among the crawl-level options', () => {
    const spec = focusFrom({ 'focus-examples': examples, 'focus-counterexamples': folder([decoyText('c')]), 'focus-mode': 'hard', 'focus-threshold': '0.4' }, undefined)!;
    assert.equal(spec.examples.length, EXAMPLES.length);
    assert.equal(spec.examples[0], EXAMPLES[0].replace(/\s+/g, ' ').trim());
    assert.deepEqual([spec.counterexamples.length, spec.mode, spec.threshold], [1, 'hard', 0.4]);
    const stored = JSON.parse(JSON.stringify(crawlLevelOptions(defaultCrawlConfig({ focus: spec }))));
    assert.deepEqual(stored.focus, spec, 'seed stores it as JSON for every worker');
    assert.equal(focusFrom({}, undefined), undefined, 'no flags, no focus');
  });

  it('should keep a stored crawl\'s focus and change only what the flags give', () => {
    const base = focusFrom({ 'focus-examples': examples, 'focus-threshold': '0.3' }, undefined)!;
    assert.equal(focusFrom({}, base), base);
    assert.deepEqual(focusFrom({ 'focus-mode': 'hard' }, base), { ...base, mode: 'hard' });
    assert.equal(focusFrom({ 'focus-examples': examples }, base)!.threshold, undefined, 'new examples bring their own threshold');
  });

  it('should read a module as source and say what is wrong with bad flags', () => {
    const dir = mkdtempSync(join(tmpdir(), 'focus-module-'));
    writeFileSync(join(dir, 'mine.mjs'), 'export function scorePage() { return 1; }');
    assert.deepEqual(focusFrom({ 'focus-module': join(dir, 'mine.mjs'), 'focus-examples': examples }, undefined)!.module,
      { name: 'mine.mjs', source: 'export function scorePage() { return 1; }' });
    assert.throws(() => focusFrom({ 'focus-mode': 'hard' }, undefined), /need --focus-examples DIR or --focus-module FILE/);
    assert.throws(() => focusFrom({ 'focus-examples': examples, 'focus-mode': 'strict' }, undefined), /--focus-mode must be soft or hard/);
    for (const bad of ['1.5', '-0.1', 'x', '', '0.5.1']) assert.throws(() => focusFrom({ 'focus-examples': examples, 'focus-threshold': bad }, undefined), /--focus-threshold must be a number from 0 to 1/, bad);
    assert.throws(() => focusFrom({ 'focus-examples': join(dir, 'nope') }, undefined), /cannot read the example folder/);
    assert.throws(() => focusFrom({ 'focus-module': join(dir, 'nope.mjs') }, undefined), /--focus-module .*ENOENT/);
  });

  it('should say how many examples, the mode and the threshold it chose, and refuse a module that does not load', async () => {
    const line = await describeFocus(focusFrom({ 'focus-examples': examples }, undefined)!);
    assert.match(line, /^focus: 6 example page\(s\), soft mode, relevance threshold 0\.\d+ \(chosen from the examples: half the median similarity/);
    await assert.rejects(describeFocus({ examples: [], counterexamples: [], mode: 'soft', module: { name: 'x.mjs', source: 'export function (' } }), /cannot load the focus module x\.mjs/);
  });
});
