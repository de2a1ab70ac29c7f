import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from 'undici';
import { startSyntheticWeb, type SyntheticWeb } from './synthetic-web.js';

const MASK = (1n << 64n) - 1n;

function fnv1a64(s: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < s.length; i++) h = ((h ^ BigInt(s.charCodeAt(i))) * 0x100000001b3n) & MASK;
  return h;
}

/** A textbook 64-bit simhash over word k-grams: a stand-in for whatever features the crawler uses. */
function simhash(words: string[], k: number): bigint {
  const votes = new Array<number>(64).fill(0);
  for (let i = 0; i + k <= words.length; i++) {
    const h = fnv1a64(words.slice(i, i + k).join(' '));
    for (let b = 0; b < 64; b++) votes[b] += (h >> BigInt(b)) & 1n ? 1 : -1;
  }
  return votes.reduce((acc, v, b) => (v > 0 ? acc | (1n << BigInt(b)) : acc), 0n);
}

function bits(x: bigint): number {
  let n = 0;
  for (; x > 0n; x >>= 1n) n += Number(x & 1n);
  return n;
}

async function fetchPage(url: string) {
  const res = await request(url);
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), body };
}

const words = (html: string) => html.replace(/<[^>]*>/g, ' ').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);

describe('synthetic web content', () => {
  let web: SyntheticWeb;
  before(async () => {
    web = await startSyntheticWeb({ scenario: 'test', firstAddress: '127.13.0.1' });
  });
  after(() => web.close());

  test('should give every HTML page in mustFetch a non-empty <title>', async () => {
    let html = 0;
    for (const url of web.expected.mustFetch) {
      const page = await fetchPage(url);
      assert.equal(page.status, 200, url);
      if (!page.type.startsWith('text/html') || page.body[0] !== 0x3c) continue; // the PNG labelled text/html
      html++;
      assert.match(page.body.toString('latin1'), /<title>[^<]+<\/title>/i, url);
    }
    assert.ok(html >= web.expected.mustFetch.length - 3);
  });

  test('should keep near-duplicates within 3 simhash bits and distinct articles far apart', async () => {
    const { nearDuplicates, exactDuplicates, distinctPages } = web.expected;
    const text = new Map<string, string[]>();
    const urls = [...distinctPages, ...nearDuplicates.flat(), ...exactDuplicates.flat()];
    for (const u of urls) text.set(u, words((await fetchPage(u)).body.toString('utf8')));
    for (const k of [1, 3]) {
      const hash = (u: string) => simhash(text.get(u)!, k);
      for (const [a, b] of [...nearDuplicates, ...exactDuplicates]) {
        assert.ok(bits(hash(a) ^ hash(b)) <= 3, `k=${k}: ${a} vs ${b}`);
      }
      // Every distinct article against every other article, duplicates included.
      for (const d of distinctPages) {
        for (const other of urls) {
          if (other === d) continue;
          const distance = bits(hash(d) ^ hash(other));
          assert.ok(distance > 10, `k=${k}: ${d} vs ${other} only ${distance} bits apart`);
        }
      }
    }
  });
});
