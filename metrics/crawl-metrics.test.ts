import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { CrawlMetrics, fetchOutcome, type GaugeSnapshot } from './crawl-metrics.js';
import { serveMetrics } from './metrics-server.js';
import { noPrometheusReader, scrape, type Sample } from './testing/scrape.js';

const skip = noPrometheusReader;

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

const snapshot: GaugeSnapshot = {
  frontier: 1200, recrawlDue: 30, hostsWaiting: 17, inFlight: 9,
  lag: [{ processor: 'fetch', partition: 0, records: 5 }, { processor: 'parse', partition: 3, records: 40 }],
};

describe('CrawlMetrics', () => {
  it('should serve crawl metrics named crawlstream_* with their labels, parsed by prometheus_client', { skip }, async () => {
    const m = new CrawlMetrics();
    m.fetchDone('page', fetchOutcome(200, '', false), 0.2, 1000);
    m.fetchDone('page', fetchOutcome(204, '', false), 0.3, 500);
    m.fetchDone('robots', fetchOutcome(404, '', false), 0.05, 100);
    m.fetchDone('page', fetchOutcome(0, 'timeout', false), 30, 0);
    m.fetchDone('sitemap', fetchOutcome(200, 'body-too-large', true), 2, 10_000_000);
    m.urlDropped('robots-disallowed', 3);
    m.recordsProduced('fetched', 4);
    m.setGaugeSource(() => snapshot);
    const server = await serveMetrics(m, { port: 0 });
    try {
      assert.equal(server.host, '127.0.0.1');
      const s = await scrape(server.url);
      const names = new Set(s.map((x) => x.name));
      for (const n of names) assert.ok(n.startsWith('crawlstream_'), `${n} starts with crawlstream_`);
      assert.equal(value(s, 'crawlstream_fetches_total', { kind: 'page', outcome: '2xx' }), 2);
      assert.equal(value(s, 'crawlstream_fetches_total', { kind: 'robots', outcome: '4xx' }), 1);
      assert.equal(value(s, 'crawlstream_fetches_total', { kind: 'page', outcome: 'timeout' }), 1);
      assert.equal(value(s, 'crawlstream_fetches_total', { kind: 'sitemap', outcome: 'truncated' }), 1);
      assert.equal(value(s, 'crawlstream_fetch_duration_seconds_count', { kind: 'page' }), 3);
      assert.equal(value(s, 'crawlstream_fetch_duration_seconds_bucket', { kind: 'page', le: '0.25' }), 1);
      assert.equal(value(s, 'crawlstream_bytes_total', { kind: 'page' }), 1500);
      assert.equal(value(s, 'crawlstream_urls_dropped_total', { reason: 'robots-disallowed' }), 3);
      assert.equal(value(s, 'crawlstream_records_total', { topic: 'fetched' }), 4);
      assert.equal(value(s, 'crawlstream_frontier_urls'), 1200);
      assert.equal(value(s, 'crawlstream_recrawl_due_urls'), 30);
      assert.equal(value(s, 'crawlstream_hosts_waiting'), 17);
      assert.equal(value(s, 'crawlstream_fetches_in_flight'), 9);
      assert.equal(value(s, 'crawlstream_task_lag_records', { processor: 'parse', partition: '3' }), 40);
      assert.ok(names.has('crawlstream_process_cpu_seconds_total') && names.has('crawlstream_process_resident_memory_bytes'), 'process metrics');
      assert.ok(names.has('crawlstream_nodejs_eventloop_lag_seconds'), 'event loop lag');
    } finally {
      await server.close();
    }
  });

  it('should read the gauge source at every scrape and drop lag of partitions no longer reported', { skip }, async () => {
    const m = new CrawlMetrics({ defaultMetrics: false });
    let current: GaugeSnapshot = snapshot;
    m.setGaugeSource(() => current);
    const server = await serveMetrics(m, { port: 0 });
    try {
      assert.equal(value(await scrape(server.url), 'crawlstream_task_lag_records', { processor: 'fetch', partition: '0' }), 5);
      current = { frontier: 7, recrawlDue: 0, hostsWaiting: 0, inFlight: 1, lag: [{ processor: 'parse', partition: 3, records: 2 }] };
      const s = await scrape(server.url);
      assert.equal(value(s, 'crawlstream_frontier_urls'), 7);
      assert.equal(value(s, 'crawlstream_task_lag_records', { processor: 'fetch', partition: '0' }), undefined);
      assert.equal(value(s, 'crawlstream_task_lag_records', { processor: 'parse', partition: '3' }), 2);
    } finally {
      await server.close();
    }
  });

  it('should keep serving when the gauge source throws, counting and logging it', async () => {
    const warnings: string[] = [];
    const m = new CrawlMetrics({ defaultMetrics: false, logger: { warn: (w) => warnings.push(w) } });
    let fail = false;
    m.setGaugeSource(() => {
      if (fail) throw new Error('frontier store closed');
      return snapshot;
    });
    await m.metrics();
    fail = true;
    const text = await m.metrics();
    await m.metrics();
    assert.match(text, /^crawlstream_frontier_urls 1200$/m, 'last good value kept');
    assert.match(await m.metrics(), /^crawlstream_metrics_source_errors_total 3$/m);
    assert.equal(warnings.length, 1, 'logged once, not per scrape');
    assert.match(warnings[0], /frontier store closed/);
  });

  it('should bound label values so no input mints new series', async () => {
    const m = new CrawlMetrics({ defaultMetrics: false });
    m.urlDropped('a reason\nwith { junk }', 1);
    m.recordsProduced('x'.repeat(500), 1);
    m.fetchDone('bogus' as never, 'weird outcome', Number.NaN, -5);
    const text = await m.metrics();
    assert.match(text, /^crawlstream_urls_dropped_total\{reason="other"\} 1$/m);
    assert.match(text, /^crawlstream_records_total\{topic="other"\} 1$/m);
    assert.match(text, /^crawlstream_fetches_total\{kind="other",outcome="other"\} 1$/m);
    assert.doesNotMatch(text, /crawlstream_fetch_duration_seconds_count\{kind="other"\} 1/, 'a NaN duration is not observed');
  });

  it('should name outcomes by truncation, then error kind, then status class', () => {
    assert.equal(fetchOutcome(200, '', false), '2xx');
    assert.equal(fetchOutcome(301, '', false), '3xx');
    assert.equal(fetchOutcome(503, '', false), '5xx');
    assert.equal(fetchOutcome(200, 'timeout', true), 'truncated');
    assert.equal(fetchOutcome(0, 'dns', false), 'dns');
    assert.equal(fetchOutcome(301, 'protocol', false), 'protocol');
    assert.equal(fetchOutcome(0, '', false), 'no-response');
  });
});

describe('serveMetrics', () => {
  it('should answer only GET and HEAD on /metrics and close with a scraper connection still open', async () => {
    const m = new CrawlMetrics({ defaultMetrics: false });
    const server = await serveMetrics(m, { port: 0 });
    assert.equal((await fetch(server.url.replace('/metrics', '/other'))).status, 404);
    assert.equal((await fetch(server.url, { method: 'POST' })).status, 405);
    assert.equal((await fetch(server.url, { method: 'HEAD' })).status, 200);
    // A keep-alive socket, as Prometheus keeps between scrapes.
    await new Promise<void>((resolve, reject) => {
      request(server.url, { agent: new Agent({ keepAlive: true }) }, (res) => {
        res.resume();
        res.on('end', resolve);
      }).on('error', reject).end();
    });
    await server.close();
    await assert.rejects(fetch(server.url));
  });

  it('should say which address it cannot listen on', async () => {
    const m = new CrawlMetrics({ defaultMetrics: false });
    const a = await serveMetrics(m, { port: 0 });
    try {
      await assert.rejects(serveMetrics(m, { port: a.port }), new RegExp(`cannot listen on 127\\.0\\.0\\.1:${a.port}: EADDRINUSE`));
    } finally {
      await a.close();
    }
  });
});
