// Child process of damage.test.ts: writes fetch rows into a fresh embedded store, one part per
// INSERT, and prints that table's parts as JSON. A child, because chdb binds one directory per
// process and a part is only checked when a process opens the store.
//   node dist/clickhouse/damage-child.js <data dir> <rows in the first part> <rows in the second part> …
import { openClickHouse } from '../connection.js';
import { robotsSummary } from '../robots-digest.js';
import { fetchRows } from '../rows.js';
import { migrate } from '../schema.js';
import { fetchResult } from './test-fixtures.js';

const [dataDir, ...sizes] = process.argv.slice(2);
const ch = await openClickHouse({ dataDir });
await migrate(ch);
let offset = 0;
for (const size of sizes.map(Number)) {
  const rows = Array.from({ length: size }, () => {
    const n = offset++;
    const f = fetchResult({ fetch_id: `a.test#${n}`, url: `http://a.test/${n}`, started_at: Date.UTC(2026, 0, 1) + n * 1000 });
    return { ...fetchRows(f, robotsSummary, 'x')[0].row, sink_id: 'live:damage', src_topic: 'fetched', src_partition: 0, src_offset: n, version: 1, sunk_at: 0, log_id: 'damage' };
  });
  await ch.insert('fetches', rows);
}
const parts = await ch.query(`SELECT name, rows, path FROM system.parts WHERE database = '${ch.database}' AND table = 'fetches' AND active ORDER BY name`);
await ch.close();
process.stdout.write(JSON.stringify(parts));
