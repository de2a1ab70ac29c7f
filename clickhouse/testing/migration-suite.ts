// Several crawls in one database, schema migrations of existing data, and restoring what was
// dropped; run on every engine (migration.test.ts: chdb; migration.integration.test.ts: the server).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { ClickHouse } from '../connection.js';
import { fetchRows, parsedRow } from '../rows.js';
import { robotsSummary } from '../robots-digest.js';
import { MIGRATIONS, migrate, SCHEMA_VERSION, SINK_TABLES } from '../schema.js';
import type { TestEngine } from './test-engines.js';
import { collectingLog, sinkValues } from './test-harness.js';
import { duplicate, fetchResult, parsedPage, skippedUrl } from './test-fixtures.js';
import type { SinkInput } from '../rows.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const A = 'live:3f0c5a52-0000-4000-8000-00000000000a';
const B = 'live:3f0c5a52-0000-4000-8000-00000000000b';
const logOf = (sinkId: string) => sinkId.slice(sinkId.indexOf(':') + 1);

/** One crawl's view of host a.test: fetch ids restart at a.test#1 in every crawl. */
function crawl(label: string, at: number, only: string): SinkInput[] {
  return [
    { topic: 'fetched', value: fetchResult({ fetch_id: 'a.test#1', url: 'http://a.test/', started_at: at, bytes: at === T0 ? 100 : 200 }) },
    { topic: 'parsed', value: parsedPage({ fetch_id: 'a.test#1', url: 'http://a.test/', fetched_at: at, title: `home by ${label}`, links: [{ url: `http://${label}.test/`, anchor: label, nofollow: false }] }) },
    { topic: 'fetched', value: fetchResult({ fetch_id: 'a.test#2', url: `http://a.test/${only}`, started_at: at + 1000 }) },
    { topic: 'parsed', value: parsedPage({ fetch_id: 'a.test#2', url: `http://a.test/${only}`, fetched_at: at + 1000, title: `${only} by ${label}` }) },
  ];
}

/** Every table and view with its columns in order (18.16's system.columns has no position) and its key. */
async function shape(ch: ClickHouse): Promise<string[]> {
  const tables = await ch.query<{ name: string; sorting_key: string }>(
    `SELECT name, sorting_key FROM system.tables WHERE database = '${ch.database}' ORDER BY name`,
  );
  const out: string[] = [];
  for (const t of tables) {
    const columns = await ch.query<{ name: string; type: string }>(`DESCRIBE TABLE ${t.name}`);
    out.push(`${t.name} (${columns.map((c) => `${c.name} ${c.type}`).join(', ')}) ORDER BY (${t.sorting_key})`);
  }
  return out;
}

