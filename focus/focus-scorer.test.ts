import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createFocus } from './create-focus.js';
import type { FocusSpec } from './focus-spec.js';
import { EXAMPLES, generalText, topicText } from './testing/topic-texts.js';

const spec: FocusSpec = { examples: EXAMPLES, counterexamples: [], mode: 'soft' };
const ON = topicText('on-topic page');
const OFF = generalText('off-topic page', 'money');

/** One link near the start of a page of `text`, with `around` written just before it. */
function pageWith(text: string, link: { url: string; anchor: string }, around = '') {
  return { url: 'http://site.test/page', title: '', text: `${around} ${link.anchor}. ${text}`, links: [link] };
}

describe('the focus scorer', () => {
  it('should judge a page and score each of its links, every figure between 0 and 1', async () => {
    const f = await createFocus(spec);
    const r = f.score({ url: 'http://a.test/', title: 'Beekeeping', text: ON, links: [{ url: 'http://a.test/x', anchor: 'x' }, { url: 'http://b.test/', anchor: '' }] });
    assert.ok(r.relevance >= f.threshold && r.relevance <= 1);
    assert.equal(r.linkScores.length, 2);
    for (const s of r.linkScores) assert.ok(s >= 0 && s <= 1);
  });

  it('should rank links by the words they carry and by the page they are on', async () => {
    const f = await createFocus({ ...spec, learn: false });
    const score = (text: string, anchor: string) => f.score(pageWith(text, { url: 'http://x.test/p', anchor })).linkScores[0];
    const telling = 'Hive inspection and varroa mites';
    const plain = 'Quarterly results';
    assert.ok(score(ON, telling) > score(ON, plain), 'the anchor counts on a page about the topic');
    assert.ok(score(ON, telling) > score(OFF, telling), 'and the page counts');
    assert.ok(score(OFF, telling) > 0.25, 'a telling anchor is a lead on any page');
    assert.ok(score(ON, plain) > score(OFF, plain), 'a plain link on a topic page (among words about the topic) beats one elsewhere');
    assert.equal(score(OFF, plain), 0, 'nothing to go on: no evidence, no score');
  });

  it('should read the words around a link, its URL\'s words, and an anchor holding one core word of the topic', async () => {
    const f = await createFocus({ ...spec, learn: false });
    const link = (url: string, anchor: string, around = '') => f.score(pageWith(OFF, { url, anchor }, around)).linkScores[0];
    assert.ok(link('http://x.test/p', 'read more', 'Our notes on hive inspection, varroa mites and brood frames:') > link('http://x.test/p', 'read more', 'Our notes on interest rates and savings accounts:'));
    assert.ok(link('http://x.test/beekeeping/hive-inspection-varroa', 'read more') > link('http://x.test/money/rates', 'read more'));
    assert.ok(link('http://x.test/p', 'Useful links: allotments, seed swaps and local beekeepers') > 0.2, 'one core word in a long anchor is a lead');
  });

  it('should learn from the pages it judged: links to a host whose pages were on the topic gain, links to an off-topic host lose', async () => {
    const f = await createFocus(spec);
    const plain = (url: string) => f.score(pageWith(OFF, { url, anchor: 'next page' })).linkScores[0];
    const before = { good: plain('http://good.test/a/9'), bad: plain('http://bad.test/a/9'), unknown: plain('http://unknown.test/a/9') };
    assert.equal(before.good, before.unknown);
    for (let i = 0; i < 6; i++) {
      f.score({ url: `http://good.test/a/${i}`, title: '', text: topicText(`good-${i}`), links: [] });
      f.score({ url: `http://bad.test/a/${i}`, title: '', text: generalText(`bad-${i}`), links: [] });
    }
    const after = { good: plain('http://good.test/a/9'), bad: plain('http://bad.test/a/9'), unknown: plain('http://unknown.test/a/9') };
    assert.ok(after.good > after.unknown && after.unknown > after.bad, JSON.stringify(after));
    const fixed = await createFocus({ ...spec, learn: false });
    for (let i = 0; i < 6; i++) fixed.score({ url: `http://good.test/a/${i}`, title: '', text: topicText(`good-${i}`), links: [] });
    assert.equal(fixed.score(pageWith(OFF, { url: 'http://good.test/a/9', anchor: 'next page' })).linkScores[0], 0, 'learning off: a link is scored by its page alone');
  });

  it('should give a page the same relevance whatever was learned before: a replay judges as the crawl did', async () => {
    const a = await createFocus(spec);
    const b = await createFocus(spec);
    for (let i = 0; i < 20; i++) a.score({ url: `http://h${i % 3}.test/${i}`, title: '', text: i % 2 ? topicText(`l${i}`) : generalText(`l${i}`), links: [] });
    const page = { url: 'http://h1.test/x', title: 'Honey harvest', text: ON, links: [] };
    assert.equal(a.score(page).relevance, b.score(page).relevance);
  });

  it('should use a module\'s scorers instead of the model, and the model for what the module leaves out', async () => {
    const source = `export const version = 'v7';
export function scorePage({ title }) { return /bees/i.test(title) ? 0.9 : 0.1; }
export function scoreLink({ anchor, context }, page) { return anchor.includes('bees') ? page.relevance : context.includes('honey') ? 0.4 : 0; }`;
    const both = await createFocus({ ...spec, examples: [], module: { name: 'mine.mjs', source }, threshold: 0.5 });
    const r = both.score({ url: 'http://a.test/', title: 'All about bees', text: 'honey words here, see bees', links: [{ url: 'http://a.test/1', anchor: 'bees' }, { url: 'http://a.test/2', anchor: 'here' }] });
    assert.deepEqual([r.relevance, ...r.linkScores], [0.9, 0.9, 0.4]);
    assert.equal(both.moduleVersion, 'v7');
    const pageOnly = await createFocus({ ...spec, module: { name: 'p.mjs', source: 'export function scorePage() { return 1; }' } });
    const p = pageOnly.score({ url: 'http://a.test/', title: '', text: OFF, links: [{ url: 'http://b.test/hive-inspection', anchor: 'Hive inspection and varroa mites' }] });
    assert.equal(p.relevance, 1);
    assert.ok(p.linkScores[0] > 0.5, 'links scored by the model, with the module\'s relevance');
  });

  it('should refuse a module that cannot stand alone without examples', async () => {
    await assert.rejects(createFocus({ ...spec, examples: [], module: { name: 'p.mjs', source: 'export function scorePage() { return 1; }' } }), /both scorePage and scoreLink/);
    await assert.rejects(createFocus({ ...spec, examples: [], module: { name: 'q.mjs', source: 'export function scorePage() { return 1; } export function scoreLink() { return 1; }' } }), /threshold/);
  });
});
