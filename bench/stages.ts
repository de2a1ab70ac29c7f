// Per-record cost of each stage, in one process: node dist/bench/stages.js [--quick]
// Prints one JSON line of µs per record (and the sink's rows/s). "driver" numbers go through the
// broker-free TopologyTestDriver, which Avro-encodes every hop and commits after every record; the
// driver's own cost is measured with a pass-through processor and reported as `driverBaseline`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { MemoryLevel } from 'memory-level';
import { benchSink } from '../clickhouse/sink.bench.js';
import { seenSetStore } from '../stages/dedup/dedup.js';
import { TopologyTestDriver } from '../engine/test-driver/topology-test-driver.js';
import { LocalSchemaRegistry } from '../engine/avro/local-schema-registry.js';
import { NO_HINTS, PLAIN_REQUEST, PLAIN_RESULT, type CanonicalUrl, type DiscoveredUrl, type FetchRequest, type FetchResult } from '../schemas/records.js';
import { loadSchema } from '../schemas/schema-files.js';
import { TopicCodecs } from '../engine/avro/topic-codecs.js';
import { SeenFilter } from '../stages/dedup/seen-filter.js';
import { fingerprint64 } from '../url/fingerprint.js';
import { LevelStore, type BinaryDb } from '../engine/stores/level-store.js';
import { bucketsOfPartition } from '../engine/partitioning.js';
import { defineProcessor, defineTopic, TopologyBuilder } from '../engine/api.js';
import { crawlTestDriver } from '../crawl/testing/crawl-test-driver.js';
import { canonicalize } from '../url/canonicalize.js';
import { trapReason } from '../url/traps.js';
import { leaseRequests } from '../politeness/leases.js';

const quick = process.argv.includes('--quick');
const scale = quick ? 0.2 : 1;
const PORT = 41234;
const origin = (h: number) => `http://127.20.${(h >> 8) & 0xff}.${(h & 0xff) + 1}:${PORT}`;

function round(n: number, d = 2): number {
  return Math.round(n * 10 ** d) / 10 ** d;
}

/** µs per call of `fn(i)` over n calls after a warm-up of n/10. */
function micros(n: number, fn: (i: number) => unknown): number {
  for (let i = 0; i < Math.ceil(n / 10); i++) fn(i);
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  return round(Number(process.hrtime.bigint() - t) / 1000 / n, 3);
}

async function microsAsync(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn(i);
  return round(Number(process.hrtime.bigint() - t) / 1000 / n, 2);
}

/** Links as the parse stage emits them for a bench page: absolute, 23 on the page's host, 2 elsewhere. */
function benchLinks(count: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const host = i % 200;
    const cross = i % 25 >= 23;
    out.push(`${origin(cross ? (host * 7 + 13) % 200 : host)}/p/${(i * 2654435761) % 50}`);
  }
  return out;
}

function discovered(url: string): DiscoveredUrl {
  return { url, source_url: `${origin(3)}/p/17`, depth: 2, anchor: 'link 7', via: 'link', redirect_hops: 0, discovered_at: Date.now(), ...NO_HINTS, more: [] };
}

function canonical(url: string, host: string): CanonicalUrl {
  return { url, host, depth: 2, source_url: `${origin(3)}/p/17`, via: 'link', redirect_hops: 0, discovered_at: 1_700_000_000_000, ...NO_HINTS, inlinks: 1, more: [] };
}

function normalizeDirect(): object {
  const links = benchLinks(10_000);
  const opts = { maxRepeatedPathSegments: 3, maxQueryParams: 12 };
  const us = micros(Math.round(300_000 * scale), (i) => {
    const c = canonicalize(links[i % links.length], { maxLength: 2048 });
    return c.ok && trapReason(c.url, opts);
  });
  return { microsPerUrl: us, what: 'canonicalize + trapReason on absolute bench links' };
}

/** A driver over a one-processor topology that forwards every record unchanged: the driver's own cost. */
async function driverBaseline(n: number): Promise<number> {
  const topic = <N extends string>(name: N) =>
    defineTopic<DiscoveredUrl>()({ name, key: 'host', schema: loadSchema('discovered-url'), retention: 'until-consumed', maxRecordBytes: 1 << 20, description: name });
  const [input, output] = [topic('in'), topic('out')];
  const pass = defineProcessor({
    name: 'pass', description: 'forwards', inputs: [input], outputs: [output], stores: [], delivery: 'n/a',
    create: () => ({ process: (r, ctx) => ctx.forward('out', r.key, r.value) }),
  });
  const topology = new TopologyBuilder().topic(input).topic(output).processor(pass).build();
  const d = await TopologyTestDriver.create({ topology, services: {} });
  const links = benchLinks(1000);
  const us = await microsAsync(n, async (i) => {
    await d.pipe('in', '127.20.0.1:41234', discovered(links[i % links.length]));
    if (i % 1000 === 999) d.readOutput('out');
  });
  await d.close();
  return us;
}