export function migrationSuite(engine: TestEngine): void {
  describe(`ClickHouse migrations and several crawls on ${engine.name}`, { concurrency: false }, () => {
    after(() => engine.cleanup());

    test('should keep the rows of two crawls that reuse the same fetch ids in one database', async () => {
      const ch = await engine.open();
      await sinkValues(ch, [...crawl('first', T0, 'only-first'), { topic: 'duplicates', value: duplicate({ fetch_id: 'a.test#1', url: 'http://a.test/', host: 'a.test', duplicate_of: 'http://orig.test/' }) }], A);
      await sinkValues(ch, crawl('second', T0 + 60_000, 'only-second'), B);
      const fetches = await ch.query<{ log_id: string; fetch_id: string; url: string }>('SELECT log_id, fetch_id, url FROM fetches FINAL ORDER BY log_id, fetch_id');
      assert.deepEqual(fetches, [
        { log_id: logOf(A), fetch_id: 'a.test#1', url: 'http://a.test/' },
        { log_id: logOf(A), fetch_id: 'a.test#2', url: 'http://a.test/only-first' },
        { log_id: logOf(B), fetch_id: 'a.test#1', url: 'http://a.test/' },
        { log_id: logOf(B), fetch_id: 'a.test#2', url: 'http://a.test/only-second' },
      ]);
      // The latest fetch of a URL comes with its own parse and duplicates, never another crawl's.
      const pages = await ch.query('SELECT url, title, bytes, duplicate_of FROM pages ORDER BY url');
      assert.deepEqual(pages, [
        { url: 'http://a.test/', title: 'home by second', bytes: 200, duplicate_of: '' },
        { url: 'http://a.test/only-first', title: 'only-first by first', bytes: 1000, duplicate_of: '' },
        { url: 'http://a.test/only-second', title: 'only-second by second', bytes: 1000, duplicate_of: '' },
      ]);
      const links = await ch.query("SELECT to_url, log_id FROM links WHERE from_url = 'http://a.test/' ORDER BY to_url");
      assert.deepEqual(links, [{ to_url: 'http://first.test/', log_id: logOf(A) }, { to_url: 'http://second.test/', log_id: logOf(B) }]);

      // A replay of the first crawl's log replaces that crawl's rows and leaves the second's alone.
      await sinkValues(ch, [{ topic: 'parsed', value: parsedPage({ fetch_id: 'a.test#1', url: 'http://a.test/', fetched_at: T0, title: 'home by first, parsed again' }) }],
        `replay-1:${logOf(A)}`);
      const titles = await ch.query('SELECT log_id, title FROM parsed_pages FINAL WHERE fetch_id = \'a.test#1\' ORDER BY log_id');
      assert.deepEqual(titles, [{ log_id: logOf(A), title: 'home by first, parsed again' }, { log_id: logOf(B), title: 'home by second' }]);
      const [{ n }] = await ch.query<{ n: string }>('SELECT count() AS n FROM fetches FINAL');
      assert.equal(n, '4');
    });

    test('should migrate a version-1 database in place, keeping its rows', async () => {
      const ch = await engine.open({ migrations: MIGRATIONS.filter((m) => m.version === 1) });
      const source = { sink_id: 'live', src_topic: 'fetched', src_partition: 0, src_offset: 0, version: 1, sunk_at: T0 / 1000 };
      await ch.insert('fetches', [{ ...fetchRows(fetchResult({ fetch_id: 'a.test#1', url: 'http://a.test/', started_at: T0 }), robotsSummary, 'x')[0].row, ...source }]);
      await ch.insert('parsed_pages', [{ ...parsedRow(parsedPage({ fetch_id: 'a.test#1', title: 'from before' })), ...source, src_topic: 'parsed' }]);

      const result = await migrate(ch);
      assert.deepEqual(result, { applied: MIGRATIONS.filter((m) => m.version > 1).map((m) => m.version), restored: [], version: SCHEMA_VERSION });
      assert.deepEqual(await ch.query('SELECT url, title FROM pages'), [{ url: 'http://a.test/', title: 'from before' }]);
      assert.deepEqual(await ch.query('SELECT fetch_id, log_id FROM fetches FINAL'), [{ fetch_id: 'a.test#1', log_id: '' }]);
      // A crawl written after the migration reuses the fetch id without replacing the old row.
      await sinkValues(ch, crawl('later', T0 + 60_000, 'x'), B);
      const [{ n }] = await ch.query<{ n: string }>("SELECT count() AS n FROM fetches FINAL WHERE fetch_id = 'a.test#1'");
      assert.equal(n, '2');
    });

    test('should give a migrated, a restored and a fresh database the same tables', async () => {
      const fresh = await engine.open();
      const migrated = await engine.open({ migrations: MIGRATIONS.filter((m) => m.version === 1) });
      await migrate(migrated);
      const restored = await engine.open();
      for (const view of ['pages', 'links']) await restored.command(`DROP TABLE ${view}`);
      for (const table of SINK_TABLES) await restored.command(`DROP TABLE ${table}`);
      await migrate(restored);
      const expected = await shape(fresh);
      assert.match(expected.join('\n'), /^fetches \(.*, sunk_at DateTime, log_id String\) ORDER BY \(host, fetch_id, log_id\)$/m);
      assert.deepEqual(await shape(migrated), expected);
      assert.deepEqual(await shape(restored), expected);
    });

    test('should restore a dropped table and view, say so, and find nothing to restore the next time', async () => {
      const ch = await engine.open();
      await sinkValues(ch, crawl('first', T0, 'x'), A);
      await ch.command('DROP TABLE robots');
      await ch.command('DROP TABLE pages');
      const logger = collectingLog();
      const result = await migrate(ch, { logger });
      assert.deepEqual(result, { applied: [], restored: ['robots', 'pages'], version: SCHEMA_VERSION });
      assert.match(logger.warnings.join('\n'), /table \S+\.robots was missing and has been created again, empty: the rows it held are lost/);
      assert.match(logger.infos.join('\n'), /view \S+\.pages was missing/);
      assert.equal((await ch.query('SELECT url FROM pages')).length, 2, 'the restored view shows the rows still in fetches');
      assert.deepEqual((await migrate(ch)).restored, []);
    });

    test('should keep one skipped row per URL, reason and crawl', async () => {
      const ch = await engine.open();
      const x = 'http://c.test/private/x';
      await sinkValues(ch, [
        { topic: 'skipped', value: skippedUrl({ url: x, reason: 'robots-disallowed', decided_at: T0 }) },
        { topic: 'skipped', value: skippedUrl({ url: x, reason: 'robots-disallowed', decided_at: T0 + 5000, detail: 'Disallow: /private/' }) },
        { topic: 'skipped', value: skippedUrl({ url: x, reason: 'host-budget', detail: '100 pages', decided_at: T0 }) },
        { topic: 'skipped', value: skippedUrl({ url: 'http://d.test/', host: '', reason: 'network-policy', detail: '10.0.0.1 is private', depth: 70_000, decided_at: T0 }) },
      ], A);
      await sinkValues(ch, [{ topic: 'skipped', value: skippedUrl({ url: x, reason: 'robots-disallowed', decided_at: T0 + 9000 }) }], B);
      const rows = await ch.query(
        'SELECT url, host, reason, detail, depth, decided_at_ms, toUnixTimestamp(decided_at) AS decided_s, log_id FROM skipped FINAL ORDER BY url, reason, log_id',
      );
      assert.deepEqual(rows, [
        { url: x, host: 'c.test', reason: 'host-budget', detail: '100 pages', depth: 1, decided_at_ms: String(T0), decided_s: T0 / 1000, log_id: logOf(A) },
        { url: x, host: 'c.test', reason: 'robots-disallowed', detail: 'Disallow: /private/', depth: 1, decided_at_ms: String(T0 + 5000), decided_s: T0 / 1000 + 5, log_id: logOf(A) },
        { url: x, host: 'c.test', reason: 'robots-disallowed', detail: 'Disallow: /private', depth: 1, decided_at_ms: String(T0 + 9000), decided_s: T0 / 1000 + 9, log_id: logOf(B) },
        { url: 'http://d.test/', host: 'd.test', reason: 'network-policy', detail: '10.0.0.1 is private', depth: 65535, decided_at_ms: String(T0), decided_s: T0 / 1000, log_id: logOf(A) },
      ]);
    });
  });
}
