import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitAtLeast } from './wait-at-least.js';

describe('waitAtLeast', () => {
  it('should wait the whole time even when the timer fires early, as Node\'s whole-millisecond timers do', async () => {
    // A timer that fires at 60 % of what it was asked for: a plain setTimeout would end the wait short.
    // On a clock of its own, so that a loaded machine (a timer firing late) cannot make it pass by luck.
    let now = 5_000;
    let fired = 0;
    const early = (resolve: () => void, ms: number) => {
      fired++;
      now += Math.max(1, Math.floor(ms * 0.6));
      resolve();
    };
    const started = now;
    await waitAtLeast(30, () => now, early);
    assert.ok(now - started >= 30, `waited ${now - started} ms of 30`);
    assert.ok(fired > 1, 'it waited again for what was left');
  });

  it('should not wait at all for nothing, a negative time or NaN', async () => {
    let fired = 0;
    const timer = (resolve: () => void) => {
      fired++;
      resolve();
    };
    for (const ms of [0, -5, Number.NaN]) await waitAtLeast(ms, () => performance.now(), timer);
    assert.equal(fired, 0);
  });

  it('should go by the clock it is given', async () => {
    let now = 1000;
    const timer = (resolve: () => void, ms: number) => {
      now += ms / 2; // a clock that moves half as far as asked each time
      resolve();
    };
    await waitAtLeast(8, () => now, timer);
    assert.ok(now >= 1008, `ended at ${now}`);
  });
});
