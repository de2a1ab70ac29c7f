// `crawlstream query`, `report` and `clickhouse migrate` as a user runs them, on embedded ClickHouse.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../test/support/cli.js';

const root = mkdtempSync(join(tmpdir(), 'crawlstream-query-cli-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('should fail with a message, and create nothing, when the data directory does not exist', { timeout: 60_000 }, async () => {
  const missing = join(root, 'no-such-crawl');
  const query = await runCli(['query', 'SELECT count() FROM pages', '--data-dir', missing]);
  assert.equal(query.code, 1);
  assert.match(query.stderr, new RegExp(`the data directory ${missing} does not exist`));
  assert.equal(query.stdout, '');
  const report = await runCli(['report', '--data-dir', missing, '--out', join(root, 'r.html')]);
  assert.equal(report.code, 1);
  assert.match(report.stderr, /does not exist/);
  assert.ok(!existsSync(missing), 'reading made no store');
  assert.ok(!existsSync(join(root, 'r.html')));
});

test('should run one read-only statement and leave the tables as they were', { timeout: 120_000 }, async () => {
  const dataDir = join(root, 'crawl');
  const migrate = await runCli(['clickhouse', 'migrate', '--data-dir', dataDir]);
  assert.equal(migrate.code, 0, migrate.stderr);
  assert.match(migrate.stdout, /applied \d+ migration\(s\) to .*schema version \d+/);

  const drop = await runCli(['query', 'SELECT 1; DROP TABLE robots', '--data-dir', dataDir]);
  assert.equal(drop.code, 1);
  assert.match(drop.stderr, /give one statement: crawlstream query runs a single read-only statement/);
  const alter = await runCli(['query', 'TRUNCATE TABLE fetches', '--data-dir', dataDir]);
  assert.equal(alter.code, 1);
  assert.match(alter.stderr, /only reads .*crawlstream clickhouse migrate/);

  const exists = await runCli(['query', 'EXISTS TABLE robots', '--data-dir', dataDir, '--format', 'json']);
  assert.equal(exists.code, 0, exists.stderr);
  assert.match(exists.stdout, /:1\}\n$/);
  assert.equal(exists.stderr, '', 'nothing to warn about in a sound, current store');
});
