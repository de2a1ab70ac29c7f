// test-plan: e2e uses=clickhouse ~27s
// The ClickHouse server dies (SIGKILL) and comes back while the sink streams inserts into it: every
// row must land exactly once. Runs against a clickhouse-server of its own (not CLICKHOUSE_URL's,
// which others share), started from CLICKHOUSE_SERVER_BIN on free loopback ports.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { openClickHouse } from './connection.js';
import { migrate } from './schema.js';
import { CLICKHOUSE_SERVER_BIN, startOwnServer } from './testing/test-engines.js';
import { collectingLog, compareKeys, feed, physicalRowKeys, testWriter, writeRecord } from './testing/test-harness.js';
import { expectedRowKeys, recordStream } from './testing/test-fixtures.js';

const skip = existsSync(CLICKHOUSE_SERVER_BIN) ? false : `no clickhouse-server at ${CLICKHOUSE_SERVER_BIN}`;

test('should hold every row exactly once when the server is killed and restarted during a stream of inserts', { skip, timeout: 180_000 }, async () => {
  const server = await startOwnServer();
  try {
    const ch = await openClickHouse({ url: server.url, database: 'kill_test' });
    await migrate(ch);
    const logger = collectingLog();
    const writer = testWriter(ch, { logger, maxRows: 1000, maxDelayMs: 30, maxBackoffMs: 200 });
    const records = recordStream(40_000);
    let kills = 0;
    const chaos = (async () => {
      for (const wait of [700, 900]) {
        await new Promise((r) => setTimeout(r, wait));
        while (writer.stats.inserts === 0) await new Promise((r) => setTimeout(r, 10));
        server.kill9();
        kills++;
        await new Promise((r) => setTimeout(r, 500));
        await server.restart();
      }
    })();
    const result = await feed(records, writeRecord(writer), { maxInFlight: 20_000, pauseEvery: 200 });
    await chaos;
    assert.equal(result.crashed, false);
    assert.equal(kills, 2);
    assert.ok(writer.stats.failures > 0, 'inserts failed while the server was down');
    assert.ok(logger.warnings.length >= 1 && logger.warnings.length <= 2, logger.warnings.join('\n'));
    const { duplicates, missing, extra } = compareKeys(await physicalRowKeys(ch), expectedRowKeys(records));
    assert.deepEqual({ duplicates: duplicates.slice(0, 3), missing: missing.slice(0, 3), extra: extra.slice(0, 3) }, { duplicates: [], missing: [], extra: [] });
    await ch.close();
  } finally {
    await server.stop();
  }
});
