// `crawlstream query` output tests, run on every engine.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { runQuery } from './query-output.js';
import type { TestEngine } from './test-engines.js';

export function querySuite(engine: TestEngine): void {
  describe(`crawlstream query on ${engine.name}`, { concurrency: false }, () => {
    after(() => engine.cleanup());
    const sql = `SELECT toUInt16(number * 100) AS status, concat('line ', toString(number), '\\nnext') AS title,
      bitNot(toUInt64(number)) AS big FROM system.numbers LIMIT 2`;

    test('should print one JSON object per line with 64-bit integers intact', async () => {
      const ch = await engine.open();
      const out = await runQuery(ch, `${sql};`, 'json');
      assert.ok(out.endsWith('\n'));
      assert.deepEqual(out.trimEnd().split('\n').map((l) => JSON.parse(l)), [
        { status: 0, title: 'line 0\nnext', big: '18446744073709551615' },
        { status: 100, title: 'line 1\nnext', big: '18446744073709551614' },
      ]);
    });

    test('should print aligned columns under a header, numbers to the right', async () => {
      const ch = await engine.open();
      const out = await runQuery(ch, sql, 'table');
      assert.equal(out, [
        'status | title        | big',
        '-------+--------------+---------------------',
        '     0 | line 0\\nnext | 18446744073709551615',
        '   100 | line 1\\nnext | 18446744073709551614',
        '(2 rows)',
        '',
      ].join('\n'));
    });

    test('should run statements without result rows and print nothing', async () => {
      const ch = await engine.open();
      assert.equal(await runQuery(ch, '-- compact history\nOPTIMIZE TABLE fetches FINAL', 'table'), '');
      assert.equal(await runQuery(ch, 'SELECT url FROM pages', 'table'), 'url\n---\n(0 rows)\n');
    });

    test('should explain what is wrong with a query instead of printing rows', async () => {
      const ch = await engine.open();
      await assert.rejects(runQuery(ch, 'SELECT 1 FORMAT CSV', 'json'), /leave FORMAT out/);
      await assert.rejects(runQuery(ch, 'SELECT no_such_column FROM fetches', 'json'), /no_such_column/);
    });
  });
}
