// test-plan: unit ~20s
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SeenFilter } from './seen-filter.js';
import { fingerprint64, type Fingerprint } from '../../url/fingerprint.js';

const urlFingerprints = (prefix: string, n: number): Fingerprint[] =>
  Array.from({ length: n }, (_, i) => fingerprint64(`http://h${i % 997}.test/${prefix}/${i}`));

/** xorshift32: fast, deterministic 32-bit values for the 10-million-entry fill. */
function xorshift(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>>= 0);
  };
}

/**
 * A seen-filter whose "seen-set" is an in-memory list, fed the way dedup feeds it (yielding now and
 * then). The list is packed in 32-bit words: ten million entries as arrays kept the test busy with
 * the garbage collector for most of its 24 s.
 */
async function seenFilterOf(entries: Iterable<[number, number]>): Promise<{ filter: SeenFilter; count: number }> {
  let added = new Uint32Array(1 << 16);
  let n = 0;
  const filter = new SeenFilter(async (add) => {
    for (let i = 0; i < n; i += 2) add(added[i], added[i + 1]);
  });
  for (const [h1, h2] of entries) {
    if (n + 2 > added.length) {
      const bigger = new Uint32Array(added.length * 2);
      bigger.set(added);
      added = bigger;
    }
    added[n++] = h1;
    added[n++] = h2;
    filter.add(h1, h2);
    if ((n / 2) % 10_000 === 0) await filter.rebuilt();
  }
  await filter.rebuilt();
  return { filter, count: n / 2 };
}

let million: { filter: SeenFilter; added: Fingerprint[] } | undefined;
async function filterOfOneMillion() {
  if (!million) {
    const added = urlFingerprints('seen', 1_000_000);
    const { filter } = await seenFilterOf(added.map((f): [number, number] => [f.hi, f.lo]));
    million = { filter, added };
  }
  return million;
}

describe('SeenFilter', () => {
  it('should never report an added fingerprint as new, over one million of them', async () => {
    const { filter, added } = await filterOfOneMillion();
    assert.equal(filter.count, 1_000_000);
    let missing = 0;
    for (const f of added) if (!filter.mightContain(f.hi, f.lo)) missing++;
    assert.equal(missing, 0);
  });

  it('should report fewer than 5 % of new fingerprints as maybe seen, at one million entries', async (t) => {
    const { filter } = await filterOfOneMillion();
    const fresh = urlFingerprints('fresh', 1_000_000);
    let falsePositives = 0;
    for (const f of fresh) if (filter.mightContain(f.hi, f.lo)) falsePositives++;
    const rate = falsePositives / fresh.length;
    t.diagnostic(`false-positive rate at 1M entries: ${(rate * 100).toFixed(2)} % (${filter.bytes} bytes)`);
    assert.ok(rate < 0.05, `false-positive rate ${(rate * 100).toFixed(2)} % at 1M entries`);
  });

  it('should hold at most 2 bytes per entry at ten million entries', async (t) => {
    const next = xorshift(0x2545f491);
    const n = 10_000_000;
    function* entries(): Generator<[number, number]> {
      for (let i = 0; i < n; i++) yield [next(), next()];
    }
    const { filter } = await seenFilterOf(entries());
    const perEntry = filter.bytes / n;
    let fp = 0;
    const probes = 200_000;
    const fresh = xorshift(0x9e3779b9);
    for (let i = 0; i < probes; i++) if (filter.mightContain(fresh(), fresh())) fp++;
    t.diagnostic(`at 10M entries: ${perEntry.toFixed(3)} bytes/entry (${(filter.bytes / 2 ** 20).toFixed(1)} MiB), false positives ${((fp / probes) * 100).toFixed(2)} %`);
    assert.ok(perEntry <= 2, `${perEntry.toFixed(3)} bytes per entry`);
    assert.ok(fp / probes < 0.05, `false positives ${((fp / probes) * 100).toFixed(2)} % at 10M`);
  });

  it('should start small and grow with the entries it holds', async () => {
    const { filter: empty } = await seenFilterOf([]);
    assert.ok(empty.bytes <= 70_000, `an empty filter takes ${empty.bytes} bytes`);
    const { filter } = await seenFilterOf(urlFingerprints('grow', 200_000).map((f): [number, number] => [f.hi, f.lo]));
    assert.ok(filter.bytes > empty.bytes && filter.bytes <= 200_000 * 2, `${filter.bytes} bytes for 200,000 entries`);
  });
});
