// Schema tests, run on every engine (schema.test.ts: chdb; schema.integration.test.ts: the server).
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, describe, test } from 'node:test';
import { robotsSummary } from '../robots-digest.js';
import { duplicateRow, fetchRows, parsedRow, skippedRow } from '../rows.js';
import { appliedMigrations, migrate, SCHEMA_VERSION } from '../schema.js';
import type { TestEngine } from './test-engines.js';
import { sinkValues } from './test-harness.js';
import { duplicate, fetchResult, parsedPage, sha1, simhashOf, skippedUrl } from './test-fixtures.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
/** The UInt64 text ClickHouse shows for a fixture page's simhash. */
const simhashText = (url: string) => BigInt(`0x${simhashOf(url).toString('hex')}`).toString();
const B_HASH = sha1('http://b.test/x');
const B_SIMHASH = simhashText('http://b.test/x');

const sink = sinkValues;

export function schemaSuite(engine: TestEngine): void {
  describe(`ClickHouse schema on ${engine.name}`, { concurrency: false }, () => {
    after(() => engine.cleanup());

    test('should give pages the contract columns with their exact types', async () => {
      const ch = await engine.open();
      const columns = await ch.query<{ name: string; type: string }>(
        `SELECT name, type FROM system.columns WHERE database = '${ch.database}' AND table = 'pages'`,
      );
      assert.deepEqual(columns.map((c) => `${c.name} ${c.type}`), [
        'url String', 'final_url String', 'host String', 'status UInt16', 'depth UInt16', 'fetched_at DateTime',
        'bytes UInt32', 'content_hash String', 'simhash UInt64', 'duplicate_of String', 'duplicate_kind String',
        'title String', 'error String', 'content_type String', 'text String', 'relevance Float32',
      ]);
    });

    test('should count a focused crawl\'s harvest per minute, and follow a replay that judged the pages again', async () => {
      const ch = await engine.open();
      const minute = Math.floor(T0 / 60_000) * 60_000;
      const page = (i: number, at: number) => ({ topic: 'fetched' as const, value: fetchResult({ fetch_id: `h#${i}`, url: `http://h.test/${i}`, host: 'h.test', started_at: at }) });
      const judged = (i: number, at: number, relevance: number) =>
        ({ topic: 'parsed' as const, value: parsedPage({ fetch_id: `h#${i}`, url: `http://h.test/${i}`, host: 'h.test', fetched_at: at, relevance, focus_threshold: 0.5 }) });
      await sink(ch, [
        page(1, minute), page(2, minute + 1000), page(3, minute + 2000), page(4, minute + 3000), page(5, minute + 61_000),
        { topic: 'fetched', value: fetchResult({ fetch_id: 'h#r', url: 'http://h.test/robots.txt', host: 'h.test', kind: 'robots', started_at: minute }) },
        judged(1, minute, 0.75), judged(2, minute + 1000, 0.25), judged(3, minute + 2000, 0.5), judged(5, minute + 61_000, 0.125),
      ]);
      const harvest = async () => (await ch.query<Record<string, number | string>>('SELECT toUnixTimestamp(minute) AS minute, pages, judged, relevant, harvest_rate FROM focus_harvest'))
        .map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v)])));
      assert.deepEqual(await harvest(), [
        { minute: minute / 1000, pages: 4, judged: 3, relevant: 2, harvest_rate: 0.5 },
        { minute: minute / 1000 + 60, pages: 1, judged: 1, relevant: 0, harvest_rate: 0 },
      ]);
      // A replay with new examples writes newer parse rows: the view counts them instead.
      await sink(ch, [judged(2, minute + 1000, 0.875), judged(5, minute + 61_000, 0.625)], 'replay-focus');
      assert.deepEqual((await harvest()).map((r) => [r.relevant, r.harvest_rate]), [[3, 0.75], [1, 1]]);
      assert.deepEqual(await ch.query('SELECT url, relevance FROM pages WHERE url = \'http://h.test/2\''), [{ url: 'http://h.test/2', relevance: 0.875 }]);
    });

    test('should apply each migration once however often migrate runs', async () => {
      const ch = await engine.open();
      assert.deepEqual((await migrate(ch)).applied, []);
      await Promise.all([migrate(ch), migrate(ch)]);
      const applied = await appliedMigrations(ch);
      assert.deepEqual(applied.map((m) => m.version), Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    });

    test('should write rows whose fields are exactly the columns of their table', async () => {
      const ch = await engine.open();
      const robots = fetchRows(fetchResult({ kind: 'robots' }), robotsSummary, 'x');
      const samples = {
        fetches: robots[0].row, robots: robots[1].row, parsed_pages: parsedRow(parsedPage()), duplicates: duplicateRow(duplicate()), skipped: skippedRow(skippedUrl()),
      };
      const source = ['sink_id', 'src_topic', 'src_partition', 'src_offset', 'version', 'sunk_at', 'log_id'];
      for (const [table, row] of Object.entries(samples)) {
        const columns = await ch.query<{ name: string }>(`SELECT name FROM system.columns WHERE database = '${ch.database}' AND table = '${table}'`);
        assert.deepEqual([...Object.keys(row), ...source].sort(), columns.map((c) => c.name).sort(), table);
      }
    });

    test('should show per URL the latest page outcome, its latest content (also after a 304 or a failed refetch) and its earliest duplicate', async () => {
      const ch = await engine.open();
      const a = 'http://a.test/', b = 'http://b.test/x', d = 'http://d.test/', e = 'http://e.test/';
      await sink(ch, [
        { topic: 'fetched', value: fetchResult({ fetch_id: 'a#1', url: a, status: 503, error: 'http: 503 Service Unavailable', started_at: T0 }) },
        { topic: 'fetched', value: fetchResult({ fetch_id: 'a#2', url: a, status: 200, depth: 2, bytes: 4321, started_at: T0 + 60_000 }) },
        { topic: 'parsed', value: parsedPage({ fetch_id: 'a#2', url: a, title: 'A, second', content_hash: 'c2', simhash: Buffer.alloc(8, 0xff) }) },
        { topic: 'duplicates', value: duplicate({ url: a, host: 'a.test', fetch_id: 'a#2', duplicate_of: 'http://near.test/', kind: 'near', distance: 2, duplicate_of_fetched_at: T0 - 1000 }) },
        { topic: 'duplicates', value: duplicate({ url: a, host: 'a.test', fetch_id: 'a#2', duplicate_of: 'http://exact.test/', kind: 'exact', duplicate_of_fetched_at: T0 - 5000 }) },
        { topic: 'fetched', value: fetchResult({ fetch_id: 'b#1', url: b, status: 200, started_at: T0 }) },
        { topic: 'parsed', value: parsedPage({ fetch_id: 'b#1', url: b, title: 'B' }) },
        { topic: 'fetched', value: fetchResult({ fetch_id: 'b#2', url: b, status: 0, error: 'timeout: no response in 30 s', bytes: 0, started_at: T0 + 5000 }) },
        { topic: 'fetched', value: fetchResult({ fetch_id: 'c#r', url: 'http://c.test/robots.txt', kind: 'robots', started_at: T0 }) },
        { topic: 'fetched', value: fetchResult({ fetch_id: 'd#1', url: d, status: 301, final_url: 'http://d.test/new', headers: { Location: '/new' }, started_at: T0 }) },
        { topic: 'fetched', value: fetchResult({ fetch_id: 'e#1', url: e, status: 200, started_at: T0 }) },
        { topic: 'parsed', value: parsedPage({ fetch_id: 'e#1', url: e, title: 'E', content_hash: 'ce', text: 'The text of E' }) },
        { topic: 'fetched', value: fetchResult({ fetch_id: 'e#2', url: e, status: 304, bytes: 0, started_at: T0 + 9000, changed: false }) },
      ]);
      // Seconds rather than the DateTime text: the server's time zone decides how that text reads.
      const pages = await ch.query<Record<string, string | number>>(
        `SELECT url, final_url, host, status, depth, toUnixTimestamp(fetched_at) AS fetched_at, bytes, content_hash, simhash,
           duplicate_of, duplicate_kind, title, error, text FROM pages ORDER BY url`,
      );
      assert.deepEqual(pages, [
        { url: a, final_url: a, host: 'a.test', status: 200, depth: 2, fetched_at: (T0 + 60_000) / 1000, bytes: 4321, content_hash: 'c2',
          simhash: '18446744073709551615', duplicate_of: 'http://exact.test/', duplicate_kind: 'exact', title: 'A, second', error: '', text: '' },
        // A refetch that got no answer leaves the last content current.
        { url: b, final_url: b, host: 'b.test', status: 0, depth: 0, fetched_at: (T0 + 5000) / 1000, bytes: 0, content_hash: B_HASH,
          simhash: B_SIMHASH, duplicate_of: '', duplicate_kind: '', title: 'B', error: 'timeout: no response in 30 s', text: '' },
        { url: d, final_url: 'http://d.test/new', host: 'd.test', status: 301, depth: 0, fetched_at: T0 / 1000, bytes: 1000,
          content_hash: '', simhash: '0', duplicate_of: '', duplicate_kind: '', title: '', error: '', text: '' },
        // A 304 is the latest outcome; the content is that of the last fetch with a body.
        { url: e, final_url: e, host: 'e.test', status: 304, depth: 0, fetched_at: (T0 + 9000) / 1000, bytes: 0, content_hash: 'ce',
          simhash: simhashText(e), duplicate_of: '', duplicate_kind: '', title: 'E', error: '', text: 'The text of E' },
      ]);
      const redirect = await ch.query<{ redirect_location: string }>(`SELECT redirect_location FROM fetches WHERE fetch_id = 'd#1'`);
      assert.deepEqual(redirect, [{ redirect_location: '/new' }]);
    });

    test('should list the links of a page as its latest parse found them', async () => {
      const ch = await engine.open();
      const links = [
        { url: 'http://b.test/1', anchor: 'one', nofollow: false },
        { url: 'HTTP://Other.test:8080/2', anchor: 'two', nofollow: true },
      ];
      await sink(ch, [{ topic: 'parsed', value: parsedPage({ fetch_id: 'a#1', links }) }]);
      const before = await ch.query('SELECT from_url, from_host, to_url, to_host, anchor, nofollow, position FROM links ORDER BY position');
      assert.deepEqual(before, [
        { from_url: 'http://a.test/', from_host: 'a.test', to_url: 'http://b.test/1', to_host: 'b.test', anchor: 'one', nofollow: 0, position: 1 },
        { from_url: 'http://a.test/', from_host: 'a.test', to_url: 'HTTP://Other.test:8080/2', to_host: 'other.test:8080', anchor: 'two', nofollow: 1, position: 2 },
      ]);
      // A replay whose parser finds one link replaces the list rather than leaving the old tail.
      await sink(ch, [{ topic: 'parsed', value: parsedPage({ fetch_id: 'a#1', links: links.slice(0, 1) }) }], 'replay-2');
      assert.deepEqual(await ch.query('SELECT to_url FROM links'), [{ to_url: 'http://b.test/1' }]);
    });

    test('should record robots.txt outcomes with the crawl-delay and a digest of the rules', async () => {
      const ch = await engine.open();
      const body = 'User-agent: *\nDisallow: /private\n\nUser-agent: crawlstream\nCrawl-delay: 2.5\nDisallow: /x\n';
      const robots = (host: string, extra: object) =>
        ({ topic: 'fetched' as const, value: fetchResult({ fetch_id: `${host}#r`, url: `http://${host}/robots.txt`, kind: 'robots', started_at: T0, ...extra }) });
      await sink(ch, [
        robots('ok.test', { body: gzipSync(body), body_encoding: 'gzip' }),
        robots('gone.test', { status: 404 }),
        robots('down.test', { status: 503 }),
        robots('dns.test', { status: 0, error: 'dns: ENOTFOUND' }),
        robots('moved.test', { status: 301, final_url: 'http://elsewhere.test/robots.txt' }),
      ]);
      const rows = await ch.query<{ host: string; outcome: string; crawl_delay_ms: number; rules_digest: string }>(
        'SELECT host, outcome, crawl_delay_ms, rules_digest FROM robots ORDER BY host',
      );
      assert.deepEqual(rows.map((r) => [r.host, r.outcome, r.crawl_delay_ms]), [
        ['dns.test', 'unreachable', 0], ['down.test', 'unreachable', 0], ['gone.test', 'allow-all', 0],
        ['moved.test', 'redirect', 0], ['ok.test', 'rules', 2500],
      ]);
      assert.equal(rows.find((r) => r.host === 'ok.test')!.rules_digest, robotsSummary(body, 'http://ok.test/robots.txt', 'crawlstream').digest);
      const kinds = await ch.query<{ kind: string; n: string }>('SELECT kind, count() AS n FROM fetches GROUP BY kind');
      assert.deepEqual(kinds, [{ kind: 'robots', n: '5' }], 'robots.txt fetches are fetch attempts too');
    });
  });
}
