// Report tests shared by both engines: every report query runs, and the politeness audit agrees
// with the same numbers computed here from the records.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { FetchResult } from '../../schemas/records.js';
import type { ClickHouse } from '../connection.js';
import { buildReport, REPORT_QUERIES } from '../report.js';
import { reportFixture } from './report-fixture.js';
import type { TestEngine } from './test-engines.js';
import { testWriter, writeRecord } from './test-harness.js';

export async function sinkReportFixture(engine: TestEngine): Promise<ClickHouse> {
  const ch = await engine.open();
  const writer = testWriter(ch, { maxRows: 500 });
  const records = reportFixture();
  await Promise.all(records.map(writeRecord(writer)));
  // A replay of the fetches must not change any number in the report.
  const replay = testWriter(ch, { sinkId: 'replay-report', maxRows: 500 });
  await Promise.all(records.filter((r) => r.topic === 'fetched').map(writeRecord(replay)));
  return ch;
}

function expectedPoliteness(): Map<string, { maxIn10s: number; minGap: number }> {
  const starts = new Map<string, number[]>();
  for (const r of reportFixture()) {
    if (r.topic !== 'fetched') continue;
    const f = r.value as FetchResult;
    starts.set(f.host, [...(starts.get(f.host) ?? []), f.started_at]);
  }
  const out = new Map<string, { maxIn10s: number; minGap: number }>();
  for (const [host, ts] of starts) {
    ts.sort((a, b) => a - b);
    const maxIn10s = Math.max(...ts.map((t) => ts.filter((x) => x >= t && x < t + 10_000).length));
    const minGap = ts.length > 1 ? Math.min(...ts.slice(1).map((t, i) => t - ts[i])) : -1;
    out.set(host, { maxIn10s, minGap });
  }
  return out;
}

export function reportSuite(engine: TestEngine): void {
  describe(`crawl report on ${engine.name}`, { concurrency: false }, () => {
    after(() => engine.cleanup());

    test('should run every report query and find rows for each', async () => {
      const ch = await sinkReportFixture(engine);
      for (const q of REPORT_QUERIES) {
        const rows = await ch.query(q.sql);
        assert.ok(rows.length > 0, `${q.title} returned no rows`);
      }
    });

    test('should measure politeness per host as the requests happened', async () => {
      const ch = await sinkReportFixture(engine);
      const politeness = REPORT_QUERIES.find((q) => q.title === 'Politeness audit')!;
      const rows = await ch.query<{ host: string; max_in_10s: number | string; min_gap_ms: number | string; min_idle_ms: number | string }>(
        politeness.sql.replace(/LIMIT 20$/, ''),
      );
      const expected = expectedPoliteness();
      assert.equal(rows.length, expected.size);
      for (const r of rows) {
        assert.deepEqual([r.host, Number(r.max_in_10s), Number(r.min_gap_ms)], [r.host, expected.get(r.host)!.maxIn10s, expected.get(r.host)!.minGap]);
      }
      assert.equal(rows[0].host, 'rude.test', 'the host fetched too fast comes first');
      assert.ok(Number(rows[0].min_idle_ms) < 0, 'its requests overlapped');
    });

    test('should build a report that holds every chart and its query', async () => {
      const ch = await sinkReportFixture(engine);
      const html = await buildReport(ch);
      assert.equal((html.match(/<figure data-chart=/g) ?? []).length, REPORT_QUERIES.length - 1);
      assert.doesNotMatch(html, /no data yet/);
      assert.doesNotMatch(html, /<script|<link|\bsrc=|url\(|@import/i);
      assert.doesNotMatch(html, /data-damage="parts"/, 'a sound store has no damage notice');
      // 18.16 cannot list detached parts: the report says it did not check rather than nothing.
      assert.equal(/data-damage="unknown"/.test(html), ch.damageUnknown !== undefined);
    });

    test('should count skipped URLs by reason and host, each URL once per reason', async () => {
      const ch = await sinkReportFixture(engine);
      const byReason = await ch.query<{ reason: string; urls: string; hosts: string }>(REPORT_QUERIES.find((q) => q.title === 'Skipped URLs by reason')!.sql);
      const expected = new Map<string, Set<string>>();
      for (const r of reportFixture()) {
        if (r.topic === 'skipped') expected.set(r.value.reason, (expected.get(r.value.reason) ?? new Set()).add(r.value.url));
      }
      assert.deepEqual(Object.fromEntries(byReason.map((r) => [r.reason, Number(r.urls)])), Object.fromEntries([...expected].map(([k, v]) => [k, v.size])));
      const [top] = await ch.query<{ host: string; top_reason: string }>(REPORT_QUERIES.find((q) => q.title === 'Top hosts by skipped URLs')!.sql);
      assert.deepEqual([top.host, top.top_reason], ['rude.test', 'host-budget']);
    });

    test('should count refetches, their changes and the URLs by recrawl interval', async () => {
      const ch = await sinkReportFixture(engine);
      const query = (title: string) => ch.query<Record<string, string | number>>(REPORT_QUERIES.find((q) => q.title === title)!.sql);
      const refetches = await query('Refetches and changes');
      assert.deepEqual([refetches.reduce((a, r) => a + Number(r.refetches), 0), refetches.reduce((a, r) => a + Number(r.changed), 0)], [18, 9]);
      const intervals = await query('Recrawl intervals');
      assert.deepEqual(intervals.map((r) => [r.band, Number(r.urls), Number(r.changes)]), [['< 1 h', 9, 9], ['1 day – 1 week', 9, 0]]);
    });

    test('should open with the rows ClickHouse set aside, or with why it could not check', async () => {
      const ch = await sinkReportFixture(engine);
      const damaged = { ...ch, damage: [{ table: 'fetches', part: 'all_1_1_0', reason: 'broken-on-start', rows: 1234 }] };
      const html = await buildReport(damaged);
      assert.match(html, /Incomplete history.*part all_1_1_0 of table \w+\.fetches \(broken-on-start: ClickHouse could not read it\): its 1234 rows are missing/s);
      const unchecked = await buildReport({ ...ch, damageUnknown: 'ClickHouse 18.16.1 has no system.detached_parts' });
      assert.match(unchecked, /data-damage="unknown"><p>Not checked for damaged parts: ClickHouse 18.16.1 has no system.detached_parts/);
    });
  });
}
