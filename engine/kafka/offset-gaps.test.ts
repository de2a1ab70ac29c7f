import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OffsetGapGuard } from './offset-gaps.js';

describe('offset gap guard', () => {
  it('should let a batch through that starts where the task is, or before it (records it has)', () => {
    const g = new OffsetGapGuard();
    assert.deepEqual(g.check('t', 10, 10), { kind: 'continue' });
    assert.deepEqual(g.check('t', 4, 10), { kind: 'continue' });
    assert.deepEqual(g.check('t', null, 10), { kind: 'continue' }, 'an empty batch');
  });

  it('should let a batch through that skips only the transaction marker after the last batch given', () => {
    const g = new OffsetGapGuard();
    // Records 0–9 were given; offset 10 is the commit marker, which the task never sees.
    g.givenWhole('t', 10);
    assert.deepEqual(g.check('t', 11, 10), { kind: 'continue' });
  });

  it('should let a batch through after a batch of markers alone, which kafkajs never offers', () => {
    const g = new OffsetGapGuard();
    // Records 0–9 were given (the batch ended at 9); the commit marker at 10 came in a fetch of its own.
    g.givenWhole('t', 9);
    g.filtered('t', 10, 10, 10);
    assert.deepEqual(g.check('t', 11, 10), { kind: 'continue' });
  });

  it('should not take a filtered batch past a gap for records the task still needs', () => {
    const g = new OffsetGapGuard();
    g.givenWhole('t', 9);
    // Offsets 10–19 were never offered (the task went on from 10); markers at 20–21 do not cover them.
    g.filtered('t', 20, 21, 10);
    assert.deepEqual(g.check('t', 22, 10), { kind: 'seek', offset: 10 });
  });

  it('should send the consumer back to the task when a batch starts past everything it was given', () => {
    const g = new OffsetGapGuard();
    g.givenWhole('t', 9);
    // A task re-opened from its last commit (at 6) while the consumer had read on to 20.
    assert.deepEqual(g.check('t', 20, 6), { kind: 'seek', offset: 6 });
    // The consumer went back: the next batch starts where the task is.
    assert.deepEqual(g.check('t', 6, 6), { kind: 'continue' });
  });

  it('should seek for a lost task whose new instance knows nothing of earlier batches', () => {
    const g = new OffsetGapGuard();
    assert.deepEqual(g.check('t', 100, 40), { kind: 'seek', offset: 40 });
  });

  it('should report records lost to retention when reading again lands on the same gap', () => {
    const g = new OffsetGapGuard();
    assert.deepEqual(g.check('t', 500, 40), { kind: 'seek', offset: 40 });
    assert.deepEqual(g.check('t', 500, 40), { kind: 'lost', from: 40, to: 499 });
  });

  it('should keep topics apart', () => {
    const g = new OffsetGapGuard();
    g.givenWhole('a', 30);
    assert.deepEqual(g.check('b', 31, 10), { kind: 'seek', offset: 10 });
    assert.deepEqual(g.check('a', 31, 10), { kind: 'continue' });
  });
});
