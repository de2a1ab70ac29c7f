import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { test } from 'node:test';
import { robotsSummary } from './robots-digest.js';
import { errorKind, fetchRows, hostOf, parsedRow, robotsOutcome, rowsForRecord, simhashString, skippedRow } from './rows.js';
import { duplicate, fetchResult, parsedPage, skippedUrl } from './testing/test-fixtures.js';

test('should map robots.txt statuses to the outcomes RFC 9309 prescribes', () => {
  assert.deepEqual([200, 304, 301, 308, 401, 404, 429, 500, 503, 0].map((s) => robotsOutcome(s)),
    ['rules', 'rules', 'redirect', 'redirect', 'allow-all', 'allow-all', 'allow-all', 'unreachable', 'unreachable', 'unreachable']);
});

test('should not call a robots.txt the server cut short "rules", as the crawler reads none from it', () => {
  const robots = (f: Parameters<typeof fetchResult>[0]) => fetchRows(fetchResult({ kind: 'robots', status: 200, ...f }), robotsSummary, 'x')[1].row;
  const cut = robots({ error: 'incomplete-body: the server closed the connection after 1200 of 4000 bytes', truncated: false, body: Buffer.from('User-agent: *\nDisallow: /a') });
  assert.equal(cut.outcome, 'incomplete');
  assert.equal(cut.rules_digest, '', 'no rules digested from a body the crawler did not obey');
  // Our own size cap is fine (RFC 9309 §2.5): those rules are obeyed.
  assert.equal(robots({ error: 'too-large: cut at 500 KiB', truncated: true, body: Buffer.from('User-agent: *\nDisallow: /a') }).outcome, 'rules');
  assert.equal(robots({ body: Buffer.from('User-agent: *\nDisallow: /a') }).outcome, 'rules');
});

test('should clamp numbers to their column types instead of producing rows the server rejects', () => {
  const [row] = fetchRows(fetchResult({ depth: -3, status: 70_000, bytes: 2 ** 40, elapsed_ms: Number.NaN, started_at: 1_767_225_600_123 }), robotsSummary, 'x');
  assert.equal(row.row.depth, 0);
  assert.equal(row.row.status, 0xffff);
  assert.equal(row.row.bytes, 0xffff_ffff);
  assert.equal(row.row.elapsed_ms, 0);
  assert.equal(row.row.started_at, 1_767_225_600);
  assert.equal(row.row.started_at_ms, 1_767_225_600_123);
});

test('should keep all 64 bits of the simhash', () => {
  assert.equal(simhashString(Buffer.from('ffffffffffffffff', 'hex')), '18446744073709551615');
  assert.equal(simhashString(Buffer.from('8000000000000001', 'hex')), '9223372036854775809');
  assert.equal(simhashString(Buffer.alloc(3)), '0');
});

test('should replace lone surrogates so that titles survive the trip through JSON', () => {
  const row = parsedRow(parsedPage({ title: 'a\uD800b\uDC00c 😀' }));
  assert.equal(row.title, 'a\uFFFDb\uFFFDc 😀');
});

test('should take the error kind from the part before the colon', () => {
  assert.equal(errorKind('timeout: no response in 30 s'), 'timeout');
  assert.equal(errorKind('dns'), 'dns');
  assert.equal(errorKind(''), '');
});

test('should key link targets by host the way the crawler does', () => {
  assert.equal(hostOf('HTTP://Example.TEST:80/x'), 'example.test');
  assert.equal(hostOf('https://b.test:8443/'), 'b.test:8443');
  assert.equal(hostOf('http://xn--bcher-kva.test/'), 'xn--bcher-kva.test');
  assert.equal(hostOf('not a url'), '');
});

test('should add a robots row to the fetch row of a robots.txt fetch, even for a corrupt body', () => {
  const rows = fetchRows(fetchResult({ kind: 'robots', body: Buffer.from('not gzip'), body_encoding: 'gzip' }), robotsSummary, 'x');
  assert.deepEqual(rows.map((r) => r.table), ['fetches', 'robots']);
  assert.equal(rows[1].row.outcome, 'rules');
  const gz = fetchRows(fetchResult({ kind: 'robots', body: gzipSync('User-agent: *\nCrawl-delay: 3\n'), body_encoding: 'gzip' }), robotsSummary, 'x');
  assert.equal(gz[1].row.crawl_delay_ms, 3000);
});

test('should turn each input topic into rows of its table', () => {
  assert.deepEqual(rowsForRecord({ topic: 'fetched', value: fetchResult() }, robotsSummary, 'x').map((r) => r.table), ['fetches']);
  assert.deepEqual(rowsForRecord({ topic: 'parsed', value: parsedPage() }, robotsSummary, 'x').map((r) => r.table), ['parsed_pages']);
  assert.deepEqual(rowsForRecord({ topic: 'duplicates', value: duplicate() }, robotsSummary, 'x').map((r) => r.table), ['duplicates']);
  assert.deepEqual(rowsForRecord({ topic: 'skipped', value: skippedUrl() }, robotsSummary, 'x').map((r) => r.table), ['skipped']);
});

test('should record a skipped URL with its host and a reason even when the record lacks them', () => {
  const row = skippedRow(skippedUrl({ url: 'http://Trap.TEST:8080/a/a/a', host: '', reason: '', depth: -1, decided_at: 1_767_225_600_999 }));
  assert.deepEqual(row, {
    url: 'http://Trap.TEST:8080/a/a/a', host: 'trap.test:8080', reason: 'unknown', detail: 'Disallow: /private', depth: 0,
    source_url: 'http://a.test/', decided_at: 1_767_225_600, decided_at_ms: 1_767_225_600_999, url_count: 1,
  });
  assert.equal(skippedRow(skippedUrl({ url_count: 12 })).url_count, 12, 'normalize\'s rows stand for several URLs');
  assert.equal(skippedRow(skippedUrl({ reason: 'x'.repeat(500) })).reason, 'x'.repeat(64));
});

test('should estimate a row size that grows with its text', () => {
  const small = rowsForRecord({ topic: 'parsed', value: parsedPage({ title: 'x' }) }, robotsSummary, 'x')[0].bytes;
  const large = rowsForRecord({ topic: 'parsed', value: parsedPage({ title: 'x'.repeat(10_000) }) }, robotsSummary, 'x')[0].bytes;
  assert.ok(large - small >= 9_999);
});

test('should bound a page\'s text to 100 KB of UTF-8 at a character boundary, given as a string or as its bytes', () => {
  const page = (text: string | Buffer) => parsedRow({ text } as never).text as string | Buffer;
  const text = 'a' + '€'.repeat(40_000); // 1 + 3 × 40,000 bytes: the limit falls inside a character
  const fromString = Buffer.from(page(text) as string, 'utf8');
  const fromBytes = page(Buffer.from(text, 'utf8')) as Buffer;
  assert.ok(Buffer.isBuffer(fromBytes), 'bytes stay bytes');
  assert.deepEqual(fromBytes, fromString);
  assert.equal(fromBytes.length, 1 + 3 * Math.floor((100 * 1024 - 1) / 3));
  assert.equal(page(Buffer.from('short')).toString(), 'short');
});
