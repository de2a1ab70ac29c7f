import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HostTurns } from './host-turns.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
// Gaps are measured as the server would: on a sub-millisecond clock, with no tolerance.
const clock = () => performance.now();

describe('HostTurns', () => {
  it('should send one host\'s requests one at a time, each a delay after the previous ended, from two owners at once', async () => {
    const delay = 120;
    const turns = new HostTurns();
    const start = Date.now();
    const log: { host: string; who: string; beganAt: number; began: number; ended: number }[] = [];
    const request = async (host: string, who: string, takesMs: number, notBefore = 0) => {
      const done = await turns.turn(host, { delayMs: delay, notBefore });
      const beganAt = Date.now();
      const began = clock();
      await sleep(takesMs);
      log.push({ host, who, beganAt, began, ended: clock() });
      done();
    };
    // An old task instance's redone requests and a new instance's, read at once as after a lost
    // commit; the redone ones may not leave before one delay after the new instance started.
    await Promise.all([
      request('a.test', 'old-1', 30, start + delay), request('a.test', 'new-1', 5, start + delay),
      request('b.test', 'other', 5), request('a.test', 'old-2', 5, start + delay), request('a.test', 'new-2', 5),
    ]);
    const a = log.filter((r) => r.host === 'a.test').sort((x, y) => x.began - y.began);
    assert.deepEqual(a.map((r) => r.who), ['old-1', 'new-1', 'old-2', 'new-2'], 'in the order they asked');
    assert.ok(a[0].beganAt - start >= delay, `the first redone request left ${a[0].beganAt - start} ms after the start`);
    for (let i = 1; i < a.length; i++) {
      const gap = a[i].began - a[i - 1].ended;
      assert.ok(gap >= delay, `${a[i].who} began ${gap.toFixed(2)} ms after ${a[i - 1].who} ended, under the ${delay} ms delay`);
    }
    const b = log.find((r) => r.host === 'b.test')!;
    assert.ok(b.beganAt - start < delay, 'another host does not wait for a.test');
    await sleep(delay + 20);
    assert.equal(turns.hosts, 0, 'nothing kept once every host is past its delay');
  });

  it('should let a turn be given up while it waits, never letting the next one overtake the request before it', async () => {
    const delay = 80;
    const turns = new HostTurns();
    const first = await turns.turn('d.test', { delayMs: delay, notBefore: 0 });
    const stop = new AbortController();
    const given = turns.turn('d.test', { delayMs: delay, notBefore: 0 }, stop.signal);
    const next = turns.turn('d.test', { delayMs: delay, notBefore: 0 });
    stop.abort();
    assert.equal(await given, undefined, 'the wait was given up at once');
    let nextAt = 0;
    void next.then(() => (nextAt = Date.now()));
    await sleep(delay * 2);
    assert.equal(nextAt, 0, 'the next turn still waits for the request on the wire');
    const firstEnded = clock();
    first();
    await next;
    assert.ok(clock() - firstEnded >= delay, 'and a delay after it ended');
  });

  it('should let a turn that sent nothing pass without a delay, never shortening the one before it', async () => {
    const delay = 100;
    const turns = new HostTurns();
    const first = await turns.turn('c.test', { delayMs: delay, notBefore: 0 });
    const skipped = turns.turn('c.test', { delayMs: delay, notBefore: 0 });
    const next = turns.turn('c.test', { delayMs: delay, notBefore: 0 });
    const firstEnded = clock();
    first();
    (await skipped)(false);
    const skippedAt = clock();
    await next;
    const nextAt = clock();
    assert.ok(skippedAt - firstEnded >= delay, 'the skipped turn still waited the delay after a request');
    assert.ok(nextAt - firstEnded >= delay, 'so the next one is a delay after the last request');
    assert.ok(nextAt - skippedAt < delay / 2, `and not a second delay after the turn that sent nothing (${nextAt - skippedAt} ms)`);
  });

  it('should give up every turn waiting on one signal, and serve those asked after in order', async () => {
    const delay = 40;
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    const turns = new HostTurns();
    const first = await turns.turn('e.test', { delayMs: delay, notBefore: 0 });
    const task = new AbortController();
    // A fetch task's lease of many URLs waits on one signal: one listener, not one per URL.
    const given = Array.from({ length: 200 }, () => turns.turn('e.test', { delayMs: delay, notBefore: 0 }, task.signal));
    const order: number[] = [];
    const later = [1, 2].map((n) => turns.turn('e.test', { delayMs: delay, notBefore: 0 }).then((done) => (order.push(n), done)));
    task.abort();
    assert.ok((await Promise.all(given)).every((g) => g === undefined), 'every waiting turn of the task was given up');
    const firstEnded = clock();
    first();
    const one = await later[0];
    assert.ok(clock() - firstEnded >= delay, 'the next turn still waits a delay after the request on the wire');
    assert.deepEqual(order, [1], 'one turn at a time');
    const secondEnded = clock();
    one();
    await later[1];
    assert.ok(clock() - secondEnded >= delay);
    assert.deepEqual(order, [1, 2]);
    process.off('warning', onWarning);
    assert.deepEqual(warnings.map((w) => w.name), [], 'one listener per signal, however many wait on it');
  });
});

