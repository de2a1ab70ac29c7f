import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InputTracker } from './input-position.js';

describe('InputTracker', () => {
  it('should commit only below the oldest record still in progress, remembering those done above it', () => {
    const t = new InputTracker('t', { base: 0, done: [] });
    for (const o of [0, 1, 2, 3]) t.read(o);
    t.finish(0);
    t.finish(2);
    t.finish(3);
    assert.deepEqual(t.position(), { base: 1, done: [2, 3] });
    t.finish(1);
    assert.deepEqual(t.position(), { base: 4, done: [] });
  });

  it('should skip records finished before a restart and resume at the oldest unfinished one', () => {
    const t = new InputTracker('t', { base: 1, done: [2, 3] });
    assert.equal(t.next, 1);
    assert.equal(t.alreadyDone(1), false);
    assert.equal(t.alreadyDone(2), true);
    t.read(1);
    t.pass(2);
    t.pass(3);
    assert.equal(t.position(), undefined, 'nothing moved since the committed position');
    t.finish(1);
    assert.deepEqual(t.position(), { base: 4, done: [] });
  });

  it('should report no new position when nothing moved since the last commit', () => {
    const t = new InputTracker('t', { base: 0, done: [] });
    t.read(0);
    t.finish(0);
    const p = t.position()!;
    t.markCommitted(p);
    assert.equal(t.position(), undefined);
  });

  it('should refuse an offset read twice', () => {
    const t = new InputTracker('t', { base: 5, done: [] });
    t.read(5);
    assert.throws(() => t.read(5), /read twice/);
  });
});
