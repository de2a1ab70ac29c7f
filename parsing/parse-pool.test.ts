import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeBody, type BodyInput } from './analyze-body.js';
import { ParsePool, parseRequest } from './parse-pool.js';
import { sampleArticleHtml } from './sample-pages.js';

function input(body: Uint8Array): BodyInput {
  return {
    body, bodyEncoding: 'identity', contentType: 'text/html; charset=utf-8', charset: 'utf-8',
    url: 'http://site.test/stories/a.html', productToken: 'crawlstream', maxBodyBytes: 10 << 20, maxParseBytes: 1 << 20,
  };
}

test('should move only the body\'s own bytes to a worker, leaving the caller\'s buffer intact', () => {
  const batch = Buffer.alloc(1 << 20, 0x20); // a body sliced out of a larger buffer, as consumed records are
  const page = Buffer.from(sampleArticleHtml(2));
  page.copy(batch, 4096);
  const body = batch.subarray(4096, 4096 + page.length);
  const { message, transfer } = parseRequest(7, input(body));
  assert.equal(message.id, 7);
  assert.equal(transfer.length, 1);
  assert.equal(transfer[0].byteLength, page.length, 'the transferred buffer holds the body and nothing else');
  assert.equal(message.input.body.buffer, transfer[0]);
  assert.deepEqual(Buffer.from(message.input.body), page);
  structuredClone(message, { transfer }); // what postMessage does: detaches the copy only
  assert.equal(transfer[0].byteLength, 0);
  assert.equal(batch.buffer.byteLength, 1 << 20, 'the caller\'s buffer is not detached');
  assert.deepEqual(body, page);
});

test('should analyze a page in a worker exactly as inline, visible text included', async () => {
  const pool = new ParsePool(1);
  try {
    const pages = [1, 2, 3].map(seed => input(Buffer.from(sampleArticleHtml(seed))));
    const results = await Promise.all(pages.map(p => pool.analyze(p)));
    for (const [i, result] of results.entries()) {
      const inline = analyzeBody(pages[i]);
      assert.ok(result.text.length > 1_000);
      assert.deepEqual({ ...result, simhash: Buffer.from(result.simhash) }, { ...inline, simhash: Buffer.from(inline.simhash) });
    }
  } finally {
    await pool.close();
  }
});
