// The fetch task's side of leases, with requests running concurrently as the engine runs them (the
// test driver would run them one after another): a host's leased URLs reach the server one at a time,
// each its delay after the one before it ended, two leases of one host never overlap, and a throttle
// cuts the rest of its generation short. Judged from the server's own log.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ProcessorContext } from '../../engine/api.js';
import { fetchProcessor } from './fetch.js';
import { createFetcher } from '../../crawl/open-services.js';
import { defaultCrawlConfig } from '../../contract/config.js';
import { NO_OBSERVER } from '../../contract/services.js';
import { HostTurns } from '../../politeness/host-turns.js';
import { PLAIN_REQUEST, type FetchRequest, type FetchResult, type UnfetchedUrl } from '../../schemas/records.js';
import { startHttpServer, type TestServer } from '../../fetching/testing/test-servers.js';
import { auditPoliteness } from '../../test-web/politeness-audit.js';
import type { WebRequest } from '../../test-web/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedRuntime } from '../../engine/embedded/embedded-runtime.js';
import { crawlTopology } from '../../crawl/topology.js';
import { testServices } from '../../crawl/testing/crawl-test-driver.js';

const DELAY = 120;
let server: TestServer;
const log: WebRequest[] = [];
let throttle = new Set<string>();

function leased(path: string, lease: string, epoch: number): FetchRequest {
  const host = `${server.host}:${server.port}`;
  return {
    ...PLAIN_REQUEST, fetch_id: `${lease}/${path}`, url: server.url(path), host, kind: 'page', depth: 1, attempt: 1, via: 'link', source_url: '',
    redirect_hops: 0, delay_ms: DELAY, released_at: Date.now(), if_none_match: '', if_modified_since: '', address: server.host,
    lease_id: lease, lease_epoch: epoch,
  };
}

/** The fetch processor as a task runs it: many records at once, each with its own context. */
async function fetchTask() {
  const config = defaultCrawlConfig({ allowNetworks: ['127.0.0.0/8'], fetchTimeoutMs: 5000 });
  const fetcher = createFetcher(config);
  const processor = fetchProcessor.create({ fetcher, config, observer: NO_OBSERVER, hostTurns: new HostTurns() });
  const fetched: FetchResult[] = [];
  const unfetched: UnfetchedUrl[] = [];
  const ctx = {
    processorName: 'fetch', partition: 0, logId: 'test', now: Date.now, logger: { info: () => {}, warn: () => {} },
    metrics: { count: () => {}, gauge: () => {} }, store: () => { throw new Error('no stores'); },
    forward: (topic: string, _key: string, value: unknown) => {
      if (topic === 'fetched') fetched.push(value as FetchResult);
      if (topic === 'unfetched') unfetched.push(value as UnfetchedUrl);
    },
  } as unknown as ProcessorContext<never>;
  await processor.init?.(ctx as never);
  let offset = 0;
  const run = (requests: FetchRequest[]) => Promise.all(requests.map((value) => processor.process(
    { topic: 'resolved', partition: 0, offset: offset++, timestamp: Date.now(), key: value.address, value } as never, ctx as never)));
  return { run, fetched, unfetched, processor, close: () => fetcher.close() };
}

