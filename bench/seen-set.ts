// The in-memory part of the seen-set at scale: node --expose-gc dist/bench/seen-set.js [urls]
// Adds `urls` (default 10 million) canonical-looking URLs to the dedup stage's SeenFilter, whose
// rebuilds read the exact set back (here regenerated from the same URL list, as LevelDB would hand it
// over), then measures lookups of present and absent URLs. RAM per URL is the filter's bytes / URLs; the
// process's heap + external growth is reported as a cross-check, and the peak while a rebuild holds two
// filters. The exact 64-bit set lives in LevelDB on disk and is not part of these numbers. Prints one JSON line.
import { fingerprint64 } from '../url/fingerprint.js';
import { SeenFilter } from '../stages/dedup/seen-filter.js';

const urls = Number(process.argv[2] ?? 10_000_000);
const url = (i: number) => `http://127.${20 + (i >>> 24)}.${(i >>> 16) & 0xff}.${(i >>> 8) & 0xff}:41234/p/${i & 0xff}/${i}`;
const gc = (globalThis as { gc?: () => void }).gc;
const tick = () => new Promise((r) => setImmediate(r));

async function memory(): Promise<{ heap: number; external: number; rss: number }> {
  // Twice, with a pause: array buffers of dropped filters are freed after the collection that finds them.
  gc?.();
  await new Promise((r) => setTimeout(r, 100));
  gc?.();
  const m = process.memoryUsage();
  // arrayBuffers is already part of external.
  return { heap: m.heapUsed, external: m.external, rss: m.rss };
}

let added = 0;
const before = await memory();
// What a rebuild reads from the exact set: every fingerprint added so far.
const seen = new SeenFilter(async (add) => {
  const upTo = added;
  for (let i = 0; i < upTo; i++) {
    const f = fingerprint64(url(i));
    add(f.hi, f.lo);
    if ((i & 0xffff) === 0xffff) await tick();
  }
});
let peakBytes = 0;
const t0 = process.hrtime.bigint();
for (let i = 0; i < urls; i++) {
  const { hi, lo } = fingerprint64(url(i));
  seen.add(hi, lo);
  added++;
  // Dedup yields between records; let a running rebuild make progress as it would there.
  if ((i & 0x3fff) === 0x3fff) {
    peakBytes = Math.max(peakBytes, seen.bytes);
    await tick();
  }
}
await seen.rebuilt();
const addSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
const after = await memory();

// Lookups: half present, half never added; fingerprinting is included, as dedup pays it.
const probes = Math.min(2_000_000, urls);
let falsePositives = 0;
const t1 = process.hrtime.bigint();
for (let i = 0; i < probes; i++) {
  const present = (i & 1) === 0;
  const { hi, lo } = fingerprint64(present ? url((i * 2654435761) % urls) : `http://absent.invalid/${i}`);
  if (seen.mightContain(hi, lo) && !present) falsePositives++;
}
const lookupSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
const fps = Array.from({ length: 1_000_000 }, (_, i) => fingerprint64(url((i * 7919) % urls)));
let hits = 0;
const t2 = process.hrtime.bigint();
for (let r = 0; r < 2; r++) for (const f of fps) if (seen.mightContain(f.hi, f.lo)) hits++;
const bareSeconds = Number(process.hrtime.bigint() - t2) / 1e9;

process.stdout.write(`${JSON.stringify({
  urls,
  bloomBytes: seen.bytes,
  bloomBytesPerUrl: Math.round((seen.bytes / urls) * 1000) / 1000,
  peakBloomBytesPerUrlDuringRebuild: Math.round((Math.max(peakBytes, seen.bytes) / urls) * 1000) / 1000,
  heapGrowthBytesPerUrl: Math.round(((after.heap - before.heap + after.external - before.external) / urls) * 1000) / 1000,
  heapGrowthDetail: { heapBytes: after.heap - before.heap, externalBytes: after.external - before.external },
  rssGrowthBytesPerUrl: Math.round(((after.rss - before.rss) / urls) * 1000) / 1000,
  addsPerSecond: Math.round(urls / addSeconds),
  lookupsPerSecond: Math.round(probes / lookupSeconds),
  lookupsPerSecondWithoutFingerprint: Math.round(2_000_000 / bareSeconds),
  falsePositiveRate: Math.round((falsePositives / (probes / 2)) * 10_000) / 10_000,
  presentFound: hits === 2_000_000,
  gcExposed: gc !== undefined,
})}\n`);
