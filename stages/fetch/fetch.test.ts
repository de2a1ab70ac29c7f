import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { crawlTestDriver, type CrawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import { PLAIN_REQUEST, type FetchRequest, type FetchResult } from '../../schemas/records.js';
import { createFetcher } from '../../crawl/open-services.js';
import { defaultCrawlConfig } from '../../contract/config.js';
import { decompressBody } from '../../fetching/body-codec.js';
import { startHttpServer, type TestServer } from '../../fetching/testing/test-servers.js';

const PAGE = '<!doctype html><html><head><title>Hello</title></head><body>' + '<p>some words to fill the page</p>'.repeat(100) + '</body></html>';

interface Arrival {
  path: string;
  at: number;
  headers: IncomingHttpHeaders;
}

let server: TestServer;
const arrivals: Arrival[] = [];

function request(path: string, over: Partial<FetchRequest> = {}): FetchRequest {
  return {
    ...PLAIN_REQUEST,
    fetch_id: `${server.host}:${server.port}#${path}`, url: server.url(path), host: `${server.host}:${server.port}`, kind: 'page',
    depth: 1, attempt: 1, via: 'link', source_url: server.url('/'), redirect_hops: 0, delay_ms: 1000, released_at: 0,
    if_none_match: '', if_modified_since: '', ...over,
  };
}

async function fetchDriver(allowNetworks: string[], startTime?: number) {
  const config = defaultCrawlConfig({ allowNetworks, fetchTimeoutMs: 5000 });
  const fetcher = createFetcher(config);
  const d = await crawlTestDriver({ processors: ['resolve', 'fetch'], config, services: { fetcher }, startTime });
  return {
    d,
    close: async () => {
      await d.close();
      await fetcher.close();
    },
  };
}

async function fetchOne(req: FetchRequest, allowNetworks = ['127.0.0.0/8']): Promise<FetchResult> {
  const { d, close } = await fetchDriver(allowNetworks);
  try {
    await d.pipe('scheduled', req.host, req);
    const out = d.readOutput('fetched');
    assert.equal(out.length, 1);
    assert.equal(out[0].key, req.host);
    assertReported(out[0].value, d.readOutput('fetch-reports'));
    return out[0].value;
  } finally {
    await close();
  }
}

/** The schedule is told every outcome it paces by, without the page's body and headers (a robots.txt keeps its body). */
function assertReported(result: FetchResult, reports: { key: string; value: FetchResult }[]): void {
  assert.equal(reports.length, 1, 'one report per fetch outcome');
  const report = reports[0].value;
  assert.equal(reports[0].key, result.host);
  for (const field of ['fetch_id', 'url', 'kind', 'status', 'error', 'final_url', 'started_at', 'elapsed_ms', 'retry_after_ms', 'etag', 'last_modified', 'body_sha1', 'changed', 'next_due_at', 'lease_id', 'lease_epoch', 'address'] as const) {
    assert.deepEqual(report[field], result[field], field);
  }
  if (result.kind === 'robots') assert.deepEqual([report.body_encoding, report.body], [result.body_encoding, result.body]);
  else assert.equal(report.body.length, 0, 'a page\'s body goes to parse, not to the schedule');
  assert.deepEqual([report.headers, report.response_headers, report.request_headers], [{}, [], []]);
}

describe('fetch', () => {
  before(async () => {
    server = await startHttpServer('127.0.0.23', (req, res) => {
      arrivals.push({ path: req.url ?? '', at: Date.now(), headers: req.headers });
      if (req.url === '/moved') {
        res.writeHead(301, { location: '/new-home' });
        res.end();
        return;
      }
      if (req.url === '/etag' && req.headers['if-none-match'] === '"v1"') {
        res.writeHead(304);
        res.end();
        return;
      }
      // A little server time, so that elapsed time is measurable.
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'x-crawl-test': 'yes' });
        res.end(PAGE);
      }, 40);
    });
  });
  after(async () => {
    await server.close();
  });

  it('should record status, headers, timing and a compressed body that restores the page', async () => {
    arrivals.length = 0;
    const before = Date.now();
    const r = await fetchOne(request('/page'));
    const after = Date.now();
    assert.equal(r.status, 200);
    assert.equal(r.error, '');
    assert.equal(r.url, server.url('/page'));
    assert.equal(r.final_url, server.url('/page'));
    assert.equal(r.fetch_id, `${server.host}:${server.port}#/page`);
    assert.equal(r.headers['x-crawl-test'], 'yes');
    assert.equal(r.content_type, 'text/html');
    assert.equal(r.charset, 'utf-8');
    assert.equal(r.body_encoding, 'lz4');
    assert.ok(r.body.length < PAGE.length, 'the stored body is compressed');
    assert.equal(decompressBody(r.body_encoding, r.body, 1 << 20).toString('utf8'), PAGE);
    assert.equal(r.bytes, PAGE.length);
    assert.ok(r.started_at >= before && r.started_at <= after, 'started_at is the epoch time of the request');
    assert.ok(r.elapsed_ms >= 35 && r.elapsed_ms <= after - before + 1, `elapsed ${r.elapsed_ms} ms covers the server's 40 ms`);
    assert.equal(r.remote_address, server.host);
    assert.equal(arrivals.length, 1);
    assert.match(String(arrivals[0].headers['user-agent']), /^crawlstream\//);
  });

  it('should report a robots.txt to the schedule with its body, which the schedule reads its rules from', async () => {
    const r = await fetchOne(request('/page', { kind: 'robots' }));
    assert.equal(r.kind, 'robots');
    assert.ok(r.body.length > 0);
  });

  it('should record the Location of a 301 as the final URL, resolved to an absolute URL', async () => {
    const r = await fetchOne(request('/moved'));
    assert.equal(r.status, 301);
    assert.equal(r.final_url, server.url('/new-home'));
    assert.equal(r.url, server.url('/moved'));
  });

  it('should send the conditional headers of a recrawl and mark the fetch conditional', async () => {
    arrivals.length = 0;
    const r = await fetchOne(request('/etag', { if_none_match: '"v1"' }));
    assert.equal(r.status, 304);
    assert.equal(r.conditional, true);
    assert.equal(arrivals[0].headers['if-none-match'], '"v1"');
  });

  it('should refuse a loopback destination unless its network is allowed, without contacting it', async () => {
    arrivals.length = 0;
    const r = await fetchOne(request('/page'), []);
    assert.equal(r.status, 0);
    assert.match(r.error, /^network-refused/);
    assert.equal(r.body.length, 0);
    assert.equal(arrivals.length, 0, 'the server saw no request');
  });

  it('should give back a request released before the task started, unsent: its lease may have been cut short or its request seen', async () => {
    arrivals.length = 0;
    const start = Date.now();
    const { d, close } = await fetchDriver(['127.0.0.0/8'], start);
    try {
      // Released by the previous process 5 s before this task started. The record's timestamp is taken
      // when it is piped; the clock is back at the start time by the time the processor reads it.
      d.now = start - 5000;
      const piped = d.pipe('scheduled', request('/page').host, request('/page', { released_at: start - 5000, lease_id: 'l#1', lease_epoch: 2 }));
      d.now = start;
      await piped;
      assert.equal(d.readOutput('fetched').length, 0);
      const back = d.readOutput('unfetched').map((r) => r.value);
      assert.deepEqual(back.map((u) => [u.url, u.reason, u.lease_id, u.lease_epoch]), [[server.url('/page'), 'restart', 'l#1', 2]]);
      assert.equal(arrivals.length, 0, 'the server saw nothing');
    } finally {
      await close();
    }
  });

  it('should send a page released after the task started once a delay has passed since the start', async () => {
    arrivals.length = 0;
    const start = Date.now();
    const { d, close } = await fetchDriver(['127.0.0.0/8'], start);
    try {
      // A delay after the start: the host's last request may have been the previous owner's, ending then.
      const piped = Date.now();
      await d.pipe('scheduled', request('/page').host, request('/page', { delay_ms: 300 }));
      assert.equal(arrivals.length, 1);
      assert.ok(arrivals[0].at - start >= 295, `sent ${arrivals[0].at - start} ms after the task started`);
      assert.ok(arrivals[0].at - piped < 1500, `sent ${arrivals[0].at - piped} ms after it was piped`);
    } finally {
      await close();
    }
  });
});