async function normalizeDriver(n: number): Promise<number> {
  const d = await crawlTestDriver({ processors: ['normalize'] });
  const links = benchLinks(1000);
  const us = await microsAsync(n, async (i) => {
    await d.pipe('discovered-urls', '127.20.0.1:41234', discovered(links[i % links.length]));
    if (i % 1000 === 999) d.readOutput('normalized');
  });
  await d.close();
  return us;
}

/** A dedup workload shaped like the bench crawl: ~25 links per page, so ~4 % of URLs are new. */
function dedupWorkload(n: number): { url: string; host: string }[] {
  const out: { url: string; host: string }[] = [];
  let distinct = 0;
  let x = 12345;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const fresh = distinct === 0 || x % 100 < 4;
    const k = fresh ? distinct++ : x % distinct;
    const host = `127.20.${(k >> 8) & 0x3f}.${(k & 0xff) + 1}:${PORT}`;
    out.push({ url: `http://${host}/p/${k}`, host });
  }
  return out;
}

async function dedupDirect(): Promise<object> {
  const dir = mkdtempSync(join(tmpdir(), 'crawlstream-bench-dedup-'));
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  const store = new LevelStore(db as unknown as BinaryDb, seenSetStore, bucketsOfPartition(0, 1));
  const bloom = await SeenFilter.load(async (add) => {
    for await (const [k] of store.entries()) add(k.hi, k.lo);
  });
  const work = dedupWorkload(Math.round(400_000 * scale));
  let fresh = 0;
  const commit = async () => {
    const writes = store.takeWrites();
    await db.batch(writes.map((w) => (w.value === null ? { type: 'del' as const, key: w.key } : { type: 'put' as const, key: w.key, value: w.value })));
    store.writesCommitted();
  };
  const t = process.hrtime.bigint();
  for (let i = 0; i < work.length; i++) {
    const { url, host } = work[i];
    const { hi, lo } = fingerprint64(url);
    const key = { host, hi, lo };
    if (bloom.mightContain(hi, lo) && store.get(key) !== undefined) continue;
    bloom.add(hi, lo);
    store.put(key, { found: 1, best: -1 });
    fresh++;
    if (i % 1000 === 999) await commit();
  }
  await commit();
  const us = round(Number(process.hrtime.bigint() - t) / 1000 / work.length, 3);
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  return { microsPerUrl: us, urls: work.length, newShare: round(fresh / work.length, 3), what: 'fingerprint + Bloom + LevelStore over LevelDB (level), commit per 1000' };
}

async function dedupDriver(n: number): Promise<number> {
  const d = await crawlTestDriver({ processors: ['dedup'] });
  const work = dedupWorkload(n);
  const us = await microsAsync(n, async (i) => {
    await d.pipe('normalized', work[i].host, canonical(work[i].url, work[i].host));
    if (i % 1000 === 999) d.readOutput('deduped');
  });
  await d.close();
  return us;
}

function completion(req: FetchRequest, now: number, body: Buffer): FetchResult {
  return {
    ...PLAIN_RESULT,
    fetch_id: req.fetch_id, url: req.url, host: req.host, kind: req.kind, depth: req.depth, attempt: req.attempt,
    via: req.via, source_url: req.source_url, redirect_hops: req.redirect_hops, status: 200, error: '',
    final_url: req.url, redirect_chain: [], headers: { 'content-type': 'text/html; charset=utf-8' }, started_at: now - 5,
    elapsed_ms: 5, ttfb_ms: 2, bytes: body.length, wire_bytes: body.length, content_type: 'text/html', charset: 'utf-8',
    truncated: false, retry_after_ms: 0, conditional: false, remote_address: '127.0.0.1', body_encoding: 'identity', body,
    lease_id: req.lease_id, lease_epoch: req.lease_epoch, address: '127.0.0.1',
  };
}

/** Schedule through the driver: URLs admitted, robots.txt read, then lease → one completion per URL until drained. */
async function scheduleDriver(hosts: number, pagesPerHost: number): Promise<object> {
  const d = await crawlTestDriver({ processors: ['schedule'], config: { defaultDelayMs: 0 } });
  const robots = Buffer.from('User-agent: *\nAllow: /\n');
  const t = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  let leases = 0;
  for (let p = 0; p < pagesPerHost; p++) {
    for (let h = 0; h < hosts; h++) {
      const o = origin(h);
      await d.pipe('deduped', o.slice(7), canonical(`${o}${p === 0 ? '/' : `/p/${p}`}`, o.slice(7)));
    }
  }
  let released = 0;
  // Every URL is released at delay 0 within moments of driver time; far past that, the completions
  // are not reaching the scheduler (as when it moved to fetch-reports and this loop spun for ever).
  const giveUpAt = d.now + 10 * 60_000;
  for (;;) {
    const out = d.readOutput('scheduled');
    if (out.length === 0) {
      if (d.now > giveUpAt) throw new Error(`schedule still had work after 10 minutes of driver time (${released} fetches released): its completions do not reach it`);
      await d.advanceTime(1);
      if (!d.hasPendingWork('schedule')) break;
      continue;
    }
    for (const r of out) {
      leases++;
      for (const req of leaseRequests(r.value)) {
        if (req.kind === 'page') released++;
        await d.pipe('fetch-reports', r.key, completion(req, d.now, req.kind === 'robots' ? robots : Buffer.alloc(0)));
      }
    }
  }
  const us = round(Number(process.hrtime.bigint() - t) / 1000 / released, 2);
  const used = process.cpuUsage(cpu);
  await d.close();
  return {
    microsPerReleasedFetch: us, cpuMicrosPerReleasedFetch: round((used.user + used.system) / released, 2), released, leases, hosts,
    what: 'deduped in + scheduled (leases) out + one fetch report per URL in, per page',
  };
}

