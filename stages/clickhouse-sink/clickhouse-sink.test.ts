import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { openClickHouse, wholePayload, type ClickHouse } from '../../clickhouse/connection.js';
import { testChdbDir } from '../../clickhouse/testing/test-engines.js';
import { collectingLog, tsvRows } from '../../clickhouse/testing/test-harness.js';
import { fetchResult, parsedPage } from '../../clickhouse/testing/test-fixtures.js';
import { defaultCrawlConfig } from '../../contract/config.js';
import type { InputRecord, ProcessorContext } from '../../engine/api.js';
import { clickhouseSink } from './clickhouse-sink.js';

const opened: ClickHouse[] = [];
after(async () => {
  for (const ch of opened) await ch.close();
});

function context(logger = collectingLog(), logId = 'log-1'): ProcessorContext<object> & { counters: Map<string, number> } {
  const counters = new Map<string, number>();
  return {
    processorName: 'clickhouse-sink', storedName: 'sink', partition: 3, logId, logger, counters,
    metrics: { count: (name, by = 1) => counters.set(name, (counters.get(name) ?? 0) + by), gauge: () => {} },
    now: () => Date.now(),
    forward: () => assert.fail('the sink forwards nothing'),
    store: () => assert.fail('the sink has no stores'),
  };
}

const record = <N extends string, V>(topic: N, offset: number, value: V, partition = 3): InputRecord<N, V> =>
  ({ topic, partition, offset, timestamp: 0, key: 'a.test', value });

const services = (ch: () => Promise<ClickHouse>, sinkName = 'live') => ({ config: defaultCrawlConfig(), clickhouse: ch, sinkName });

test('should declare a concurrent, store-less processor named sink', () => {
  assert.deepEqual([clickhouseSink.name, clickhouseSink.storedAs], ['clickhouse-sink', 'sink']);
  assert.deepEqual(clickhouseSink.stores, []);
  assert.deepEqual(clickhouseSink.concurrency, { maxInFlight: 20_000, perKeyOrder: false });
  assert.match(clickhouseSink.delivery, /exactly once/i);
});

test('should resolve each record only once its rows are in ClickHouse, under the configured sink id', async () => {
  const ch = await openClickHouse({ dataDir: testChdbDir(), database: `sink_proc_${process.pid}` });
  opened.push(ch);
  const sink = clickhouseSink.create(services(async () => ch, 'replay-7'));
  const ctx = context();
  await sink.init!(ctx);
  assert.equal(sink.hasPendingWork!(), false);
  const settled: number[] = [];
  const pending = [
    sink.process(record('fetched', 10, fetchResult({ fetch_id: 'a#1' })), ctx),
    sink.process(record('parsed', 4, parsedPage({ fetch_id: 'a#1', title: 'Hello' })), ctx),
    sink.process(record('fetched', 11, fetchResult({ fetch_id: 'a#2', kind: 'robots', url: 'http://a.test/robots.txt' })), ctx),
  ].map((p, i) => Promise.resolve(p).then(() => settled.push(i)));
  assert.equal(settled.length, 0);
  assert.equal(sink.hasPendingWork!(), true, 'rows are queued for the next flush');
  await Promise.all(pending);
  assert.equal(sink.hasPendingWork!(), false);
  // The schema was migrated by the sink itself: the database was empty.
  const rows = await ch.query<{ t: string; sink_id: string; src_partition: number; src_offset: string }>(
    `SELECT 'fetches' AS t, sink_id, src_partition, src_offset FROM fetches
     UNION ALL SELECT 'robots' AS t, sink_id, src_partition, src_offset FROM robots
     UNION ALL SELECT 'parsed_pages' AS t, sink_id, src_partition, src_offset FROM parsed_pages`,
  );
  assert.deepEqual(rows.map((r) => `${r.t} ${r.sink_id} ${r.src_partition}@${r.src_offset}`).sort(), [
    'fetches replay-7:log-1 3@10', 'fetches replay-7:log-1 3@11', 'parsed_pages replay-7:log-1 3@4', 'robots replay-7:log-1 3@11',
  ]);
  assert.equal(ctx.counters.get('sink.rows'), 4);
  await sink.close!();
});

