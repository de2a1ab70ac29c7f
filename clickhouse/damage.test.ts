// A part of the embedded store that ClickHouse cannot read when it starts is set aside (detached)
// and every query then answers without its rows, with no error. These tests damage a real part on
// disk and check that opening, `query` and `report` all say what is missing.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../test/support/cli.js';
import { openClickHouse } from './connection.js';
import { collectingLog } from './testing/test-harness.js';

const CHILD = fileURLToPath(new URL('./testing/damage-child.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'crawlstream-damage-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let damaged: { name: string; rows: string; path: string };

before(async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [CHILD, dir, '50', '10']);
  const parts = JSON.parse(stdout) as { name: string; rows: string; path: string }[];
  damaged = parts.find((p) => p.rows === '50')!;
  assert.ok(damaged && parts.length === 2, stdout);
  // A column file cut short, as a full disk or a crash of the machine can leave it.
  const files = readdirSync(damaged.path).filter((f) => f.endsWith('.bin'));
  const biggest = files.sort((a, b) => statSync(join(damaged.path, b)).size - statSync(join(damaged.path, a)).size)[0];
  truncateSync(join(damaged.path, biggest), 10);
});

test('should exit 3 from query and say which rows are missing, after printing what is left', { timeout: 120_000 }, async () => {
  const run = await runCli(['query', 'SELECT count() AS n FROM fetches', '--data-dir', dir, '--format', 'json']);
  assert.equal(run.code, 3, run.stderr);
  assert.equal(run.stdout, '{"n":"10"}\n');
  assert.match(run.stderr, new RegExp(`part ${damaged.name} of table crawlstream\\.fetches \\(broken-on-start: ClickHouse could not read it\\): its 50 rows are missing from every query`));
  assert.match(run.stderr, /crawl history is incomplete/);
});

test('should put the missing rows at the top of the report', { timeout: 120_000 }, async () => {
  const out = join(dir, 'report.html');
  const run = await runCli(['report', '--data-dir', dir, '--out', out]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /its 50 rows are missing/);
  const html = readFileSync(out, 'utf8');
  assert.match(html, /<section class="damage" data-damage="parts"><h2>Incomplete history<\/h2>/);
  assert.ok(html.indexOf('Incomplete history') < html.indexOf('class="summary"'), 'before any number');
  assert.match(html, new RegExp(`part ${damaged.name} of table crawlstream\\.fetches`));
});

test('should list the damaged part when the store opens and warn the caller\'s logger', { timeout: 120_000 }, async () => {
  const logger = collectingLog();
  const ch = await openClickHouse({ dataDir: dir, logger });
  try {
    assert.equal(ch.damageUnknown, undefined);
    assert.equal(ch.damage.length, 1);
    const [part] = ch.damage;
    assert.deepEqual({ table: part.table, part: part.part, reason: part.reason, rows: part.rows }, { table: 'fetches', part: damaged.name, reason: 'broken-on-start', rows: 50 });
    assert.ok(part.path?.includes('detached'), part.path);
    assert.equal(logger.warnings.length, 2, logger.warnings.join('\n'));
    assert.match(logger.warnings[0], /its 50 rows are missing from every query/);
    const [{ n }] = await ch.query<{ n: string }>('SELECT count() AS n FROM fetches');
    assert.equal(n, '10', 'what the warning is about: the count is short and ClickHouse raises no error');
  } finally {
    await ch.close();
  }
});
