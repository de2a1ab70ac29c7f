import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { crawlTestDriver, type CrawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import { PLAIN_RESULT, type DiscoveredUrl, type FetchResult, type ParsedPage } from '../../schemas/records.js';
import { compressBody } from '../../fetching/body-codec.js';
import { PdfPool } from '../../pdf/pdf-pool.js';
import { encryptedPdf, textPdf } from '../../pdf/testing/test-pdfs.js';
import { discoveredEntries, MAX_BATCH_URLS } from '../../contract/url-batch.js';

const HOST = '127.0.0.9:8080';
const PAGE = `http://${HOST}/articles/one.html`;

/** Enough text to take the body past the 1 KB below which bodies are stored uncompressed. */
const FILLER = '<p>' + 'The river runs past the old mill and under the stone bridge. '.repeat(30) + '</p>';

function fetched(body: Buffer | string, over: Partial<FetchResult> = {}): FetchResult {
  const stored = compressBody(Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'));
  return {
    ...PLAIN_RESULT,
    fetch_id: `${HOST}#1`, url: PAGE, host: HOST, kind: 'page', depth: 2, attempt: 1, via: 'link', source_url: `http://${HOST}/`,
    redirect_hops: 0, status: 200, error: '', final_url: PAGE, redirect_chain: [], headers: { 'content-type': 'text/html' },
    started_at: Date.UTC(2026, 0, 1, 12), elapsed_ms: 30, ttfb_ms: 10, bytes: stored.bytes.length, wire_bytes: stored.bytes.length,
    content_type: 'text/html', charset: 'utf-8', truncated: false, retry_after_ms: 0, conditional: false,
    remote_address: '127.0.0.9', body_encoding: stored.encoding, body: stored.bytes, ...over,
  };
}

function page(head: string, body: string): string {
  return `<!doctype html><html lang="en"><head>${head}</head><body>${body}${FILLER}</body></html>`;
}

const LINKS = `
  <a href="/about">About us</a>
  <a href="http://other.test:8081/x?y=1">Other host</a>
  <a href="https://third.test/z">Third</a>
  <a href="http://ads.test/buy" rel="nofollow">Sponsor</a>
  <a href="http://ugc.test/comment" rel="ugc">Comment</a>`;

async function parse(value: FetchResult, config: Record<string, unknown> = {}, services: { pdfPool?: PdfPool } = {}) {
  const d = await crawlTestDriver({ processors: ['parse'], config, services });
  await d.pipe('fetched', value.host, value);
  const out = {
    parsed: d.readOutput('parsed'),
    discovered: d.readOutput('discovered-urls'),
    skipped: d.readOutput('skipped'),
    dead: d.readOutput('dead-letters'),
  };
  await d.close();
  return out;
}

describe('parse', () => {
  it('should record title, canonical, content hash, 8-byte simhash and links of an HTML page', async () => {
    const html = page('<title>  One   article </title><link rel="canonical" href="/articles/one">', LINKS);
    const input = fetched(html);
    assert.equal(input.body_encoding, 'lz4', 'the fixture exercises the compressed body path');
    const { parsed } = await parse(input);
    assert.equal(parsed.length, 1);
    const p = parsed[0];
    assert.equal(p.key, HOST);
    assert.equal(p.value.url, PAGE);
    assert.equal(p.value.fetch_id, input.fetch_id);
    assert.equal(p.value.fetched_at, input.started_at);
    assert.equal(p.value.title, 'One article');
    assert.equal(p.value.canonical, `http://${HOST}/articles/one`);
    assert.equal(p.value.lang, 'en');
    assert.match(p.value.content_hash, /^[0-9a-f]{40}$/);
    assert.ok(Buffer.isBuffer(p.value.simhash) && p.value.simhash.length === 8);
    assert.notDeepEqual(p.value.simhash, Buffer.alloc(8), 'a page with text has a non-zero simhash');
    assert.ok(p.value.text_length > 1000);
    assert.equal(p.value.error, '');
    assert.deepEqual(p.value.links.map((l) => [l.url, l.anchor, l.nofollow]), [
      [`http://${HOST}/about`, 'About us', false],
      ['http://other.test:8081/x?y=1', 'Other host', false],
      ['https://third.test/z', 'Third', false],
      ['http://ads.test/buy', 'Sponsor', true],
      ['http://ugc.test/comment', 'Comment', true],
    ]);
  });

  it('should forward followable links keyed by their own host, one level deeper', async () => {
    const { discovered } = await parse(fetched(page('<title>t</title>', LINKS), { depth: 2 }));
    assert.deepEqual(discovered.map((r) => [r.key, r.value.url]), [
      [HOST, `http://${HOST}/about`],
      ['other.test:8081', 'http://other.test:8081/x?y=1'],
      ['third.test', 'https://third.test/z'],
    ], 'nofollow (and ugc/sponsored) links are not forwarded');
    for (const r of discovered) {
      assert.equal(r.value.depth, 3);
      assert.equal(r.value.via, 'link');
      assert.equal(r.value.source_url, PAGE);
      assert.equal(r.value.redirect_hops, 0);
    }
    assert.equal(discovered[1].value.anchor, 'Other host');
  });

  it('should send a page\'s links to three hosts as three records, each holding all of its host\'s links in page order', async () => {
    const links = [
      ['/a', 'A'], ['http://other.test:8081/1', 'O1'], ['/b', 'B'], ['https://third.test/1', 'T1'],
      ['http://OTHER.test:8081/2', 'O2'], ['/c', 'C'], ['http://ads.test/x" rel="nofollow', 'Ad'],
    ].map(([href, text]) => `<a href="${href}">${text}</a>`).join('\n');
    const { discovered } = await parse(fetched(page('<title>t</title>', links), { depth: 1 }));
    assert.deepEqual(discovered.map((r) => [r.key, discoveredEntries(r.value).map((e) => [e.url, e.anchor])]), [
      [HOST, [[`http://${HOST}/a`, 'A'], [`http://${HOST}/b`, 'B'], [`http://${HOST}/c`, 'C']]],
      ['other.test:8081', [['http://other.test:8081/1', 'O1'], ['http://other.test:8081/2', 'O2']]],
      ['third.test', [['https://third.test/1', 'T1']]],
    ]);
    assert.ok(discovered.every((r) => r.value.depth === 2 && r.value.via === 'link' && r.value.source_url === PAGE));
  });

  it('should split a host\'s share of a huge link list at the batch bound, losing no link', async () => {
    const n = 2 * MAX_BATCH_URLS + 10;
    const links = Array.from({ length: n }, (_, i) => `<a href="/p/${i}">${i}</a>`).join('');
    const { discovered } = await parse(fetched(page('<title>t</title>', links)));
    assert.deepEqual(discovered.map((r) => discoveredEntries(r.value).length), [MAX_BATCH_URLS, MAX_BATCH_URLS, 10]);
    assert.deepEqual(discovered.flatMap((r) => discoveredEntries(r.value).map((e) => e.url)), Array.from({ length: n }, (_, i) => `http://${HOST}/p/${i}`));
  });

  it('should forward no links from a page with meta robots nofollow, yet record them in parsed', async () => {
    const { parsed, discovered } = await parse(fetched(page('<meta name="robots" content="noindex, nofollow">', LINKS)));
    assert.deepEqual(discovered, []);
    assert.equal(parsed.length, 1);
    assert.equal(parsed[0].value.meta_nofollow, true);
    assert.equal(parsed[0].value.meta_noindex, true);
    assert.equal(parsed[0].value.links.length, 5);
  });

  it('should honour a meta tag addressed to our product token', async () => {
    const { discovered } = await parse(fetched(page('<meta name="crawlstream" content="nofollow">', LINKS)));
    assert.deepEqual(discovered, []);
  });

  it('should not forward links that would exceed the maximum depth', async () => {
    const atLimit = await parse(fetched(page('', LINKS), { depth: 4 }), { maxDepth: 4 });
    assert.deepEqual(atLimit.discovered, []);
    assert.equal(atLimit.parsed.length, 1, 'the page itself is still recorded');
    const below = await parse(fetched(page('', LINKS), { depth: 3 }), { maxDepth: 4 });
    assert.deepEqual(below.discovered.map((r) => r.value.depth), [4, 4, 4]);
  });

  it('should send a redirect target back to discovery with one more hop, keyed by its host', async () => {
    const { parsed, discovered } = await parse(fetched('', {
      status: 301, final_url: 'http://moved.test:9000/new', redirect_hops: 1, depth: 2, headers: { location: 'http://moved.test:9000/new' },
      content_type: '', charset: '',
    }));
    assert.deepEqual(parsed, [], 'a redirect is not a page');
    assert.equal(discovered.length, 1);
    const [r] = discovered;
    assert.equal(r.key, 'moved.test:9000');
    assert.equal(r.value.url, 'http://moved.test:9000/new');
    assert.equal(r.value.via, 'redirect');
    assert.equal(r.value.redirect_hops, 2);
    assert.equal(r.value.source_url, PAGE);
    assert.equal(r.value.depth, 2, 'a redirect hop is the same page, not a level deeper');
    assert.deepEqual(r.value.more, [], 'a redirect target is a record of its own');
  });

  it('should say, in a skipped row, that a page had more links than are kept', async () => {
    const many = Array.from({ length: 5_300 }, (_, i) => `<a href="/l/${i}">${i}</a>`).join('');
    const { parsed, discovered, skipped } = await parse(fetched(page('<title>Links</title>', many)));
    assert.equal(parsed[0].value.links.length, 5_000);
    assert.equal(discovered.reduce((n, r) => n + 1 + r.value.more.length, 0), 5_000);
    assert.equal(skipped.length, 1);
    assert.equal(skipped[0].value.reason, 'links-per-page');
    assert.equal(skipped[0].value.url, PAGE);
    assert.match(skipped[0].value.detail, /^the page has more than 5000 links: the first 5000 were kept, at least 300 more were not followed$/);
    const few = await parse(fetched(page('<title>Links</title>', LINKS)));
    assert.deepEqual(few.skipped, []);
  });

  it('should produce nothing for a robots.txt fetch', async () => {
    const out = await parse(fetched('User-agent: *\nDisallow: /\n<a href="/x">x</a>', {
      kind: 'robots', url: `http://${HOST}/robots.txt`, final_url: `http://${HOST}/robots.txt`, content_type: 'text/html',
    }));
    assert.deepEqual(out, { parsed: [], discovered: [], skipped: [], dead: [] });
  });

  it('should record a non-HTML body with the hash of its bytes and no links', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('<a href="/x">x</a>'.repeat(100))]);
    const { parsed, discovered } = await parse(fetched(png, { content_type: 'image/png', charset: '' }));
    assert.equal(parsed.length, 1);
    assert.equal(parsed[0].value.content_hash, createHash('sha1').update(png).digest('hex'));
    assert.deepEqual(parsed[0].value.links, []);
    assert.equal(parsed[0].value.text_length, 0);
    assert.equal(parsed[0].value.error, '');
    assert.deepEqual(discovered, []);
  });

  it('should record a corrupt stored body as an error instead of failing', async () => {
    const good = fetched(page('<title>t</title>', LINKS));
    const corrupt = Buffer.from(good.body);
    corrupt.fill(0x41, 20, 60);
    const { parsed, discovered, dead } = await parse({ ...good, body: corrupt });
    assert.deepEqual(dead, [], 'not a dead letter: the record was handled');
    assert.equal(parsed.length, 1);
    assert.match(parsed[0].value.error, /^stored-body: .*corrupt/);
    assert.equal(parsed[0].value.url, PAGE);
    assert.deepEqual(discovered, []);
  });

  it('should decode a windows-1252 page, from the header or without any declaration', async () => {
    // "Café – 5 €" in windows-1252: é=E9, en dash=96, euro=80 (not valid UTF-8).
    const title = Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x96, 0x20, 0x35, 0x20, 0x80]);
    const html = Buffer.concat([Buffer.from('<html><head><title>'), title, Buffer.from(`</title></head><body>${FILLER}</body></html>`)]);
    for (const charset of ['windows-1252', '']) {
      const { parsed } = await parse(fetched(html, { charset }));
      assert.equal(parsed[0].value.title, 'Café – 5 €', `charset "${charset}"`);
    }
  });

  it('should not parse a failed fetch or an error status as a page', async () => {
    const failed = await parse(fetched('', { status: 0, error: 'connect: refused', content_type: '' }));
    const notFound = await parse(fetched(page('<title>Not found</title>', LINKS), { status: 404 }));
    assert.deepEqual(failed, { parsed: [], discovered: [], skipped: [], dead: [] });
    assert.deepEqual(notFound, { parsed: [], discovered: [], skipped: [], dead: [] });
  });
  it('should read a PDF, also one served as octet-stream, and follow its link annotations', async () => {
    const pool = new PdfPool({ threads: 1 });
    try {
      const pdf = textPdf([{ lines: ['Annual figures', 'and notes'], links: ['/annex.html', 'http://other.test:8081/y'] }], { title: 'Report 2026' });
      const { parsed, discovered } = await parse(fetched(pdf, { content_type: 'application/octet-stream', charset: '' }), {}, { pdfPool: pool });
      assert.equal(parsed.length, 1);
      const p = parsed[0].value;
      assert.equal(p.error, '');
      assert.equal(p.title, 'Report 2026');
      assert.equal(p.text, 'Annual figures\nand notes');
      assert.equal(p.content_hash, createHash('sha1').update(pdf).digest('hex'));
      assert.deepEqual(p.links.map((l) => l.url), [`http://${HOST}/annex.html`, 'http://other.test:8081/y']);
      assert.deepEqual(discovered.map((d) => [d.key, d.value.url]), [[HOST, `http://${HOST}/annex.html`], ['other.test:8081', 'http://other.test:8081/y']]);
    } finally {
      await pool.close();
    }
  });

  it('should record a PDF it cannot read with the reason, and without a PDF reader say so', async () => {
    const pool = new PdfPool({ threads: 1 });
    try {
      const locked = await parse(fetched(encryptedPdf(), { content_type: 'application/pdf', charset: '' }), {}, { pdfPool: pool });
      assert.match(locked.parsed[0].value.error, /^pdf-encrypted: /);
      assert.deepEqual(locked.discovered, []);
    } finally {
      await pool.close();
    }
    const unread = await parse(fetched(textPdf([{ lines: ['x'] }]), { content_type: 'application/pdf', charset: '' }));
    assert.match(unread.parsed[0].value.error, /^pdf: this process extracts no PDFs/);
  });

  it('should parse HTML served as a PDF as the HTML it is, not leave an empty row with no error', async () => {
    const { parsed, discovered } = await parse(fetched(page('<title>Not a PDF</title>', LINKS), { content_type: 'application/pdf', charset: '' }));
    assert.equal(parsed[0].value.title, 'Not a PDF');
    assert.equal(parsed[0].value.error, '');
    assert.ok(parsed[0].value.links.length >= 4);
    assert.ok(discovered.length > 0);
  });

  it('should keep plain text as text and follow no "links" in it, as a browser shows it as text', async () => {
    const plain = await parse(fetched('Line one.\n\n  Line   two.', { content_type: 'text/plain' }));
    assert.equal(plain.parsed[0].value.text, 'Line one. Line two.');
    assert.deepEqual(plain.discovered, []);
    const html = await parse(fetched(page('<title>Mislabelled</title>', LINKS), { content_type: 'text/plain' }));
    assert.equal(html.parsed[0].value.title, '');
    assert.deepEqual(html.discovered, []);
  });
});