test('should keep the positions of two logs apart, so a new log is never taken for one already written', async () => {
  const ch = await openClickHouse({ dataDir: testChdbDir(), database: `sink_logs_${process.pid}` });
  opened.push(ch);
  // Two crawls (two data directories) into one ClickHouse: their offsets overlap, their rows must not.
  for (const logId of ['crawl-a', 'crawl-b']) {
    const sink = clickhouseSink.create(services(async () => ch));
    const ctx = context(collectingLog(), logId);
    await sink.init!(ctx);
    await Promise.all([0, 1, 2].map((offset) => sink.process(record('fetched', offset, fetchResult({ fetch_id: `${logId}#${offset}` })), ctx)));
    await sink.close!();
  }
  const [{ n }] = await ch.query<{ n: string }>('SELECT count() AS n FROM fetches FINAL');
  assert.equal(Number(n), 6, 'both crawls\' rows are kept');
});

/** The ClickHouse of `ch`, counting its INSERTs by table. */
function countingInserts(ch: ClickHouse): { ch: ClickHouse; inserts: string[] } {
  const inserts: string[] = [];
  return {
    inserts,
    ch: {
      ...ch,
      insert: (table, rows, opts) => (inserts.push(`${table} ${rows.length}`), ch.insert(table, rows, opts)),
      insertTsv: (table, columns, values, opts) => { const whole = wholePayload(values); inserts.push(`${table} ${tsvRows(whole)}`); return ch.insertTsv(table, columns, whole, opts); },
    },
  };
}

test('should write the rows of every sink task of a process in one INSERT per table', async () => {
  const ch = await openClickHouse({ dataDir: testChdbDir(), database: `sink_shared_${process.pid}` });
  opened.push(ch);
  const counted = countingInserts(ch);
  const open = async () => counted.ch;
  const tasks = [clickhouseSink.create(services(open)), clickhouseSink.create(services(open))];
  const contexts = [context(), context()];
  for (let i = 0; i < 2; i++) await tasks[i].init!(contexts[i]);
  const written = [3, 4].flatMap((partition, i) => [0, 1].map((offset) =>
    tasks[i].process(record('fetched', offset, fetchResult({ fetch_id: `p${partition}#${offset}` }), partition), contexts[i])));
  assert.equal(tasks[0].hasPendingWork!(), true);
  // Closing the first task writes what is buffered now, its neighbour's rows too, in one INSERT.
  await tasks[0].close!();
  assert.equal(tasks[0].hasPendingWork!(), false);
  await Promise.all(written);
  assert.deepEqual(counted.inserts.filter((i) => !i.startsWith('schema_migrations')), ['fetches 4']);
  await tasks[1].close!();
  const rows = await ch.query<{ p: number; n: string }>('SELECT src_partition AS p, count() AS n FROM fetches FINAL GROUP BY p ORDER BY p');
  assert.deepEqual(rows.map((r) => `${r.p}:${r.n}`), ['3:2', '4:2']);
});

test('should drop only an abandoned task\'s unwritten rows from the shared writer, and take its partition back from any offset', async () => {
  const ch = await openClickHouse({ dataDir: testChdbDir(), database: `sink_abandon_${process.pid}` });
  opened.push(ch);
  const open = async () => ch;
  const [moved, staying] = [clickhouseSink.create(services(open)), clickhouseSink.create(services(open))];
  const [movedCtx, stayingCtx] = [context(), context()];
  await moved.init!(movedCtx);
  await staying.init!(stayingCtx);
  void moved.process(record('fetched', 5, fetchResult({ fetch_id: 'moved#5' }), 3), movedCtx);
  const kept = staying.process(record('fetched', 7, fetchResult({ fetch_id: 'staying#7' }), 4), stayingCtx);
  moved.abandon!();
  assert.equal(moved.hasPendingWork!(), false, 'the new owner writes what this task had not');
  // The partition comes back to this process (a rebalance) and starts again below offset 5.
  const back = clickhouseSink.create(services(open));
  const backCtx = context();
  await back.init!(backCtx);
  const again = back.process(record('fetched', 2, fetchResult({ fetch_id: 'back#2' }), 3), backCtx);
  await staying.close!();
  await back.close!();
  await Promise.all([kept, again]);
  const ids = await ch.query<{ fetch_id: string }>('SELECT fetch_id FROM fetches FINAL ORDER BY fetch_id');
  assert.deepEqual(ids.map((r) => r.fetch_id), ['back#2', 'staying#7']);
});