async function avro(): Promise<object> {
  const db = new MemoryLevel<string, string>();
  await db.open();
  const codecs = new TopicCodecs(new LocalSchemaRegistry(db as never));
  await codecs.addTopic('discovered-urls', loadSchema('discovered-url'));
  await codecs.addTopic('fetched', loadSchema('fetch-result'));
  const url = discovered(`${origin(9)}/p/42`);
  const body = Buffer.alloc(18 * 1024, 'x');
  const fetched = completion({ ...PLAIN_REQUEST,
    fetch_id: 'f-123456', url: `${origin(9)}/p/42`, host: origin(9).slice(7), kind: 'page', depth: 2, attempt: 1, via: 'link',
    source_url: `${origin(9)}/p/5`, redirect_hops: 0, delay_ms: 0, released_at: 0, if_none_match: '', if_modified_since: '',
  }, Date.now(), body);
  const n = Math.round(200_000 * scale);
  const encodedUrl = codecs.encode('discovered-urls', url);
  const encodedFetched = codecs.encode('fetched', fetched);
  const result = {
    discoveredUrl: {
      bytes: encodedUrl.length,
      encodeMicros: micros(n, () => codecs.encode('discovered-urls', url)),
      decodeMicros: micros(n, () => codecs.decode('discovered-urls', encodedUrl)),
    },
    fetched18KB: {
      bytes: encodedFetched.length,
      encodeMicros: micros(n / 4, () => codecs.encode('fetched', fetched)),
      decodeMicros: micros(n / 4, () => codecs.decode('fetched', encodedFetched)),
    },
  };
  await db.close();
  return result;
}

async function levelStore(): Promise<object> {
  const dir = mkdtempSync(join(tmpdir(), 'crawlstream-bench-level-'));
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  const store = new LevelStore(db as unknown as BinaryDb, seenSetStore, bucketsOfPartition(0, 1));
  const n = Math.round(200_000 * scale);
  const keys = Array.from({ length: n }, (_, i) => ({ host: `127.20.0.${(i % 200) + 1}:${PORT}`, ...fingerprint64(`k${i}`) }));
  const put = micros(n, (i) => store.put(keys[i % n], { found: 1, best: -1 }));
  const pending = micros(n, (i) => store.get(keys[i % n]));
  let t = process.hrtime.bigint();
  const writes = store.takeWrites();
  await db.batch(writes.map((w) => ({ type: 'put' as const, key: w.key, value: w.value ?? Buffer.alloc(0) })));
  store.writesCommitted();
  const commitMicrosPerWrite = round(Number(process.hrtime.bigint() - t) / 1000 / writes.length, 3);
  const hit = micros(n, (i) => store.get(keys[(i * 7919) % n]));
  const miss = micros(n, (i) => store.get({ host: keys[i % n].host, hi: i, lo: 7 }));
  // Small commits, as a busy task makes them: 100 puts per batch.
  t = process.hrtime.bigint();
  for (let b = 0; b < 200; b++) {
    for (let i = 0; i < 100; i++) store.put(keys[(b * 100 + i) % n], { found: 1, best: -1 });
    const w = store.takeWrites();
    await db.batch(w.map((x) => ({ type: 'put' as const, key: x.key, value: x.value ?? Buffer.alloc(0) })));
    store.writesCommitted();
  }
  const commit100 = round(Number(process.hrtime.bigint() - t) / 1000 / 200, 1);
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    putMicros: put,
    getFromOverlayMicros: pending,
    getHitMicros: hit,
    getMissMicros: miss,
    commitMicrosPerWrite,
    commitOf100PutsMicros: commit100,
    entries: n,
  };
}

const t0 = performance.now();
const baseline = await driverBaseline(Math.round(20_000 * scale));
const result = {
  normalize: { ...normalizeDirect(), driverMicrosPerRecord: await normalizeDriver(Math.round(20_000 * scale)) },
  dedup: { ...(await dedupDirect()), driverMicrosPerRecord: await dedupDriver(Math.round(20_000 * scale)) },
  schedule: await scheduleDriver(quick ? 40 : 100, quick ? 10 : 25),
  driverBaseline: { microsPerRecord: baseline, what: 'TopologyTestDriver with a pass-through processor: Avro both ways + a memory-level commit per record' },
  avro: await avro(),
  levelStore: await levelStore(),
  sink: await benchSink({ records: Math.round(100_000 * scale), partitions: 4, serverUrl: process.env.CLICKHOUSE_URL || undefined }),
  seconds: Math.round((performance.now() - t0) / 100) / 10,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
