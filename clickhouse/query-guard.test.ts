// The lexer that finds what a `crawlstream query` statement calls (query-suite.ts runs the refusals on
// chdb and on a server).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertReadsOnlyCrawlData, calledNames, QueryRefused } from './query-guard.js';

const none = new Set<string>();

test('should find every name called like a function, however it is spelled', () => {
  assert.deepEqual(calledNames("SELECT count() FROM file('/etc/passwd', 'LineAsString')"), ['count', 'file']);
  assert.deepEqual(calledNames('SELECT * FROM FILE (x)'), ['file']);
  assert.deepEqual(calledNames('SELECT * FROM `file`(x), "url" /* c */ (y)'), ['file', 'url']);
  assert.deepEqual(calledNames('SELECT * FROM url\n-- c\n(y)'), ['url']);
  assert.deepEqual(calledNames('SELECT * FROM db.remote(y)'), ['remote']);
});

test('should pass over strings, quoted names and comments', () => {
  assert.deepEqual(calledNames("SELECT 'file(', \"url\", `s3` -- file(\n # url(\n /* remote( */ FROM pages"), []);
  assert.deepEqual(calledNames("SELECT 'it''s', 'a\\'b' FROM t WHERE x = $$ file( $$ AND y = $t$url($t$"), []);
  assert.deepEqual(calledNames("SELECT domain(url), lower(title) FROM pages WHERE url LIKE '%(%'"), ['domain', 'lower']);
});

test('should refuse a text it cannot read the way every ClickHouse reads it', () => {
  assert.throws(() => calledNames("SELECT 'open"), QueryRefused);
  assert.throws(() => calledNames('SELECT 1 /* open'), QueryRefused);
  assert.throws(() => calledNames('SELECT $x$ open'), QueryRefused);
  // ClickHouse 26 nests block comments, 18.16 does not: one of them would run `file(…)`.
  assert.throws(() => calledNames("SELECT 1 /* /* */ 'x */ FROM file('/etc/passwd') -- '"), /comment inside a \/\* comment/);
});

test('should refuse table functions that reach outside and allow those that read the query itself', () => {
  for (const sql of ["SELECT * FROM file('/etc/passwd', 'LineAsString')", "SELECT file('/etc/hostname')", "SELECT * FROM url('http://127.0.0.1/', 'LineAsString')",
    "SELECT * FROM remote('127.0.0.1', system.one)", "SELECT * FROM mysql('h', 'd', 't', 'u', 'p')", "SELECT * FROM executable('x', 'TSV', 'a String')",
    "DESCRIBE TABLE s3('http://127.0.0.1/x')", "EXPLAIN SELECT * FROM filesystem('/')"]) {
    assert.throws(() => assertReadsOnlyCrawlData(sql, none), /reads only the crawl's data: \w+\(\)/, sql);
  }
  for (const sql of ['SELECT * FROM numbers(3)', "SELECT * FROM values('a UInt8', 1, 2)", 'SELECT * FROM view(SELECT url FROM pages)',
    "SELECT * FROM merge(currentDatabase(), '^fetches$')", "SELECT format('{}', 'x')", 'SELECT url, domain(url) FROM pages']) {
    assert.doesNotThrow(() => assertReadsOnlyCrawlData(sql, none), sql);
  }
  // A table function the engine lists and the guard does not know is refused too.
  assert.throws(() => assertReadsOnlyCrawlData('SELECT * FROM newlake(1)', new Set(['newlake'])), /newlake\(\)/);
});
