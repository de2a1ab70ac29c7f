// test-plan: unit ~25s
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PdfPool } from './pdf-pool.js';
import { assemblePdf, deeplyNestedPdf, encryptedPdf, inflateBombPdf, pageTreeBombPdf, stream, textPdf } from './testing/test-pdfs.js';

const URL_ = 'http://site.test/docs/report.pdf';
const okPdf = () => textPdf([{ lines: ['still works'] }]);

async function withPool<T>(opts: ConstructorParameters<typeof PdfPool>[0], fn: (pool: PdfPool) => Promise<T>): Promise<T> {
  const pool = new PdfPool(opts);
  try {
    return await fn(pool);
  } finally {
    await pool.close();
  }
}

test('should extract the title, the text and the absolute http(s) links of the link annotations', () =>
  withPool({}, async (pool) => {
    const bytes = textPdf([
      { lines: ['Hello café', 'second (line)'], links: ['https://a.test/x', '../rel?q=1', 'javascript:alert(1)', 'mailto:a@b.test'] },
      { lines: ['page two'], links: ['https://a.test/x', 'http://b.test/'] },
    ], { title: '  Annual\nreport 😀 ' });
    const r = await pool.extract(bytes, URL_);
    assert.equal(r.error, '');
    assert.equal(r.title, 'Annual report 😀');
    assert.equal(r.text, 'Hello café\nsecond (line)\n\npage two');
    assert.deepEqual(r.links, ['https://a.test/x', 'http://site.test/rel?q=1', 'http://b.test/']);
    assert.equal(r.pages, 2);
    assert.equal(r.pagesRead, 2);
    assert.equal(r.textTruncated, false);
    assert.equal(bytes.byteLength > 0, true, 'the caller keeps its bytes');
  }));

test('should bound the text in UTF-8 bytes at a character boundary and say it was cut', () =>
  withPool({ maxTextBytes: 1001 }, async (pool) => {
    const line = 'é'.repeat(40); // 80 bytes of UTF-8 each, short enough to stay one line on the page
    const page = { lines: Array.from({ length: 10 }, () => line) };
    const r = await pool.extract(textPdf([page, page]), URL_);
    assert.equal(r.error, '');
    assert.equal(r.textTruncated, true);
    assert.ok(Buffer.byteLength(r.text) <= 1001);
    assert.ok(Buffer.byteLength(r.text) >= 1000, 'cut at the last whole character');
    const pageText = page.lines.join('\n');
    assert.ok(`${pageText}\n\n${pageText}`.startsWith(r.text));
    assert.equal(r.pagesRead, 2, 'pages past the text bound are still read for their links');
  }));

test('should read at most maxPages pages and report how many the document has', () =>
  withPool({ maxPages: 3 }, async (pool) => {
    const pages = Array.from({ length: 40 }, (_, i) => ({ lines: [`page ${i + 1}`], links: [`http://site.test/p${i + 1}`] }));
    const r = await pool.extract(textPdf(pages), URL_);
    assert.equal(r.error, '');
    assert.equal(r.pages, 40);
    assert.equal(r.pagesRead, 3);
    assert.equal(r.text, 'page 1\n\npage 2\n\npage 3');
    assert.deepEqual(r.links, ['http://site.test/p1', 'http://site.test/p2', 'http://site.test/p3']);
  }));

test('should keep at most maxLinks links and count what it did not keep, so that the cut leaves a row', () =>
  withPool({ maxLinks: 2 }, async (pool) => {
    const pages = Array.from({ length: 4 }, (_, i) => ({ lines: [`page ${i + 1}`], links: [`http://site.test/p${i + 1}`] }));
    const r = await pool.extract(textPdf(pages), URL_);
    assert.deepEqual(r.links, ['http://site.test/p1', 'http://site.test/p2']);
    assert.equal(r.linksCut, 2, 'pages 3 and 4 had links that were not read');
  }));

