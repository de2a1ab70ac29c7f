import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SeenCache } from './seen-cache.js';
import { fingerprint64 } from '../../url/fingerprint.js';

describe('seen cache', () => {
  it('should answer what was last set for a fingerprint, including fingerprints past 2^31', () => {
    const c = new SeenCache(8);
    c.set(0xffffffff, 0x80000001, { found: 7, best: 31 });
    assert.deepEqual(c.get(0xffffffff, 0x80000001), { found: 7, best: 31 });
    c.set(0xffffffff, 0x80000001, { found: 8, best: -1 });
    assert.deepEqual(c.get(0xffffffff, 0x80000001), { found: 8, best: -1 });
  });

  it('should never answer for a URL it does not hold, when URLs share a slot', () => {
    const c = new SeenCache(1); // two slots: most URLs collide
    const urls = Array.from({ length: 200 }, (_, i) => fingerprint64(`http://a.test/${i}`));
    for (const [i, f] of urls.entries()) c.set(f.hi, f.lo, { found: i + 1, best: -1 });
    let held = 0;
    for (const [i, f] of urls.entries()) {
      const got = c.get(f.hi, f.lo);
      if (got === undefined) continue;
      held++;
      assert.equal(got.found, i + 1, 'a slot answers only for the URL that last took it');
    }
    assert.ok(held <= 2, `two slots hold at most two URLs, held ${held}`);
    assert.equal(c.get(1, 2), undefined);
  });

  it('should forget everything when cleared', () => {
    const c = new SeenCache(4);
    c.set(1, 2, { found: 3, best: 0 });
    c.clear();
    assert.equal(c.get(1, 2), undefined);
  });
});
