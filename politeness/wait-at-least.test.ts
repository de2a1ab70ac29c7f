import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitAtLeast } from './wait-at-least.js';

describe('waitAtLeast', () => {
  it('should wait the whole time even when the timer fires early, as Node\'s whole-millisecond timers do', async () => {
    // A timer that fires at 60 % of what it was asked for: a plain setTimeout would end the wait short.
    const early = (resolve: () => void, ms: number) => setTimeout(resolve, Math.max(1, Math.floor(ms * 0.6)));
    let fired = 0;
    const counting = (resolve: () => void, ms: number) => {
      fired++;
      early(resolve, ms);
    };
    const started = performance.now();
    await waitAtLeast(30, () => performance.now(), counting);
    assert.ok(performance.now() - started >= 30, `waited ${(performance.now() - started).toFixed(2)} ms of 30`);
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