describe('fetch: leases', () => {
  before(async () => {
    server = await startHttpServer('127.0.0.24', (req, res) => {
      const entry: WebRequest = { host: String(req.headers.host), path: req.url ?? '', method: 'GET', userAgent: '', startedAt: Date.now(), endedAt: Infinity, status: 200 };
      log.push(entry);
      setTimeout(() => {
        entry.status = throttle.has(entry.path) ? 429 : 200;
        if (entry.status === 429) entry.retryAfterMs = 1000;
        res.writeHead(entry.status, { 'content-type': 'text/plain', ...(entry.status === 429 ? { 'retry-after': '1' } : {}) });
        res.end('ok', () => (entry.endedAt = Date.now()));
      }, entry.path.startsWith('/slow-answer') ? 400 : 30);
    });
  });
  after(async () => {
    await server.close();
  });

  it('should send a host\'s leased URLs one at a time, in order, each a delay after the last ended, two leases never overlapping', async () => {
    log.length = 0;
    throttle = new Set();
    const task = await fetchTask();
    try {
      // A lease and a second one queued behind it, pinned to the same address: all read at once.
      await task.run([...['/1', '/2', '/3'].map((p) => leased(p, 'h#1', 0)), ...['/4', '/5', '/6'].map((p) => leased(p, 'h#2', 0))]);
      assert.deepEqual(log.map((r) => r.path), ['/1', '/2', '/3', '/4', '/5', '/6'], 'in the leases\' order');
      assert.deepEqual(auditPoliteness(log, () => DELAY, { toleranceMs: 2 }), [], 'no overlap, no gap under the delay');
      for (let i = 1; i < log.length; i++) {
        const gap = log[i].startedAt - log[i - 1].endedAt;
        assert.ok(gap >= DELAY - 2, `${log[i].path} began ${gap} ms after ${log[i - 1].path} ended`);
        assert.ok(gap < DELAY + 500, `and without idling (${gap} ms)`);
      }
      assert.deepEqual(task.fetched.map((r) => [r.lease_id, r.address, r.status]), [
        ['h#1', server.host, 200], ['h#1', server.host, 200], ['h#1', server.host, 200],
        ['h#2', server.host, 200], ['h#2', server.host, 200], ['h#2', server.host, 200],
      ]);
    } finally {
      await task.close();
    }
  });

  it('should give back the rest of a throttled generation unsent, and send a newer generation\'s requests', async () => {
    log.length = 0;
    throttle = new Set(['/2']);
    const task = await fetchTask();
    try {
      await task.run([...['/1', '/2', '/3'].map((p) => leased(p, 'h#3', 4)), ...['/4', '/5'].map((p) => leased(p, 'h#4', 4))]);
      assert.deepEqual(log.map((r) => r.path), ['/1', '/2'], 'the server saw nothing after its 429');
      assert.deepEqual(task.fetched.map((r) => [new URL(r.url).pathname, r.status]), [['/1', 200], ['/2', 429]]);
      assert.deepEqual(task.unfetched.map((u) => [new URL(u.url).pathname, u.reason, u.lease_id, u.lease_epoch]), [
        ['/3', 'lease-cut', 'h#3', 4], ['/4', 'lease-cut', 'h#4', 4], ['/5', 'lease-cut', 'h#4', 4],
      ]);
      // Released after the schedule learnt of the 429 (its backoff passed meanwhile): a new generation.
      await task.run([leased('/6', 'h#5', 5)]);
      assert.deepEqual(log.map((r) => r.path), ['/1', '/2', '/6']);
    } finally {
      await task.close();
    }
  });

  it('should let a request on the wire be answered when the task is handed over, and give back unsent what waits for its turn', async () => {
    log.length = 0;
    throttle = new Set();
    const task = await fetchTask();
    try {
      const done = task.run(['/slow-answer', '/2', '/3'].map((p) => leased(p, 'h#6', 0)));
      for (let i = 0; i < 300 && log.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(log.length, 1, 'the first request is on the wire');
      task.processor.handingOver?.();
      await done;
      assert.deepEqual(log.map((r) => r.path), ['/slow-answer'], 'nothing left after the hand-over began');
      assert.deepEqual(task.fetched.map((r) => [new URL(r.url).pathname, r.status]), [['/slow-answer', 200]], 'the request on the wire was answered and recorded');
      assert.deepEqual(task.unfetched.map((u) => [new URL(u.url).pathname, u.reason]), [['/2', 'hand-over'], ['/3', 'hand-over']]);
    } finally {
      await task.close();
    }
  });

  it('should not let one host\'s long leases crowd another host of the same task out of its requests', async () => {
    log.length = 0;
    throttle = new Set();
    const dataDir = mkdtempSync(join(tmpdir(), 'fetch-leases-'));
    const config = { allowNetworks: ['127.0.0.0/8'], fetchTimeoutMs: 5000 };
    const services = testServices(config);
    const fetcher = createFetcher(services.config);
    const runtime = await EmbeddedRuntime.open({
      dataDir, topology: crawlTopology(), processors: ['fetch'], partitions: 1, services: { ...services, fetcher, hostTurns: new HostTurns() },
      logger: { info: () => {}, warn: () => {} },
    });
    try {
      await runtime.start();
      // 200 URLs of one host, released as leases, 50 ms apart at the server: ten seconds of pacing.
      const slow = (i: number) => ({ ...leased(`/slow/${i}`, `slow#${Math.floor(i / 32)}`, 0), delay_ms: 50 });
      for (let i = 0; i < 200; i++) await runtime.produce('resolved', server.host, slow(i));
      const other = { ...leased('/other', 'other#1', 0), host: `localhost:${server.port}`, url: `http://localhost:${server.port}/other` };
      const asked = Date.now();
      await runtime.produce('resolved', server.host, other);
      for (let i = 0; i < 300 && !log.some((r) => r.path === '/other'); i++) await new Promise((r) => setTimeout(r, 10));
      const at = log.find((r) => r.path === '/other')?.startedAt;
      assert.ok(at !== undefined && at - asked < 1500, `the other host's request left ${at === undefined ? 'never' : `${at - asked} ms`} after it was read`);
    } finally {
      // A 429 cuts the slow host's leases short: the rest comes back at once and the task can stop.
      throttle = new Set(Array.from({ length: 200 }, (_, i) => `/slow/${i}`));
      await runtime.stop().catch(() => undefined);
      await fetcher.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
