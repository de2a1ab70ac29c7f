// The sink's delivery tests, run on every engine (sink-writer.test.ts: chdb;
// sink-writer.integration.test.ts: the server of CLICKHOUSE_URL).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { SINK_TABLES } from '../schema.js';
import { wholePayload, type ClickHouse } from '../connection.js';
import { robotsSummary } from '../robots-digest.js';
import { rowsForRecord } from '../rows.js';
import type { TestEngine } from './test-engines.js';
import { collectingLog, compareKeys, faultyClickHouse, feed, physicalRowKeys, resumeFrom, testWriter, tsvRows, writeRecord } from './test-harness.js';
import { expectedRowKeys, fetchResult, parsedPage, recordStream, type SourcedRecord } from './test-fixtures.js';

function assertExactlyOnce(actual: string[], expected: string[]): void {
  const { duplicates, missing, extra } = compareKeys(actual, expected);
  assert.deepEqual({ duplicates: duplicates.slice(0, 5), missing: missing.slice(0, 5), extra: extra.slice(0, 5) }, { duplicates: [], missing: [], extra: [] });
  assert.equal(actual.length, expected.length);
}

export function sinkSuite(engine: TestEngine): void {
  describe(`ClickHouse sink on ${engine.name}`, { concurrency: false }, () => {
    after(() => engine.cleanup());

    test('should keep one row per record when the same batch is sunk twice', async () => {
      const ch = await engine.open();
      const records = recordStream(300);
      const first = testWriter(ch);
      await Promise.all(records.map(writeRecord(first)));
      await first.close();
      // The runtime redelivers everything after a crash that came before its commit.
      const second = testWriter(await engine.reopen(ch));
      await Promise.all(records.map(writeRecord(second)));
      await second.close();
      assertExactlyOnce(await physicalRowKeys(ch), expectedRowKeys(records));
      assert.equal(second.stats.rowsInserted, 0);
      assert.equal(second.stats.recordsSkipped, records.length);
    });

    test('should write only the unwritten tail when redelivered records overlap what is stored', async () => {
      const ch = await engine.open();
      const records = recordStream(400);
      const first = testWriter(ch);
      await Promise.all(records.slice(0, 250).map(writeRecord(first)));
      const second = testWriter(ch);
      await Promise.all(records.slice(100).map(writeRecord(second)));
      assertExactlyOnce(await physicalRowKeys(ch), expectedRowKeys(records));
      assert.equal(second.stats.recordsSkipped, 150);
    });

    test('should write every row exactly once when inserts fail or lose their answer', async () => {
      const ch = await engine.open();
      const faulty = faultyClickHouse(ch, { lostAnswer: 0.25, refused: 0.2, queryFails: 0.1, seed: 11 });
      const logger = collectingLog();
      const writer = testWriter(faulty, { logger, maxRows: 97 });
      const records = recordStream(3000);
      const result = await feed(records, writeRecord(writer), { maxInFlight: 500, pauseEvery: 50 });
      assert.equal(result.crashed, false);
      assert.ok(faulty.injected.lost > 3 && faulty.injected.refused > 3, JSON.stringify(faulty.injected));
      assertExactlyOnce(await physicalRowKeys(ch), expectedRowKeys(records));
      assert.ok(logger.warnings.length > 0 && logger.warnings.length <= writer.stats.failures);
    });

    test('should wait for an insert the server still runs before deciding what to write again', async () => {
      const ch = await engine.open();
      const running = new Set<string>();
      let delayed = 0;
      // The first two inserts "time out" at the client while the server goes on to apply them.
      const slow: ClickHouse = {
        ...ch,
        async insertTsv(table, columns, values, opts) {
          if (delayed++ >= 2) return ch.insertTsv(table, columns, values, opts);
          const id = opts?.queryId ?? '';
          running.add(id);
          setTimeout(() => void ch.insertTsv(table, columns, values).finally(() => running.delete(id)), 300);
          throw new Error('Timeout error.');
        },
        isRunning: async (id) => running.has(id) || ch.isRunning(id),
      };
      const writer = testWriter(slow);
      const records = recordStream(200);
      await Promise.all(records.map(writeRecord(writer)));
      await new Promise((r) => setTimeout(r, 400)); // every late insert has landed by now
      assert.equal(running.size, 0);
      assertExactlyOnce(await physicalRowKeys(ch), expectedRowKeys(records));
      assert.ok(writer.stats.recordsSkipped > 0, 'rows the server applied late were not written twice');
    });

    test('should resume without gaps or duplicates when the sink restarts mid-stream', async () => {
      const records = recordStream(2500);
      let skippedAfterRestart = 0;
      for (const crashAt of [400, 1100, 2000]) {
        const ch = await engine.open();
        const first = testWriter(ch, { maxRows: 150 });
        // Commits lag behind writes, as they do in the runtime: the restart sees stored rows again.
        const run = await feed(records, writeRecord(first), {
          crashWhen: (n, committed) => n >= crashAt && (committed.fetched ?? 0) > 0, commitEveryMs: 150, pauseEvery: 10,
        });
        assert.equal(run.crashed, true);
        await first.abort();
        const stored = (await physicalRowKeys(ch)).length;
        const again = resumeFrom(records, run.committed);
        const second = testWriter(await engine.reopen(ch), { maxRows: 150 });
        const rest = await feed(again, writeRecord(second), { pauseEvery: 40 });
        assert.equal(rest.crashed, false);
        assertExactlyOnce(await physicalRowKeys(ch), expectedRowKeys(records));
        assert.ok(stored > 0);
        skippedAfterRestart += second.stats.recordsSkipped;
      }
      assert.ok(skippedAfterRestart > 0, 'some records were stored after the last commit and skipped on restart');
    });

    test('should keep retrying while ClickHouse cannot be reached and write everything once it can', async () => {
      const ch = await engine.open();
      let refusals = 6;
      const logger = collectingLog();
      const writer = testWriter(async () => {
        if (refusals-- > 0) throw new Error(`ClickHouse server at http://127.0.0.1:9 is unreachable: connect ECONNREFUSED`);
        return ch;
      }, { logger });
      const records = recordStream(120);
      const done = Promise.all(records.map(writeRecord(writer)));
      let settled = false;
      void done.then(() => (settled = true));
      await new Promise((r) => setTimeout(r, 30));
      assert.equal(settled, false, 'nothing resolves before the rows are written');
      assert.equal(writer.pending, records.length);
      await done;
      assert.equal(logger.warnings.length, 1, 'one warning per burst of failures');
      assert.match(logger.warnings[0], /unreachable/);
      assert.equal(logger.infos.length, 1);
      assertExactlyOnce(await physicalRowKeys(ch), expectedRowKeys(records));
      assert.equal(writer.pending, 0);
    });

    test('should flush a lone record within the time bound and split large backlogs by rows', async () => {
      const ch = await engine.open();
      const sizes: number[] = [];
      const spy: ClickHouse = { ...ch, insertTsv: async (table, columns, values) => { const whole = wholePayload(values); sizes.push(tsvRows(whole)); return ch.insertTsv(table, columns, whole); } };
      const writer = testWriter(spy, { maxRows: 100, maxDelayMs: 150 });
      const started = Date.now();
      await writer.write({ topic: 'fetched', partition: 0, offset: 0 }, rowsForRecord({ topic: 'fetched', value: fetchResult() }, robotsSummary, 'x'));
      const waited = Date.now() - started;
      assert.ok(waited >= 140 && waited < 2000, `flushed after ${waited} ms`);
      const records = recordStream(1000).filter((r) => r.topic === 'parsed').map((r, i) => ({ ...r, offset: i }));
      sizes.length = 0;
      await Promise.all(records.map(writeRecord(writer)));
      assert.ok(sizes.length >= Math.ceil(records.length / 100), `${sizes.length} inserts`);
      assert.ok(sizes.every((n) => n <= 100), `insert sizes ${sizes.join(',')}`);
    });

    test('should write a burst in one flush once records stop coming, long before the time bound', async () => {
      // A crawl that ends: its last rows are queryable (and its sink task settled) at once, not after maxDelayMs.
      const ch = await engine.open();
      const writer = testWriter(ch, { maxRows: 10_000, maxDelayMs: 60_000, lingerMs: 100 });
      const records = recordStream(200).filter((r) => r.topic === 'parsed').map((r, i) => ({ ...r, offset: i }));
      const started = Date.now();
      await Promise.all(records.map(writeRecord(writer)));
      const waited = Date.now() - started;
      assert.ok(waited < 30_000, `flushed after ${waited} ms: the 60 s bound, not the 100 ms quiet`);
      assert.ok(writer.stats.inserts <= SINK_TABLES.length, `${records.length} records in ${writer.stats.inserts} inserts: one per table`);
    });

    test('should show one row per URL in current results after a replay rewrote them', async () => {
      const ch = await engine.open();
      const urls = Array.from({ length: 20 }, (_, i) => `http://r${i % 4}.test/p${i}`);
      const records: SourcedRecord[] = urls.flatMap((url, i) => [
        { topic: 'fetched' as const, partition: 0, offset: i, value: fetchResult({ fetch_id: `f${i}`, url, started_at: 1_767_000_000_000 + i }) },
        { topic: 'parsed' as const, partition: 0, offset: i, value: parsedPage({ fetch_id: `f${i}`, url, title: 'before' }) },
      ]);
      const live = testWriter(ch);
      await Promise.all(records.map(writeRecord(live)));
      const replay = testWriter(ch, { sinkId: 'replay-1' });
      await Promise.all(records.map((r) => writeRecord(replay)(r.topic === 'parsed' ? { ...r, value: { ...(r.value as object), title: 'after' } as never } : r)));
      const physical = await ch.query<{ n: string }>('SELECT count() AS n FROM parsed_pages');
      assert.equal(Number(physical[0].n) >= urls.length, true);
      const pages = await ch.query<{ url: string; title: string }>('SELECT url, title FROM pages ORDER BY url');
      assert.equal(pages.length, urls.length);
      assert.ok(pages.every((p) => p.title === 'after'), JSON.stringify(pages.slice(0, 3)));
      const fetches = await ch.query<{ n: string; u: string }>('SELECT count() AS n, uniqExact(fetch_id) AS u FROM fetches FINAL');
      assert.deepEqual(fetches[0], { n: String(urls.length), u: String(urls.length) });
    });
  });
}
