import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { request } from 'undici';
import { BOMB_INFLATED_BYTES, crc32Combine, gzipBomb } from './gzip-bomb.js';
import { BIG_BODY_BYTES, WINDOWS_1252_TITLE } from './hostile-bodies.js';
import { startSyntheticWeb, type SyntheticWeb } from './synthetic-web.js';

async function get(url: string) {
  const res = await request(url);
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

/** Streams a gzip body through gunzip, counting inflated bytes without keeping them. */
async function inflatedSize(body: Buffer): Promise<number> {
  let n = 0;
  const gunzip = zlib.createGunzip();
  gunzip.on('data', (c: Buffer) => (n += c.length));
  await new Promise<void>((resolve, reject) => {
    gunzip.on('end', resolve).on('error', reject);
    gunzip.end(body);
  });
  return n;
}

describe('synthetic web, hostile endpoints', () => {
  let web: SyntheticWeb;
  before(async () => {
    web = await startSyntheticWeb({ scenario: 'test' });
  });
  after(() => web.close());

  test('should answer 500 always, and 500 twice then 200 on the flaky URL', async () => {
    assert.equal((await get(web.endpoints.error500)).status, 500);
    assert.equal((await get(web.endpoints.error500)).status, 500);
    const flaky = [];
    for (let i = 0; i < 4; i++) flaky.push((await get(web.endpoints.flaky)).status);
    assert.deepEqual(flaky, [500, 500, 200, 200]);
  });

  test('should answer 429 with Retry-After: 2 once, then 200', async () => {
    const first = await get(web.endpoints.retryAfter);
    assert.equal(first.status, 429);
    assert.equal(first.headers['retry-after'], '2');
    assert.equal((await get(web.endpoints.retryAfter)).status, 200);
    const logged = web.requests.filter((r) => r.path === '/retry-after').map((r) => [r.status, r.retryAfterMs]);
    assert.deepEqual(logged, [[429, 2000], [200, undefined]]);
  });

  test('should redirect in a 3-hop chain, a loop, and a 7-hop chain', async () => {
    const follow = async (start: string, max: number) => {
      const chain = [start];
      for (let i = 0; i < max; i++) {
        const r = await get(chain[chain.length - 1]);
        if (r.status < 300 || r.status >= 400) return { chain, status: r.status };
        chain.push(new URL(String(r.headers.location), chain[chain.length - 1]).href);
      }
      return { chain, status: -1 };
    };
    const ok = await follow(web.endpoints.redirectChain, 10);
    assert.equal(ok.status, 200);
    assert.equal(ok.chain.length - 1, 3);
    assert.equal(ok.chain[3], web.endpoints.redirectFinal);
    const loop = await follow(web.endpoints.redirectLoop, 6);
    assert.equal(loop.status, -1);
    assert.equal(loop.chain[2], web.endpoints.redirectLoop);
    const long = await follow(web.endpoints.longRedirectChain, 10);
    assert.equal(long.chain.length - 1, 7);
    assert.equal(long.chain[7], web.endpoints.longRedirectFinal);
  });

  test('should keep a hanging request open until close(), which then ends it promptly', async () => {
    const web2 = await startSyntheticWeb({ scenario: 'test', firstAddress: '127.11.0.1' });
    const hang = request(web2.endpoints.hang).then(
      () => 'answered',
      () => 'dropped',
    );
    const trickle = await request(web2.endpoints.trickle);
    const trickled = (async () => {
      try {
        for await (const _ of trickle.body);
        return 'ended';
      } catch {
        return 'dropped';
      }
    })();
    assert.equal(await Promise.race([hang, sleep(1200, 'pending')]), 'pending');
    const hangEntry = web2.requests.find((r) => r.path === '/hang');
    assert.ok(hangEntry);
    assert.equal(hangEntry.endedAt, Infinity);
    const t0 = Date.now();
    await web2.close();
    assert.equal(await hang, 'dropped');
    assert.equal(await trickled, 'dropped');
    assert.ok(Date.now() - t0 < 1000, 'close() does not wait for hostile responses');
    assert.equal(hangEntry.status, 0);
    assert.ok(Number.isFinite(hangEntry.endedAt));
    assert.equal(web2.requests.find((r) => r.path === '/trickle')?.status, 200);
  });

  test('should trickle one byte about every 500 ms', async () => {
    const res = await request(web.endpoints.trickle);
    assert.equal(res.statusCode, 200);
    let bytes = 0;
    const t0 = Date.now();
    for await (const chunk of res.body) {
      bytes += (chunk as Buffer).length;
      if (Date.now() - t0 > 1700) break;
    }
    res.body.destroy();
    assert.ok(bytes >= 3 && bytes <= 6, `${bytes} bytes in ~1.7 s`);
  });

  test('should send a 20 MB body with a matching Content-Length', async () => {
    const res = await request(web.endpoints.bigBody);
    assert.equal(res.headers['content-length'], String(BIG_BODY_BYTES));
    let n = 0;
    for await (const chunk of res.body) n += (chunk as Buffer).length;
    assert.equal(n, BIG_BODY_BYTES);
  });

  test('should combine CRC-32s exactly as computing over the concatenation', () => {
    const a = Buffer.from('synthetic ');
    const b = Buffer.alloc(70_001, 0x20);
    assert.equal(crc32Combine(zlib.crc32(a), zlib.crc32(b), b.length), zlib.crc32(Buffer.concat([a, b])));
  });

  test('should serve a gzip bomb that is small on the wire and inflates past 1 GiB', async () => {
    const single = await get(web.endpoints.gzipBomb);
    assert.equal(single.headers['content-encoding'], 'gzip');
    assert.ok(single.body.length < 1.1 * 1024 * 1024, `${single.body.length} bytes on the wire`);
    assert.ok((await inflatedSize(single.body)) >= BOMB_INFLATED_BYTES);
    const nested = await get(web.endpoints.nestedGzipBomb);
    assert.equal(nested.headers['content-encoding'], 'gzip, gzip');
    assert.ok(nested.body.length < 20 * 1024, `${nested.body.length} bytes on the wire`);
    assert.deepEqual(zlib.gunzipSync(nested.body), gzipBomb());
  });

  test('should serve binary content as octet-stream and a PNG labelled text/html', async () => {
    const blob = await get(web.endpoints.binaryBlob);
    assert.equal(blob.headers['content-type'], 'application/octet-stream');
    assert.equal(blob.body.length, 64 * 1024);
    const png = await get(web.endpoints.pngAsHtml);
    assert.equal(png.headers['content-type'], 'text/html');
    assert.deepEqual([...png.body.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  test('should declare windows-1252 only in a meta tag, with é and € encoded as single bytes', async () => {
    const page = await get(web.endpoints.windows1252);
    assert.equal(page.headers['content-type'], 'text/html');
    assert.ok(page.body.includes(Buffer.from([0x43, 0x61, 0x66, 0xe9]))); // "Caf" + é
    assert.ok(page.body.includes(0x80)); // €
    assert.ok(!page.body.toString('utf8').includes(WINDOWS_1252_TITLE), 'not readable as UTF-8');
    // Built by hand: Node 20's TextDecoder('windows-1252') wrongly maps 0x80 to U+0080 instead of €.
    const title = Buffer.concat([
      Buffer.from('<title>Caf'),
      Buffer.from([0xe9]),
      Buffer.from(' prices in '),
      Buffer.from([0x80]),
      Buffer.from(' (windows-1252)</title>'),
    ]);
    assert.ok(page.body.includes(title));
    assert.equal(WINDOWS_1252_TITLE, 'Café prices in € (windows-1252)');
    assert.ok(page.body.includes('<meta charset="windows-1252">'));
  });

  test('should serve malformed HTML and a page of bad links', async () => {
    const malformed = (await get(web.endpoints.malformed)).body.toString();
    assert.match(malformed, /<a href=\/malformed\/target-1>/);
    assert.match(malformed, /<!-- <a href="\/malformed\/in-comment">/);
    const bad = (await get(web.endpoints.badLinks)).body.toString();
    for (const h of ['javascript:alert(1)', 'mailto:', 'http://[::1"', 'http://[zz::1]/', 'data:', '\u0000', '\t', 'with spaces inside']) {
      assert.ok(bad.includes(h), h);
    }
    assert.equal(web.endpoints.longUrl.length, 10_000);
    assert.ok(bad.includes(`href="${web.endpoints.longUrl}"`));
  });
});
