import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AddressGate } from './address-gate.js';

describe('address gate', () => {
  it('should let at most N requests to one address run, the rest in arrival order, other addresses apart', async () => {
    const gate = new AddressGate(2);
    const signal = new AbortController().signal;
    const order: string[] = [];
    const a1 = await gate.acquire('10.0.0.1', signal);
    const a2 = await gate.acquire('10.0.0.1', signal);
    const waiting = [gate.acquire('10.0.0.1', signal).then((r) => (order.push('third'), r)), gate.acquire('10.0.0.1', signal).then((r) => (order.push('fourth'), r))];
    const other = await gate.acquire('10.0.0.2', signal);
    assert.equal(gate.busiest, 2);
    await Promise.resolve();
    assert.deepEqual(order, [], 'no third request while two are in flight');
    a1();
    a1(); // giving a place back twice frees it once
    const third = await waiting[0];
    assert.deepEqual(order, ['third']);
    a2();
    const fourth = await waiting[1];
    assert.deepEqual(order, ['third', 'fourth']);
    for (const r of [third, fourth, other]) r();
    assert.equal(gate.busiest, 0);
  });

  it('should let a waiting request go when its task is abandoned, without taking a place', async () => {
    const gate = new AddressGate(1);
    const held = await gate.acquire('10.0.0.1', new AbortController().signal);
    const abort = new AbortController();
    const waiting = gate.acquire('10.0.0.1', abort.signal);
    abort.abort();
    await assert.rejects(waiting, /abandoned/);
    held();
    const next = await gate.acquire('10.0.0.1', new AbortController().signal);
    assert.equal(gate.busiest, 1);
    next();
  });

  it('should give up every waiter of one signal at once, skip them on release, and warn of nothing', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const gate = new AddressGate(1);
      const held = await gate.acquire('10.0.0.1', new AbortController().signal);
      const task = new AbortController();
      const given = Array.from({ length: 50 }, () => gate.acquire('10.0.0.1', task.signal));
      const other = new AbortController();
      const kept = gate.acquire('10.0.0.1', other.signal);
      task.abort();
      const outcomes = await Promise.allSettled(given);
      assert.ok(outcomes.every((o) => o.status === 'rejected'), 'every waiter of the aborted task was told');
      held();
      const next = await kept;
      assert.equal(gate.busiest, 1, 'the place went to the one still waiting, past those given up');
      next();
      assert.equal(gate.busiest, 0);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(warnings.map((w) => w.name), [], 'one listener per signal, however many wait on it');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
