// Child process of sink-crash.test.ts: sinks a record stream into embedded ClickHouse, persisting
// committed input positions as the runtime would, until the test kills it with SIGKILL.
//   node dist/clickhouse/sink-crash-child.js <chdb data dir> <database> <positions file> <records>
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { openClickHouse } from '../connection.js';
import { migrate } from '../schema.js';
import { feed, resumeFrom, testWriter, writeRecord, type Positions } from './test-harness.js';
import { recordStream } from './test-fixtures.js';

const [dataDir, database, positionsFile, count] = process.argv.slice(2);
const ch = await openClickHouse({ dataDir, database });
await migrate(ch);
const committed: Positions = existsSync(positionsFile) ? JSON.parse(readFileSync(positionsFile, 'utf8')) : {};
const writer = testWriter(ch, { maxRows: 300, maxDelayMs: 20 });
await feed(resumeFrom(recordStream(Number(count)), committed), writeRecord(writer), {
  commitEveryMs: 25,
  pauseEvery: 20,
  onCommit(positions) {
    writeFileSync(`${positionsFile}.tmp`, JSON.stringify(positions));
    renameSync(`${positionsFile}.tmp`, positionsFile);
  },
});
await writer.close();
await ch.close();
process.stdout.write(JSON.stringify({ skipped: writer.stats.recordsSkipped, inserted: writer.stats.rowsInserted }));
