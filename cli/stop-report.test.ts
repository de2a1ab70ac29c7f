import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatUnfinished } from './stop-report.js';

test('should name what a stop left, with its output\'s failure, and nothing when everything finished', () => {
  assert.deepEqual(formatUnfinished([], 30_000, { clickhouse: 'ClickHouse' }), []);
  const lines = formatUnfinished([
    { processor: 'parse', records: 2, sink: false },
    { processor: 'warc', records: 1, sink: true, why: { failure: 'ENOSPC: no space left on device, write' } },
    { processor: 'clickhouse-sink', records: 40, sink: true, why: { silentMs: 12_400 } },
  ], 1_500, { clickhouse: 'ClickHouse', warcDir: '/w' });
  assert.deepEqual(lines, [
    'stopped before everything finished: the stop waited 1.5 s (--stop-grace); nothing is lost: run the same command again to resume, and this is done first:',
    '  not finished: parse still held 2 records in progress',
    '  not archived: 1 record of fetched pages have no WARC capture in /w yet: writing WARC files failed: ENOSPC: no space left on device, write',
    '  not written: the rows of 40 records (fetches, pages, links, skipped URLs) are not in ClickHouse yet: ClickHouse has not answered for 12 s',
  ]);
});
