// `crawlstream query` output tests, run on every engine.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import type { ClickHouse } from '../connection.js';
import { openClickHouse } from '../connection.js';
import { runQuery } from '../query-output.js';
import type { TestEngine } from './test-engines.js';

export function querySuite(engine: TestEngine): void {
  describe(`crawlstream query on ${engine.name}`, { concurrency: false }, () => {
    after(() => engine.cleanup());
    const sql = `SELECT toUInt16(number * 100) AS status, concat('line ', toString(number), '\\nnext') AS title,
      bitNot(toUInt64(number)) AS big FROM system.numbers LIMIT 2`;
    /** A migrated database, and the read-only connection `crawlstream query` would open on it. */
    const reader = async (): Promise<{ ch: ClickHouse; ro: ClickHouse }> => {
      const ch = await engine.open();
      return { ch, ro: await engine.reopen(ch, { readOnly: true }) };
    };
    const tables = async (ch: ClickHouse) => (await ch.query<{ name: string }>('SHOW TABLES')).map((t) => t.name).sort();

    test('should print one JSON object per line with 64-bit integers intact', async () => {
      const { ro } = await reader();
      const out = await runQuery(ro, `${sql};`, 'json');
      assert.ok(out.endsWith('\n'));
      assert.deepEqual(out.trimEnd().split('\n').map((l) => JSON.parse(l)), [
        { status: 0, title: 'line 0\nnext', big: '18446744073709551615' },
        { status: 100, title: 'line 1\nnext', big: '18446744073709551614' },
      ]);
    });

    test('should print aligned columns under a header, numbers to the right', async () => {
      const { ro } = await reader();
      const out = await runQuery(ro, sql, 'table');
      assert.equal(out, [
        'status | title        | big',
        '-------+--------------+---------------------',
        '     0 | line 0\\nnext | 18446744073709551615',
        '   100 | line 1\\nnext | 18446744073709551614',
        '(2 rows)',
        '',
      ].join('\n'));
      assert.equal(await runQuery(ro, '-- what was fetched\nSELECT url FROM pages', 'table'), 'url\n---\n(0 rows)\n');
    });

    test('should explain what is wrong with a query instead of printing rows', async () => {
      const { ro } = await reader();
      await assert.rejects(runQuery(ro, 'SELECT 1 FORMAT CSV', 'json'), /leave FORMAT out/);
      await assert.rejects(runQuery(ro, 'SELECT no_such_column FROM fetches', 'json'), /no_such_column/);
      await assert.rejects(runQuery(ro, '  ;  ', 'json'), /empty query/);
    });

    test('should run one statement and refuse a second one hidden behind it', async () => {
      const { ch, ro } = await reader();
      const before = await tables(ch);
      await assert.rejects(runQuery(ro, 'SELECT 1; DROP TABLE robots', 'json'), /give one statement/);
      await assert.rejects(runQuery(ro, 'SELECT 1 AS a; SELECT 2 AS b;', 'table'), /give one statement/);
      // Semicolons inside a string, a quoted name or a comment do not end the statement.
      assert.equal(await runQuery(ro, "SELECT ';' AS `a;b` /* ; */ -- ;\n", 'json'), '{"a;b":";"}\n');
      assert.deepEqual(await tables(ch), before);
    });

    test('should refuse every statement that would change the crawl history', async () => {
      const { ch, ro } = await reader();
      const before = await tables(ch);
      for (const statement of ['DROP TABLE robots', 'OPTIMIZE TABLE fetches FINAL', "INSERT INTO skipped (url) VALUES ('x')", 'TRUNCATE TABLE fetches', '/* x */ ALTER TABLE fetches DELETE WHERE 1']) {
        await assert.rejects(runQuery(ro, statement, 'json'), /only reads/, statement);
      }
      // The connection itself is read-only, whatever reaches it past runQuery's checks.
      await assert.rejects(ro.command('DROP TABLE robots'), /readonly/i);
      await assert.rejects(ro.command('SELECT 1; DROP TABLE robots'));
      await assert.rejects(ro.query('SELECT 1 SETTINGS readonly = 0'), /readonly/i);
      assert.deepEqual(await tables(ch), before);
      await assert.rejects(runQuery(ch, 'SELECT 1', 'json'), /needs a read-only connection/);
    });

    test('should refuse every table function that reads files, URLs, other databases or programs, before sending it', async () => {
      const { ro } = await reader();
      // A server on loopback that must never be asked: url() would send it a GET.
      let asked = 0;
      const server = createServer((_req, res) => {
        asked++;
        res.end('secret\n');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const secret = `http://127.0.0.1:${(server.address() as AddressInfo).port}/secret`;
      try {
        const refusals = [
          "SELECT * FROM file('/etc/passwd', 'LineAsString')", "SELECT * FROM file('/etc/passwd', 'TSV', 'line String')", "SELECT file('/etc/hostname') AS x",
          `SELECT * FROM url('${secret}', 'TSV', 'line String')`, `SELECT count() FROM pages WHERE url IN (SELECT * FROM url ('${secret}', 'TSV', 'u String'))`,
          `DESCRIBE TABLE url('${secret}', 'TSV', 'line String')`, `/* x */ SELECT * FROM "url"('${secret}', 'TSV', 'line String')`,
          "SELECT * FROM remote('127.0.0.1', system.one)", "SELECT * FROM mysql('127.0.0.1:3306', 'd', 't', 'u', 'p')",
          "SELECT * FROM executable('cat /etc/passwd', 'TSV', 'a String')",
        ];
        // And every table function this engine has that does not make its rows from the query itself.
        const listed = (await ro.query<{ name: string }>('SELECT name FROM system.table_functions')).map((r) => r.name);
        const local = new Set(['numbers', 'numbers_mt', 'zeros', 'zeros_mt', 'values', 'null', 'view', 'viewIfPermitted', 'viewExplain', 'merge',
          'generateRandom', 'generateSeries', 'generate_series', 'format', 'primes', 'SQLStandardValues']);
        for (const name of listed) if (!local.has(name)) refusals.push(`SELECT * FROM ${name}('/etc/passwd')`);
        assert.ok(refusals.length >= (engine.name === 'chdb' ? 60 : 15), `${listed.length} table functions listed`);
        for (const sql of refusals) await assert.rejects(runQuery(ro, sql, 'json'), /reads only the crawl's data: \w+\(\)/, sql);
        assert.equal(asked, 0, 'no request reached the loopback server');
        // Tables and table functions that read the crawl's own data still work.
        assert.equal(await runQuery(ro, "SELECT count() AS n FROM merge(currentDatabase(), '^fetches$')", 'json'), '{"n":"0"}\n');
        assert.equal(await runQuery(ro, 'SELECT sum(number) AS s FROM numbers(4)', 'json'), '{"s":"6"}\n');
        await assert.rejects(runQuery(ro, `CREATE TEMPORARY TABLE t (line String) ENGINE = URL('${secret}', TSV)`, 'json'), /only reads|reads only/);
        assert.equal(asked, 0);
      } finally {
        server.close();
      }
    });

    test('should refuse to read a database that does not exist instead of answering with nothing', async () => {
      const { ch } = await reader();
      const location = engine.name === 'chdb' ? { dataDir: ch.location.replace(/\/clickhouse$/, '') } : { url: process.env.CLICKHOUSE_URL };
      await assert.rejects(openClickHouse({ ...location, database: `${ch.database}_never_crawled`, readOnly: true }), /has no database \w+_never_crawled/);
      const [{ n }] = await ch.query<{ n: string }>(`SELECT count() AS n FROM system.databases WHERE name = '${ch.database}_never_crawled'`);
      assert.equal(n, '0', 'reading created nothing');
    });
  });
}
