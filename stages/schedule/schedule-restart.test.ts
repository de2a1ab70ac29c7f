// A lease whose report is lost across a restart (kill -9, then a damaged segment that held it) must not
// wedge its host: on the embedded runtime with its real data directory and a manual clock, the schedule
// is stopped with a lease out and no report coming, started again, and the host resumes after the guard.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedRuntime } from '../../engine/embedded/embedded-runtime.js';
import { crawlTopology } from '../../crawl/topology.js';
import { testServices } from '../../crawl/testing/crawl-test-driver.js';
import { NO_HINTS, PLAIN_RESULT, type CanonicalUrl, type FetchResult } from '../../schemas/records.js';
import { hostsStore, type HostState } from './host-state.js';

const HOST = '127.0.0.9:8080';
const ORIGIN = `http://${HOST}`;
const DELAY = 1000;
const FETCH_TIMEOUT = 1000;

function url(path: string): CanonicalUrl {
  return { url: `${ORIGIN}${path}`, host: HOST, depth: 1, source_url: '', via: 'link', redirect_hops: 0, discovered_at: 0, ...NO_HINTS, inlinks: 1, more: [] };
}

function robotsFetched(leaseId: string, at: number): FetchResult {
  const body = Buffer.from('User-agent: *\nAllow: /\n');
  return {
    ...PLAIN_RESULT, fetch_id: leaseId, url: `${ORIGIN}/robots.txt`, host: HOST, kind: 'robots', depth: 0, attempt: 1, via: 'seed', source_url: '',
    redirect_hops: 0, status: 200, error: '', final_url: `${ORIGIN}/robots.txt`, redirect_chain: [], headers: {}, started_at: at - 5, elapsed_ms: 5,
    ttfb_ms: 2, bytes: body.length, wire_bytes: body.length, content_type: 'text/plain', charset: '', truncated: false, retry_after_ms: 0,
    conditional: false, remote_address: '', body_encoding: 'identity', body, lease_id: leaseId, lease_epoch: 0, address: '127.0.0.9',
  };
}

describe('schedule across a restart', () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('should release a host again after the guard when its lease\'s report was lost with the process', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'schedule-restart-'));
    dirs.push(dataDir);
    let now = Date.UTC(2026, 0, 1);
    const warnings: string[] = [];
    const open = async () => {
      const runtime = await EmbeddedRuntime.open({
        dataDir, topology: crawlTopology(), processors: ['schedule'], partitions: 1, clock: () => now,
        services: testServices({ defaultDelayMs: DELAY, fetchTimeoutMs: FETCH_TIMEOUT, sitemaps: false }),
        logger: { info: () => {}, warn: (m) => warnings.push(m) },
      });
      await runtime.start();
      return runtime;
    };
    const hostState = (runtime: Awaited<ReturnType<typeof open>>): HostState | undefined =>
      runtime.tasks.find((t) => t.node.name === 'schedule')!.storeOf(hostsStore).get(HOST);
    const until = async (what: string, ok: () => boolean) => {
      for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
      assert.ok(ok(), what);
    };

    let runtime = await open();
    await runtime.produce('deduped', HOST, url('/a'));
    await until('robots.txt leased', () => hostState(runtime)?.leases.open[0]?.kind === 'robots');
    await runtime.produce('fetch-reports', HOST, robotsFetched(hostState(runtime)!.leases.open[0].id, now));
    await until('robots.txt read', () => hostState(runtime)?.robots.status === 'rules');
    now += DELAY;
    await until('/a leased', () => hostState(runtime)?.leases.open[0]?.kind === 'urls');
    const lost = hostState(runtime)!.leases.open[0].id;
    // The process dies with the lease out; its report never comes (the segment that held it was cut).
    await runtime.stop();

    now += 10 * 60_000;
    runtime = await open();
    try {
      assert.deepEqual(hostState(runtime)!.leases.open.map((l) => l.id), [lost], 'the lease is still out after the restart');
      // The guard counts from the restart: the fetch task may still report or give back what it had.
      now += DELAY + 2 * FETCH_TIMEOUT + 60_000 - 1;
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(hostState(runtime)!.leases.open.map((l) => l.id), [lost], 'not before the guard');
      now += 1;
      await until('the lost lease given up', () => !hostState(runtime)!.leases.open.some((l) => l.id === lost));
      assert.ok(warnings.some((w) => w.includes(lost) && w.includes('released again')), warnings.join('\n'));
      now += DELAY;
      await until('/a leased again', () => hostState(runtime)!.leases.open.some((l) => l.id !== lost && l.kind === 'urls'));
    } finally {
      await runtime.stop();
    }
  });
});
