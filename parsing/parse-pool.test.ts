import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeBody, type BodyInput } from './analyze-body.js';
import { ParsePool, ParseTimeoutError, parseRequest } from './parse-pool.js';
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

test('should end a page whose parse loops, replace its worker and parse the pages queued behind it', { timeout: 60_000 }, async () => {
  const looping = new URL('../../test/fixtures/loop-on-trap.mjs', import.meta.url).pathname;
  const pool = new ParsePool(1, looping, undefined, { timeoutMs: 1_000 });
  try {
    const page = (url: string) => ({ ...input(Buffer.from(sampleArticleHtml(1))), url });
    const [trap, ...after] = await Promise.allSettled([page('http://site.test/trap'), page('http://site.test/a'), page('http://site.test/b')].map((p) => pool.analyze(p)));
    assert.equal(trap.status, 'rejected');
    assert.ok((trap as PromiseRejectedResult).reason instanceof ParseTimeoutError);
    assert.match((trap as PromiseRejectedResult).reason.message, /did not finish within 1 s \(--module-timeout\); its worker thread was replaced/);
    assert.deepEqual(after.map((r) => r.status), ['fulfilled', 'fulfilled'], 'the pages queued behind it went to the new worker');
    assert.equal(pool.replaced, 1);
    // The pool keeps working, and a second trap is ended the same way.
    const again = await Promise.allSettled([pool.analyze(page('http://site.test/trap2')), pool.analyze(page('http://site.test/c'))]);
    assert.deepEqual(again.map((r) => r.status), ['rejected', 'fulfilled']);
    assert.equal(pool.replaced, 2);
  } finally {
    await pool.close();
  }
});