test('should report an encrypted, a malformed, an empty and a non-PDF body as errors and keep working', () =>
  withPool({}, async (pool) => {
    assert.match((await pool.extract(encryptedPdf(), URL_)).error, /^encrypted: /);
    assert.match((await pool.extract(Buffer.from('%PDF-1.4\n1 0 obj garbage'), URL_)).error, /^malformed: /);
    assert.match((await pool.extract(new Uint8Array(0), URL_)).error, /^malformed: .*empty/);
    assert.match((await pool.extract(Buffer.from('<!doctype html><p>not a pdf'), URL_)).error, /^malformed: /);
    // a page whose content stream is cut off keeps the other pages
    const truncated = assemblePdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>', '<< /Length 9999 >>\nstream\nBT (half']);
    assert.equal((await pool.extract(truncated, URL_)).pages, 1);
    assert.equal((await pool.extract(okPdf(), URL_)).text, 'still works');
    assert.equal(pool.stats.workersStarted, 1, 'errors inside pdf.js do not cost the worker');
  }));

test('should refuse a PDF over maxBytes without reading it', () =>
  withPool({ maxBytes: 1000 }, async (pool) => {
    const r = await pool.extract(new Uint8Array(1001), URL_);
    assert.match(r.error, /^too-large: 1001 bytes/);
    assert.equal(pool.stats.workersStarted, 0);
  }));

test('should end a page-tree bomb (a billion declared pages, a tree that contains itself) with an error', () =>
  withPool({ maxPages: 1000 }, async (pool) => {
    const r = await pool.extract(pageTreeBombPdf(), URL_);
    assert.match(r.error, /^malformed: .*circular/);
    assert.ok(r.pagesRead <= 1000);
    assert.equal((await pool.extract(okPdf(), URL_)).error, '');
  }));

test('should end a document nested 200 000 arrays deep with an error', () =>
  withPool({}, async (pool) => {
    const r = await pool.extract(deeplyNestedPdf(200_000), URL_);
    assert.match(r.error, /^malformed: /);
    assert.equal((await pool.extract(okPdf(), URL_)).error, '');
  }));

test('should stop a stream that inflates to 4 GiB at the memory bound and replace the worker', () =>
  withPool({ maxMemoryMb: 128, timeoutMs: 120_000 }, async (pool) => {
    const bomb = inflateBombPdf(4 * 2 ** 30);
    assert.ok(bomb.length < 200_000, 'a small file');
    const r = await pool.extract(bomb, URL_);
    assert.match(r.error, /^memory: /);
    assert.equal(pool.stats.memoryStops, 1);
    const after = await pool.extract(okPdf(), URL_);
    assert.equal(after.text, 'still works');
    assert.equal(pool.stats.workersStarted, 2, 'the stopped worker was replaced');
  }));

test('should stop a worker past the time bound, keep the pages it read and replace it', () =>
  withPool({ timeoutMs: 60_000 }, async (pool) => {
    // 20 pages of 20 000 lines: seconds of work against a 50 ms bound
    const heavy = textPdf(Array.from({ length: 20 }, (_, p) => ({ lines: Array.from({ length: 20_000 }, (_, l) => `p${p} line ${l}`) })));
    const r = await pool.extract(heavy, URL_, { timeoutMs: 50 });
    assert.match(r.error, /^timeout: still reading after 50 ms/);
    assert.ok(r.pagesRead < 20);
    assert.equal(pool.stats.timeouts, 1);
    assert.equal((await pool.extract(okPdf(), URL_)).text, 'still works');
    assert.equal(pool.stats.workersStarted, 2);
  }));

test('should run extractions on several threads and give each caller its own result', () =>
  withPool({ threads: 2 }, async (pool) => {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.extract(textPdf([{ lines: [`doc ${i}`] }]), `http://site.test/${i}.pdf`)));
    assert.deepEqual(results.map((r) => r.text), ['doc 0', 'doc 1', 'doc 2', 'doc 3', 'doc 4', 'doc 5']);
    assert.equal(pool.stats.workersStarted, 2);
  }));

test('should answer queued and running extractions with a closed error on close', async () => {
  const pool = new PdfPool({});
  const heavy = textPdf(Array.from({ length: 5 }, () => ({ lines: Array.from({ length: 20_000 }, (_, l) => `line ${l}`) })));
  const running = pool.extract(heavy, URL_);
  const queued = pool.extract(okPdf(), URL_);
  await pool.close();
  assert.match((await running).error, /^closed: /);
  assert.match((await queued).error, /^closed: /);
  assert.match((await pool.extract(okPdf(), URL_)).error, /^closed: /);
});

test('should read a stream-compressed page like any other', () =>
  withPool({}, async (pool) => {
    const { deflateSync } = await import('node:zlib');
    const content = deflateSync(Buffer.from('BT /F1 12 Tf 50 750 Td (deflated text) Tj ET'));
    const bytes = assemblePdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
      stream('/Filter /FlateDecode', content), '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>']);
    assert.equal((await pool.extract(bytes, URL_)).text, 'deflated text');
  }));
