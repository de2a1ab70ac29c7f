import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { request } from 'undici';
import { auditPoliteness, delayFromExpected, parseRequestLog, requestsPerHostWindow } from './politeness-audit.js';
import { startSyntheticWeb } from './synthetic-web.js';
import type { WebRequest } from './types.js';

function req(host: string, startedAt: number, endedAt: number, path = '/'): WebRequest {
  return { host, path, method: 'GET', userAgent: 'ua', startedAt, endedAt, status: 200 };
}

describe('auditPoliteness', () => {
  test('should accept sequential requests spaced by at least the delay', () => {
    const log = [req('h:1', 0, 50), req('h:1', 1000, 1100), req('h:1', 2000.5, 2010)];
    assert.deepEqual(auditPoliteness(log, () => 1000), []);
  });

  test('should report an overlap when a request starts before the previous one ended', () => {
    const log = [req('h:1', 0, 500), req('h:1', 300, 400)];
    const v = auditPoliteness(log, () => 0);
    assert.equal(v.length, 1);
    assert.equal(v[0].kind, 'overlap');
    assert.equal(v[0].gapMs, -200);
    assert.equal(v[0].second.startedAt, 300);
  });

  test('should catch an overlap with a long request even when a short one came in between', () => {
    const log = [req('h:1', 0, Infinity, '/hang'), req('h:1', 100, 200), req('h:1', 300, 350)];
    const overlaps = auditPoliteness(log, () => 0).filter((x) => x.kind === 'overlap');
    assert.deepEqual(overlaps.map((x) => [x.first.path, x.second.startedAt]), [['/hang', 100], ['/hang', 300]]);
  });

  test('should report a gap shorter than the host delay, measured start to start', () => {
    const log = [req('h:1', 0, 10), req('h:1', 1500, 1510)];
    const v = auditPoliteness(log, () => 2000);
    assert.deepEqual(v.map((x) => [x.kind, x.gapMs, x.requiredMs]), [['gap', 1500, 2000]]);
    assert.deepEqual(auditPoliteness(log, () => 1501, { toleranceMs: 2 }), []);
  });

  test('should require the Retry-After of a response before the next request to that host', () => {
    const throttled = { ...req('h:1', 0, 10, '/busy'), status: 429, retryAfterMs: 2000 };
    const v = auditPoliteness([throttled, req('h:1', 1500, 1510)], () => 1000);
    assert.deepEqual(v.map((x) => [x.kind, x.gapMs, x.requiredMs]), [['gap', 1490, 2000]]);
    assert.deepEqual(auditPoliteness([throttled, req('h:1', 2010, 2020)], () => 1000), []);
  });

  test('should judge each host separately and sort requests by start time', () => {
    const log = [req('b:1', 500, 600), req('a:1', 0, 100), req('b:1', 0, 100), req('a:1', 500, 600)];
    assert.deepEqual(auditPoliteness(log, () => 500), []);
    const v = auditPoliteness(log, (h) => (h === 'b:1' ? 600 : 0));
    assert.deepEqual(v.map((x) => x.host), ['b:1']);
  });
});

describe('requestsPerHostWindow', () => {
  test('should give the busiest sliding window per host, busiest host first', () => {
    const log = [0, 100, 200, 1500, 1600].map((t) => req('a:1', t, t + 1)).concat([req('b:1', 0, 1), req('b:1', 999, 1000)]);
    assert.deepEqual(requestsPerHostWindow(log, 1000), [
      { host: 'a:1', max: 3 },
      { host: 'b:1', max: 2 },
    ]);
    assert.deepEqual(requestsPerHostWindow(log, 100), [
      { host: 'a:1', max: 1 },
      { host: 'b:1', max: 1 },
    ]);
  });
});

describe('parseRequestLog', () => {
  test('should read JSON lines and turn a null endedAt back into a request still in flight', () => {
    const lines = [JSON.stringify(req('h:1', 0, 5)), JSON.stringify({ ...req('h:1', 10, 0, '/hang'), endedAt: null }), ''];
    const log = parseRequestLog(lines.join('\n'));
    assert.deepEqual(log.map((r) => r.endedAt), [5, Infinity]);
    assert.equal(auditPoliteness([...log, req('h:1', 20, 30)], () => 0).filter((v) => v.kind === 'overlap').length, 1);
  });
});

describe('auditPoliteness on the synthetic web log', () => {
  test('should pass a polite client and flag a concurrent one', async () => {
    const web = await startSyntheticWeb({ scenario: 'demo', firstAddress: '127.31.0.1' });
    try {
      const origin = web.origin('blog');
      const delayFor = delayFromExpected(web.expected.hostDelayMs, 150);
      for (const path of ['/robots.txt', '/', '/about']) {
        const r = await request(origin + path);
        await r.body.dump();
        await sleep(160);
      }
      assert.deepEqual(auditPoliteness(web.requests, delayFor), []);

      web.resetLog();
      await Promise.all(['/', '/about', '/robots.txt'].map((p) => request(origin + p).then((r) => r.body.dump())));
      const kinds = new Set(auditPoliteness(web.requests, delayFor).map((v) => v.kind));
      assert.ok(kinds.has('gap'));
      assert.equal(requestsPerHostWindow(web.requests, 1000)[0].max, 3);
    } finally {
      await web.close();
    }
  });
});
