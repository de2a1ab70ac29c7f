// test-plan: e2e uses=clickhouse
// A crawl stopped (SIGTERM) while its ClickHouse server answers INSERTs with 500, closes the
// connection, or never answers: each ends within --stop-grace, exits 5, names the rows it could not
// write with ClickHouse's own failure in its last line, and the same command resumes once the
// server works again, with one row per fetch. The server is the real one behind a loopback proxy
// that fails the sink's INSERTs on demand (clickhouse/testing/faulty-clickhouse.ts).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb } from '../test-web/synthetic-web.js';
import { startFaultyClickHouse, type ClickHouseFault, type FaultyClickHouse } from '../clickhouse/testing/faulty-clickhouse.js';
import { FETCH_COUNTS_SQL, fetchCounts } from './support/crawl-outcome-tests.js';
import { query, runCli, type CliRun } from './support/cli.js';
import { requireServices } from './support/services.js';
import { openClickHouse } from '../clickhouse/connection.js';
import { migrate } from '../clickhouse/schema.js';

const GRACE = '2s';

interface Case {
  fault: ClickHouseFault;
  web: SyntheticWeb;
  ch: FaultyClickHouse;
  database: string;
  dataDir: string;
  args: string[];
  run: CliRun;
  signalledAt: number;
  endedAt: number;
}

describe('a crawl stopped while ClickHouse fails its inserts', () => {
  const cases = new Map<ClickHouseFault, Case>();
  let server: string;

  before(async () => {
    server = requireServices().clickhouse;
    await Promise.all((['error', 'close', 'hang'] as const).map(async (fault, i) => {
      const web = await startSyntheticWeb({ scenario: 'bench', bench: { hosts: 2, pagesPerHost: 10 }, firstAddress: `127.77.${i}.1` });
      const ch = await startFaultyClickHouse({ upstream: server, failing: 'inserts' });
      const database = `sinkfault_${fault}_${Date.now()}`;
      // Migrated beforehand, in this process: every INSERT the proxy sees is then the sink's.
      const admin = await openClickHouse({ url: `${server}/${database}` });
      await migrate(admin);
      await admin.close();
      ch.fault = fault; // from the first INSERT on: every one the sink sends fails
      const dataDir = mkdtempSync(join(tmpdir(), `sink-${fault}-`));
      const args = ['crawl', ...web.seeds, '--data-dir', dataDir, '--allow-network', '127.0.0.0/8', '--default-delay-ms', '20', '--partitions', '2', '--quiet',
        '--clickhouse-url', `${ch.url}/${database}`, '--stop-grace', GRACE];
      const running = runCli(args, { timeoutMs: 120_000 });
      // Progress, not time: the stop comes once an INSERT has met its fault.
      while (ch.stats.failed === 0 && running.child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
      const signalledAt = performance.now();
      running.child.kill('SIGTERM');
      const run = await running;
      cases.set(fault, { fault, web, ch, database, dataDir, args, run, signalledAt, endedAt: performance.now() });
    }));
  });
  after(async () => {
    for (const c of cases.values()) {
      await c.ch.close();
      await c.web.close();
    }
  });

  for (const [fault, cause] of [
    ['error', /ClickHouse failed: Memory limit \(total\) exceeded/],
    ['close', /ClickHouse failed: (socket hang up|other side closed)/],
    ['hang', /ClickHouse has not answered for \d+ s$/],
  ] as const) {
    it(`should end within --stop-grace when ClickHouse ${fault === 'error' ? 'answers 500' : fault === 'close' ? 'closes the connection' : 'never answers'}, naming the rows left and why`, () => {
      const c = cases.get(fault)!;
      assert.equal(c.run.signal, null, 'it ended by itself');
      assert.equal(c.run.code, 5, c.run.stderr);
      assert.ok(c.endedAt - c.signalledAt < 20_000, `ended ${Math.round(c.endedAt - c.signalledAt)} ms after SIGTERM`);
      // Right above the summary, the last line.
      const [line, summary] = c.run.stdout.trimEnd().split('\n').slice(-2);
      assert.match(summary, /^stopped after \d+ pages/);
      assert.match(line, /^ {2}not written: the rows of \d+ records \(fetches, pages, links, skipped URLs\) are not in ClickHouse yet: /);
      assert.match(line, cause, 'ClickHouse\'s own failure is right above the summary');
      assert.match(c.run.stdout, /nothing is lost: run the same command again to resume/);
    });
  }

  it('should write every row once the server works again and the same command runs again', async () => {
    const c = cases.get('error')!;
    c.ch.fault = 'none';
    const again = await runCli(c.args, { timeoutMs: 120_000 });
    assert.equal(again.code, 0, again.stderr);
    const robots = c.web.requests.filter((r) => r.path.endsWith('/robots.txt')).length;
    const sitemap = c.web.requests.filter((r) => r.path === '/sitemap.xml').length;
    const counts = fetchCounts((await query('', FETCH_COUNTS_SQL, ['--clickhouse-url', `${server}/${c.database}`]))[0]);
    assert.deepEqual(counts, { page: c.web.requests.length - robots - sitemap, robots, sitemap, fetchIds: c.web.requests.length });
  });
});
