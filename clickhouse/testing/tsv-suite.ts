// The sink's TabSeparated inserts (its lines, stamps and payload: tsv-lines.ts) read back exactly as
// JSONEachRow inserts of the same rows, on one engine (chdb in tsv.test.ts, the server in
// tsv.integration.test.ts): every column of every crawl table, with the characters TabSeparated
// escapes, quotes inside arrays, non-ASCII text, 64-bit values and times.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { robotsSummary } from '../robots-digest.js';
import { rowsForRecord, type TableRow } from '../rows.js';
import { LOG_KEYED_TABLES } from '../schema.js';
import { SinkLines, tsvPayload, type Line } from '../tsv-lines.js';
import { duplicate, fetchResult, parsedPage, skippedUrl } from './test-fixtures.js';
import type { TestEngine } from './test-engines.js';

const NASTY = 'tab\there, newline\nthere, cr\r, backslash \\ and \\t literally, quote \' and "double", NUL \0, ' +
  'bell \b, feed \f, [brackets], commas, émoji 🕷, 中文, ends with a backslash \\';

const VERSION = 2 ** 52 + 1;
const SUNK_AT = 1_767_268_800;

/** Rows told apart by `id` in their key column. */
function identified(rows: TableRow[], id: string): TableRow[] {
  for (const r of rows) {
    if ('fetch_id' in r.row) r.row.fetch_id = id;
    else r.row.url = `${r.row.url as string}#${id}`;
  }
  return rows;
}

/** Rows as a JSONEachRow insert holds them: every column the sink writer stamps, set here. */
function stamped(rows: TableRow[], offset: number): TableRow[] {
  for (const r of rows) {
    Object.assign(r.row, { sink_id: 'tsv:log-1', src_topic: 'fetched', src_partition: 7, src_offset: offset, version: VERSION, sunk_at: SUNK_AT });
    if (LOG_KEYED_TABLES.has(r.table)) r.row.log_id = 'log-1';
  }
  return rows;
}

function records(): Parameters<typeof rowsForRecord>[0][] {
  return [
    { topic: 'fetched', value: fetchResult({ url: 'http://a.test/x?q=\'1\'', error: `http: ${NASTY}`, headers: { 'x-nasty': NASTY, etag: '"e\\"' },
      redirect_chain: [NASTY, 'http://a.test/'], etag: NASTY, priority: 0.1 + 0.2, render_error: NASTY,
      subrequests: [{ url: `http://a.test/${NASTY}`, resource_type: 'script', outcome: 'fetched' }] }) },
    { topic: 'fetched', value: fetchResult({ kind: 'robots', url: 'http://a.test/robots.txt', body: Buffer.from('User-agent: *\nCrawl-delay: 2\n') }) },
    { topic: 'parsed', value: parsedPage({ title: NASTY, text: `${NASTY} `.repeat(50), canonical: 'http://a.test/c', simhash: Buffer.from('ffffffffffffffff', 'hex'),
      links: [{ url: `http://b.test/${encodeURIComponent(NASTY)}`, anchor: NASTY, nofollow: true }, { url: 'http://c.test/', anchor: '', nofollow: false }] }) },
    { topic: 'duplicates', value: duplicate({ url: `http://b.test/${NASTY}` }) },
    { topic: 'skipped', value: skippedUrl({ detail: NASTY }) },
  ];
}

export function tsvSuite(engine: TestEngine): void {
  describe(`TabSeparated inserts (${engine.name})`, () => {
    after(() => engine.cleanup());

    it('should store every crawl table\'s rows exactly as JSONEachRow does', async () => {
      const ch = await engine.open();
      const byTable = new Map<string, { json: Record<string, unknown>[]; tsv: Line[] }>();
      const lines = new SinkLines();
      const of = (table: string) => byTable.get(table) ?? byTable.set(table, { json: [], tsv: [] }).get(table)!;
      records().forEach((record, i) => {
        for (const r of stamped(identified(rowsForRecord(record, robotsSummary, 'crawlstream'), `json-${i}`), i)) of(r.table).json.push(r.row);
        for (const r of identified(rowsForRecord(record, robotsSummary, 'crawlstream'), `tsv-${i}`)) of(r.table).tsv.push(lines.add(r.table, r.row, `tsv:log-1\tfetched\t7\t${i}`));
      });
      assert.deepEqual([...byTable.keys()].sort(), ['duplicates', 'fetches', 'parsed_pages', 'robots', 'skipped']);
      for (const [table, rows] of byTable) {
        const logKeyed = LOG_KEYED_TABLES.has(table);
        await ch.insert(table, rows.json);
        await ch.insertTsv(table, lines.columns(table, logKeyed), tsvPayload(rows.tsv, `\t${VERSION}\t${SUNK_AT}${logKeyed ? '\tlog-1' : ''}\n`));
        const key = 'fetch_id' in rows.json[0] ? 'fetch_id' : 'url';
        const read = await ch.query<Record<string, unknown>>(`SELECT * FROM ${table} ORDER BY ${key}`);
        const strip = (r: Record<string, unknown>) => ({ ...r, [key]: String(r[key]).replace(/(json|tsv)-/, '') });
        const json = read.filter((r) => String(r[key]).includes('json-')).map(strip);
        const tsv = read.filter((r) => String(r[key]).includes('tsv-')).map(strip);
        assert.equal(tsv.length, rows.tsv.length, table);
        assert.deepEqual(tsv, json, table);
      }
      const [page] = await ch.query<{ title: string; simhash: string; anchors: string[] }>(
        "SELECT title, toString(simhash) AS simhash, link_anchors AS anchors FROM parsed_pages WHERE fetch_id LIKE 'tsv-%'");
      assert.equal(page.title, NASTY);
      assert.equal(page.simhash, '18446744073709551615');
      assert.deepEqual(page.anchors, [NASTY, '']);
    });
  });
}
