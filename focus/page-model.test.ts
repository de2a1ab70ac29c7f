import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PageModel, SCORED_CHARS, scoredText } from './page-model.js';
import { decoyText, EXAMPLES, generalText, topicText } from './testing/topic-texts.js';

const model = new PageModel(EXAMPLES);
const score = (text: string, title = '', m = model) => m.scoreText({ title, text });

describe('the page model', () => {
  it('should judge pages about the examples\' topic above the threshold it chose, and others below', () => {
    const threshold = model.suggestedThreshold();
    for (let i = 0; i < 10; i++) {
      assert.ok(score(topicText(`page-${i}`)) >= threshold, `topic page ${i}`);
      assert.ok(score(generalText(`page-${i}`, ['sport', 'money', 'garden', 'food'][i % 4])) < threshold / 3, `general page ${i}`);
    }
  });

  it('should keep decoys, which use the topic\'s words in another sense, below the threshold', () => {
    const threshold = model.suggestedThreshold();
    for (const decoy of ['honeyfood', 'royal', 'swarm', 'spelling'] as const) {
      const s = score(decoyText('d', decoy));
      assert.ok(s < threshold && s > score(generalText('d')), `${decoy}: ${s.toFixed(3)} between a general page and ${threshold}`);
    }
  });

  it('should choose half the median leave-one-out similarity of the examples as the threshold', () => {
    const sorted = [...model.exampleScores].sort((a, b) => a - b);
    assert.equal(model.suggestedThreshold(), Math.round((sorted[3] / 2) * 1000) / 1000);
    assert.ok(sorted[0] > 0.4, 'each example resembles the others');
    assert.equal(new PageModel([EXAMPLES[0]]).suggestedThreshold(), 0.5, 'one example: its similarity to the others is taken as 1');
  });

  it('should lower what resembles the counterexamples and raise the threshold toward the examples', () => {
    const honey = [0, 1, 2].map((i) => decoyText(`counter-${i}`, 'honeyfood'));
    const withCounter = new PageModel(EXAMPLES, honey);
    const decoy = decoyText('another', 'honeyfood');
    assert.ok(score(decoy, '', withCounter) < score(decoy) * 0.7, 'honey recipes count for less');
    assert.ok(score(topicText('p'), '', withCounter) > withCounter.suggestedThreshold(), 'beekeeping still counts');
    assert.ok(withCounter.suggestedThreshold() >= model.suggestedThreshold() - 0.05);
  });

  it('should count the title twice', () => {
    const text = generalText('titled');
    assert.ok(score(text, 'Hive inspection and varroa mites') > score(text));
  });

  it('should read the start and the middle of a long text, 1,200 characters in all', () => {
    const short = 'x'.repeat(1000);
    assert.equal(scoredText(short), short);
    const long = Array.from({ length: 5_000 }, (_, i) => String(i)).join(' ');
    const read = scoredText(long);
    assert.equal(read.length, SCORED_CHARS + 1, 'two stretches and the line break between them');
    assert.equal(read.slice(0, 10), long.slice(0, 10));
    assert.ok(long.indexOf(read.slice(read.indexOf('\n') + 1)) > 8_000, 'the second stretch is from the middle');
    // A page whose start is a menu and whose middle is about bees is about bees.
    const menu = generalText('menu', 'news', 200).slice(0, 800);
    const page = `${menu} ${generalText('filler', 'cars', 3000)} ${topicText('middle', 400)} ${generalText('tail', 'cars', 3000)}`;
    assert.ok(page.length > 10_000);
    assert.ok(score(page) > score(menu) + 0.2);
  });

  it('should build the same model from the same examples', () => {
    const again = new PageModel(EXAMPLES);
    assert.deepEqual(again.exampleScores, model.exampleScores);
    assert.equal(again.norm, model.norm);
  });

  it('should refuse to build a model without examples', () => {
    assert.throws(() => new PageModel([]), /at least one example/);
  });
});
