// test-plan: e2e ~50s
// A crawl whose state was lost (deleted, or its write-ahead log cut short) refuses to run: it would
// otherwise fetch every URL again while writing nothing new to ClickHouse. With --reset-state it sets
// the old log and state aside, starts a new log from the seeds, and ClickHouse keeps what it had.
// A damaged log segment is reported, not silently cut; the crawl exits 3 when the damage took records
// a processor had not handled yet.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import type { SyntheticWeb, WebRequest } from '../test-web/synthetic-web.js';
import { query, runCli } from './support/cli.js';
import { assertPolite, canonicalOf } from './support/crawl-checks.js';
import { embeddedCrawlArgs, TEST_DELAY_MS } from './support/crawl-outcome-tests.js';
import { testWeb } from './support/test-crawl.js';

/** Every file under `dir` with its size. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => `${join(e.parentPath, e.name)} ${statSync(join(e.parentPath, e.name)).size}`)
    .sort();
}
const logIdOf = (logDir: string) => (JSON.parse(readFileSync(join(logDir, 'IDENTITY'), 'utf8')) as { logId: string }).logId;

interface Rows { rows: string; sinks: string }
const FETCH_ROWS = 'SELECT count() AS rows, uniqExact(sink_id) AS sinks FROM fetches FINAL';

describe('a crawl whose state is lost', () => {
  const t = testWeb({ scenario: 'test' }, 'crawl-state-');
  let web: SyntheticWeb;
  let dataDir: string;
  let firstLog: string;
  let firstRows: number;
  before(async () => {
    ({ web, dataDir } = t);
    const first = await runCli(embeddedCrawlArgs(web, dataDir));
    assert.equal(first.code, 0, first.stderr);
    firstLog = logIdOf(join(dataDir, 'log'));
    firstRows = Number((await query<Rows>(dataDir, FETCH_ROWS))[0].rows);
    assert.equal(firstRows, web.requests.length, 'one row per request the server saw');
  });

  it('should refuse to run when its state was deleted: a message, a non-zero exit, nothing fetched or written', async () => {
    const [rows] = await query<Rows>(dataDir, FETCH_ROWS);
    rmSync(join(dataDir, 'state'), { recursive: true });
    const logFiles = files(join(dataDir, 'log'));
    const requests = web.requests.length;
    const run = await runCli(embeddedCrawlArgs(web, dataDir));
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, new RegExp(`holds a log \\(log ${firstLog}, created [^)]+\\) but its state \\S+ is missing`));
    assert.match(run.stderr, /run `crawlstream crawl \.\.\. --data-dir \S+ --reset-state` to set the old log and state aside/);
    assert.equal(run.stdout, '', 'no crawl summary');
    assert.equal(web.requests.length, requests, 'nothing was fetched');
    assert.deepEqual(files(join(dataDir, 'log')), logFiles, 'the log is as it was');
    assert.equal(existsSync(join(dataDir, 'state')), false, 'no empty state was made');
    assert.deepEqual(await query<Rows>(dataDir, FETCH_ROWS), [rows], 'ClickHouse is as it was');
  });

  it('should, with --reset-state, set the old log aside, crawl again from the seeds and write the new log\'s rows', async () => {
    const requests = web.requests.length;
    const run = await runCli(embeddedCrawlArgs(web, dataDir, ['--reset-state']));
    assert.equal(run.code, 0, run.stderr);
    const aside = /the old log and state are now in (\S+aside-\d{8}T\d{6}Z);/.exec(run.stderr)?.[1];
    assert.ok(aside, run.stderr);
    assert.equal(logIdOf(join(aside, 'log')), firstLog, 'the old log is kept whole, aside');
    const newLog = logIdOf(join(dataDir, 'log'));
    assert.notEqual(newLog, firstLog, 'a new log');
    assert.match(run.stdout, /^crawled \d+ pages/m);
    const urls = (rs: WebRequest[]) => [...new Set(rs.map(canonicalOf))].sort();
    assert.deepEqual(urls(web.requests.slice(requests)), urls(web.requests.slice(0, requests)), 'the seeds were crawled again, as the first time');
    assertPolite(web, TEST_DELAY_MS, web.requests.slice(requests));
    const [rows] = await query<{ rows: string }>(dataDir, `SELECT count() AS rows FROM fetches FINAL WHERE sink_id = 'live:${newLog}'`);
    assert.equal(Number(rows.rows), web.requests.length - requests, 'one row per fetch of the new log, as for the first');
  });

  it('should keep every earlier row next to the new ones', async () => {
    // Fetch ids restart at <host>#1 in a new log; the log identity in every table's key keeps them apart.
    const bySink = await query<{ sink_id: string; rows: string }>(dataDir, 'SELECT sink_id, count() AS rows FROM fetches FINAL GROUP BY sink_id ORDER BY sink_id');
    const rowsOf = (logId: string) => Number(bySink.find((r) => r.sink_id === `live:${logId}`)?.rows ?? 0);
    assert.equal(bySink.length, 2, JSON.stringify(bySink));
    assert.equal(rowsOf(firstLog), firstRows, 'every earlier row kept');
    assert.equal(rowsOf(logIdOf(join(dataDir, 'log'))), web.requests.length - firstRows, 'beside one row per fetch of the new log');
  });

  it('should say which records a damaged log segment lost instead of cutting it silently', async () => {
    const dir = join(dataDir, 'log', 'fetched', '0');
    const segment = join(dir, readdirSync(dir).filter((f) => f.endsWith('.log')).sort().pop()!);
    truncateSync(segment, Math.floor(statSync(segment).size / 2));
    const run = await runCli(embeddedCrawlArgs(web, dataDir));
    assert.equal(run.code, 0, 'every processor had handled the lost records: a warning suffices');
    assert.match(run.stderr, /log damage: fetched\/0 offsets \d+\.\.\d+ \(\d+ records\) cannot be read: \d+\.log is \d+ bytes long where the state records \d+ \(cut short\); every reader had processed them already/);
    assert.match(run.stdout, /log damage: \d+ records of \S+ cannot be read .*every processor had handled them already/);
  });

  it('should exit 3 when damage took records a processor had not handled yet, after doing all else', async () => {
    // The sink is sent back to the start of fetched/0, behind the range the last test cut off.
    const db = new Level<string, string>(join(dataDir, 'state'));
    await db.put('p!sink!fetched!0', JSON.stringify({ base: 0, done: [] }));
    await db.close();
    const run = await runCli(embeddedCrawlArgs(web, dataDir));
    assert.equal(run.code, 3, run.stderr);
    const lost = /log damage: fetched\/0 offsets \d+\.\.\d+ \((\d+) records\) cannot be read: .*not yet processed by sink \((\d+)\): skipped/.exec(run.stderr);
    assert.ok(lost, run.stderr);
    assert.equal(lost[1], lost[2]);
    assert.match(run.stdout, new RegExp(`^crawled \\d+ pages`, 'm'));
    assert.match(run.stdout, new RegExp(`${lost[1]} of them were lost before every processor had handled them, so this crawl's results are incomplete`));
  });
});
