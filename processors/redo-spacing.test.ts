import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RedoSpacing } from './redo-spacing.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('RedoSpacing', () => {
  it('should send a host\'s redone requests one at a time, each a delay after the previous ended, the first a delay after the start', async () => {
    const delay = 120;
    const start = Date.now();
    const spacing = new RedoSpacing(start);
    const log: { host: string; i: number; began: number; ended: number }[] = [];
    // Three redone requests to one host and one to another, all read at once, as after a restart.
    const request = async (host: string, i: number, takesMs: number) => {
      const done = await spacing.turn(host, delay);
      const began = Date.now();
      await sleep(takesMs);
      log.push({ host, i, began, ended: Date.now() });
      done();
    };
    await Promise.all([request('a.test', 0, 30), request('a.test', 1, 5), request('b.test', 0, 5), request('a.test', 2, 5)]);
    const a = log.filter((r) => r.host === 'a.test').sort((x, y) => x.began - y.began);
    assert.deepEqual(a.map((r) => r.i), [0, 1, 2], 'in the order they were read');
    assert.ok(a[0].began - start >= delay - 2, `first a.test request ${a[0].began - start} ms after the start`);
    for (let i = 1; i < a.length; i++) {
      const gap = a[i].began - a[i - 1].ended;
      assert.ok(gap >= delay - 2, `a.test request ${i} began ${gap} ms after request ${i - 1} ended, under the ${delay} ms delay`);
    }
    const b = log.find((r) => r.host === 'b.test')!;
    assert.ok(b.began < a[1].began, 'another host does not wait for a.test');
    await sleep(delay + 20);
    assert.equal(spacing.hosts, 0, 'nothing kept once every host is past its delay');
  });
});
