import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { compressBody } from '../fetching/body-codec.js';
import { fetchResult } from '../clickhouse/testing/test-fixtures.js';
import { CaptureError, checkCapture, payloadDigest } from './capture.js';
import { captureOfFetch, payloadDigestOfHex } from './fetch-capture.js';

const BODY = Buffer.from('<html><body>' + 'words '.repeat(500) + '</body></html>');
const stored = compressBody(BODY);

async function capture(over: Parameters<typeof fetchResult>[0]) {
  const v = await captureOfFetch(fetchResult(over));
  assert.equal(v.kind, 'capture');
  if (v.kind !== 'capture') throw new Error('unreachable');
  checkCapture(v.capture);
  return v.capture;
}

describe('captureOfFetch', () => {
  it('should give the request as sent and the response as received, with the decoded body', async () => {
    const c = await capture({
      url: 'http://a.test/p?q=1', body_encoding: stored.encoding, body: stored.bytes, status: 200, status_text: 'OK',
      request_headers: [{ name: 'host', value: 'a.test' }, { name: 'user-agent', value: 'ua/1' }],
      response_headers: [{ name: 'Content-Type', value: 'text/html' }, { name: 'Set-Cookie', value: 'a=1' }, { name: 'Set-Cookie', value: 'b=2' }],
      started_at: Date.UTC(2026, 0, 2), remote_address: '127.0.0.7',
    });
    assert.equal(stored.encoding, 'lz4', 'the fixture body is stored compressed');
    assert.deepEqual(c.body, BODY);
    assert.equal(c.targetUri, 'http://a.test/p?q=1');
    assert.equal(c.fetchedAt, Date.UTC(2026, 0, 2));
    assert.equal(c.remoteAddress, '127.0.0.7');
    assert.deepEqual(c.request, { method: 'GET', path: '/p?q=1', httpVersion: '1.1', headers: [['host', 'a.test'], ['user-agent', 'ua/1']] });
    assert.deepEqual(c.response, {
      httpVersion: '1.1', status: 200, reason: 'OK', headers: [['Content-Type', 'text/html'], ['Set-Cookie', 'a=1'], ['Set-Cookie', 'b=2']],
    });
    assert.equal(c.truncated, undefined);
    assert.equal(c.revisit, undefined);
  });

  it('should say nothing is to be archived when no response arrived', async () => {
    assert.deepEqual(await captureOfFetch(fetchResult({ status: 0, error: 'dns: not found' })), { kind: 'no-response' });
  });

  it('should mark a body cut short with its WARC-Truncated reason', async () => {
    assert.equal((await capture({ truncation: 'time' })).truncated, 'time');
    assert.equal((await capture({ truncation: 'length', truncated: true })).truncated, 'length');
    assert.equal((await capture({ truncation: 'nonsense' })).truncated, 'unspecified', 'an unknown reason is still a truncation');
    assert.equal((await capture({ truncation: '', truncated: true })).truncated, 'length', 'records from before `truncation` existed');
  });

  it('should make a 304 with a known earlier capture a revisit naming that capture\'s date and payload digest', async () => {
    const sha1 = createHash('sha1').update(BODY).digest('hex');
    const c = await capture({ status: 304, status_text: 'Not Modified', conditional: true, previous_sha1: sha1, previous_captured_at: Date.UTC(2026, 0, 1) });
    assert.deepEqual(c.revisit, { refersToTargetUri: 'http://a.test/', refersToDate: Date.UTC(2026, 0, 1), payloadDigest: payloadDigest(BODY) });
    const unknown = await capture({ status: 304, previous_sha1: '', previous_captured_at: 0 });
    assert.equal(unknown.revisit, undefined, 'nothing to refer to: written as the 304 response it is');
  });

  it('should fall back to the bounded header map for records written before the raw header lists', async () => {
    const c = await capture({ headers: { 'content-type': 'text/html', 'set-cookie': 'a=1\nb=2' }, response_headers: [] });
    assert.deepEqual(c.response.headers, [['content-type', 'text/html'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2']]);
  });

  it('should refuse, as a CaptureError, a record whose URL or stored body is broken', async () => {
    await assert.rejects(captureOfFetch(fetchResult({ url: 'http://a.test/', body_encoding: 'gzip', body: Buffer.from('not gzip') })), CaptureError);
    await assert.rejects(captureOfFetch(fetchResult({ url: 'http://a.test/', body_encoding: 'lz4', body: Buffer.from('not lz4 at all') })), CaptureError);
    await assert.rejects(captureOfFetch({ ...fetchResult(), url: 'not a url' }), CaptureError);
  });

  it('should turn a hex SHA-1 into the base32 payload digest warcio writes, and nothing else', () => {
    const sha1 = createHash('sha1').update(BODY).digest('hex');
    assert.equal(payloadDigestOfHex(sha1), payloadDigest(BODY));
    assert.equal(payloadDigestOfHex(''), undefined);
    assert.equal(payloadDigestOfHex('xyz'), undefined);
  });
});
