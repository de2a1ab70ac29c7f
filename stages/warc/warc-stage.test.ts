import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import { crawlTopology, extraProcessors } from '../../crawl/topology.js';
import { TopologyTestDriver } from '../../engine/test-driver/topology-test-driver.js';
import { testServices } from '../../crawl/testing/crawl-test-driver.js';
import { fetchResult } from '../../clickhouse/testing/test-fixtures.js';
import { compressBody } from '../../fetching/body-codec.js';
import type { FetchResult } from '../../schemas/records.js';
import { header, listRecords, toolsOrSkip, warcFiles } from '../../warc/warc-reader.js';
import type { WarcOutput } from '../../warc/warc-output.js';

const tools = toolsOrSkip();
const skip = 'skip' in tools ? tools.skip : false;
const py = () => tools as Exclude<typeof tools, { skip: string }>;

let root = '';
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'warc-processor-'));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

const body = compressBody(Buffer.from('<html><title>t</title>' + 'text '.repeat(400) + '</html>'));
const records: FetchResult[] = [
  fetchResult({ url: 'http://a.test/robots.txt', kind: 'robots', status: 404, status_text: 'Not Found' }),
  fetchResult({ url: 'http://a.test/', status: 200, status_text: 'OK', body_encoding: body.encoding, body: body.bytes }),
  fetchResult({ url: 'http://a.test/gone', status: 0, error: 'connect: refused' }),
  fetchResult({ url: 'http://a.test/sitemap.xml', kind: 'sitemap', status: 200, body: Buffer.from('<urlset/>'), truncation: 'length' }),
  fetchResult({ url: 'http://a.test/', status: 304, previous_sha1: 'a'.repeat(40), previous_captured_at: Date.UTC(2025, 11, 31) }),
  fetchResult({ url: 'http://a.test/broken', status: 200, body_encoding: 'gzip', body: Buffer.from('not gzip at all') }),
];

async function driver(dir: string, said: string[]) {
  const warc: WarcOutput = { dir, role: '', operator: 'ops@crawl.test' };
  const logger = { info: (m: string) => said.push(m), warn: (m: string) => said.push(`warn: ${m}`) };
  // The warc processor is added to the crawl's topology only with --warc-dir, as here.
  return TopologyTestDriver.create({ topology: crawlTopology(extraProcessors(warc)), processors: ['warc'], services: testServices({}, { warc }), logger });
}

describe('warc processor', () => {
  it('should archive what got a response, count what did not or could not be, and skip what its files hold after a restart', { skip }, async () => {
    const dir = join(root, 'a');
    const said: string[] = [];
    const d = await driver(dir, said);
    for (const r of records) await d.pipe('fetched', 'a.test', r);
    assert.equal(d.counter('warc', 'responses'), 3);
    assert.equal(d.counter('warc', 'revisits'), 1);
    assert.equal(d.counter('warc', 'no-response'), 1);
    assert.equal(d.counter('warc', 'unwritable'), 1);
    assert.equal(d.counter('warc', 'dead-letters'), 0, 'an unwritable capture is reported, not dead-lettered');
    assert.ok(said.some((m) => /^warn: warc: fetched\/0@5 \(http:\/\/a\.test\/broken\) not archived: the stored body .* does not decode/.test(m)), said.join('\n'));
    assert.ok(said.some((m) => /warc: 1 fetch\(es\) without a response not archived so far .* http:\/\/a\.test\/gone: connect: refused/.test(m)), said.join('\n'));
    await d.close();

    const listed = await listRecords(py(), warcFiles(dir));
    assert.deepEqual(listed.map((r) => `${r.type} ${header(r, 'WARC-Target-URI') ?? ''}`), [
      'warcinfo ', 'request http://a.test/robots.txt', 'response http://a.test/robots.txt', 'request http://a.test/', 'response http://a.test/',
      'request http://a.test/sitemap.xml', 'response http://a.test/sitemap.xml', 'request http://a.test/', 'revisit http://a.test/',
    ]);
    assert.match(listed[0].payload_text, /operator: ops@crawl\.test/);
    assert.equal(header(listed[6], 'WARC-Truncated'), 'length');
    assert.equal(header(listed[8], 'WARC-Refers-To-Date'), '2025-12-31T00:00:00.000Z');

    // The same offsets again (a restart from an older commit): all on disk already.
    const again = await driver(dir, said);
    for (const r of records) await again.pipe('fetched', 'a.test', r);
    assert.equal(again.counter('warc', 'already-written'), 4);
    assert.equal(again.counter('warc', 'responses') + again.counter('warc', 'revisits'), 0);
    await again.close();
    assert.equal((await listRecords(py(), warcFiles(dir))).length, listed.length, 'nothing written twice');
  });

  it('should refuse to run without a WARC directory, saying which option gives one', async () => {
    await assert.rejects(
      TopologyTestDriver.create({ topology: crawlTopology(extraProcessors({ dir: root, role: '' })), processors: ['warc'], services: testServices() }),
      /the warc processor needs a WARC directory \(--warc-dir\)/,
    );
    await assert.rejects(crawlTestDriver({ processors: ['warc'] }), /unknown processor|warc/, 'not in the crawl without --warc-dir');
  });
});
