// parse in a focused crawl: every page judged, every followed link scored, and hard focus dropping
// the links of off-topic pages as skipped rows.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawlTestDriver } from '../../crawl/testing/crawl-test-driver.js';
import { PLAIN_RESULT, type FetchResult } from '../../schemas/records.js';
import { compressBody } from '../../fetching/body-codec.js';
import { discoveredEntries } from '../../contract/url-batch.js';
import { createFocus } from '../../focus/create-focus.js';
import type { FocusMode } from '../../focus/focus-spec.js';
import { EXAMPLES, generalText, topicText } from '../../focus/testing/topic-texts.js';

const HOST = '127.0.0.9:8080';
const PAGE = `http://${HOST}/articles/one.html`;

function fetched(html: string, over: Partial<FetchResult> = {}): FetchResult {
  const stored = compressBody(Buffer.from(html, 'utf8'));
  return {
    ...PLAIN_RESULT, fetch_id: `${HOST}#1`, url: PAGE, host: HOST, kind: 'page', depth: 2, attempt: 1, via: 'link', source_url: `http://${HOST}/`,
    redirect_hops: 0, status: 200, error: '', final_url: PAGE, redirect_chain: [], headers: {}, started_at: Date.UTC(2026, 0, 1), elapsed_ms: 30,
    ttfb_ms: 10, bytes: stored.bytes.length, wire_bytes: stored.bytes.length, content_type: 'text/html', charset: 'utf-8', truncated: false,
    retry_after_ms: 0, conditional: false, remote_address: '127.0.0.9', body_encoding: stored.encoding, body: stored.bytes, ...over,
  };
}

const LINKS = '<a href="http://bees.test/hive-inspection">Hive inspection and varroa mites</a> <a href="http://shop.test/cart">Your basket</a>';
const html = (text: string) => `<!doctype html><html><head><title>A page</title></head><body><p>${text}</p><p>${LINKS}</p></body></html>`;

async function parse(value: FetchResult, mode?: FocusMode) {
  const focus = mode ? await createFocus({ examples: EXAMPLES, counterexamples: [], mode }) : undefined;
  const d = await crawlTestDriver({ processors: ['parse'], services: focus ? { focus } : {} });
  await d.pipe('fetched', value.host, value);
  const out = { parsed: d.readOutput('parsed').map((r) => r.value), discovered: d.readOutput('discovered-urls').map((r) => r.value), skipped: d.readOutput('skipped').map((r) => r.value),
    judged: d.counter('parse', 'focus.judged'), relevant: d.counter('parse', 'focus.relevant'), threshold: focus?.threshold };
  await d.close();
  return out;
}

const scores = (discovered: { more: unknown[] }[]) => Object.fromEntries(discovered.flatMap((r) => discoveredEntries(r as never)).map((e) => [e.url, e.score]));

describe('parse in a focused crawl', () => {
  it('should judge a page, record its relevance with the threshold, and score each followed link', async () => {
    const out = await parse(fetched(html(topicText('parsed page'))), 'soft');
    const [p] = out.parsed;
    assert.ok(p.relevance! >= out.threshold!);
    assert.ok(Math.abs(p.focus_threshold! - out.threshold!) < 1e-6);
    const s = scores(out.discovered);
    assert.ok(s['http://bees.test/hive-inspection']! > s['http://shop.test/cart']!, JSON.stringify(s));
    assert.ok(s['http://shop.test/cart']! > 0, 'a plain link on a page about the topic is worth something');
    assert.deepEqual([out.judged, out.relevant], [1, 1]);
  });

  it('should judge nothing and score nothing without focus', async () => {
    const out = await parse(fetched(html(topicText('unfocused'))));
    assert.equal(out.parsed[0].relevance, -1);
    assert.deepEqual(Object.values(scores(out.discovered)), [-1, -1]);
    assert.deepEqual([out.judged, out.skipped.length], [0, 0]);
  });

  it('should drop an off-topic page\'s links in hard mode, each a skipped row, and keep following the seeds\' and on-topic pages\' links', async () => {
    const off = await parse(fetched(html(generalText('hard'))), 'hard');
    assert.deepEqual(off.discovered, []);
    assert.deepEqual(off.skipped.map((s) => [s.url, s.host, s.reason, s.source_url, s.depth]).sort(), [
      ['http://bees.test/hive-inspection', 'bees.test', 'focus-off-topic', PAGE, 3], ['http://shop.test/cart', 'shop.test', 'focus-off-topic', PAGE, 3],
    ]);
    assert.match(off.skipped[0].detail, /^page relevance 0\.\d{3} < threshold 0\.\d+$/);
    assert.equal(off.relevant, 0);
    const seed = await parse(fetched(html(generalText('hard')), { depth: 0 }), 'hard');
    assert.equal(seed.discovered.length, 2, 'a seed\'s links are followed, or a crawl from general seeds would stop at once');
    const on = await parse(fetched(html(topicText('hard'))), 'hard');
    assert.deepEqual([on.discovered.length, on.skipped.length], [2, 0]);
  });

  it('should let a redirect\'s target inherit the score its URL was fetched with', async () => {
    const out = await parse(fetched('', { status: 301, final_url: 'http://bees.test/moved', priority: (24 + 200 * 0.75) / 16 }), 'soft');
    assert.equal(out.discovered[0].score, 0.75);
    const plain = await parse(fetched('', { status: 301, final_url: 'http://bees.test/moved' }));
    assert.equal(plain.discovered[0].score, -1);
  });
});

describe('parse with a focus module that fails', () => {
  it('should record the page unjudged, with the module\'s error, and follow its links unscored', async () => {
    const focus = await createFocus({ examples: EXAMPLES, counterexamples: [], mode: 'hard', module: { name: 'broken.mjs', source: 'export function scorePage({ text }) { return text.length > 100 ? undefinedThing : 1; }' } });
    const d = await crawlTestDriver({ processors: ['parse'], services: { focus } });
    await d.pipe('fetched', HOST, fetched(html(topicText('module'))));
    const [p] = d.readOutput('parsed').map((r) => r.value);
    assert.match(p.error, /^focus-module: broken\.mjs: undefinedThing is not defined/);
    assert.equal(p.relevance, -1);
    assert.deepEqual(Object.values(scores(d.readOutput('discovered-urls').map((r) => r.value))), [-1, -1], 'followed, even in hard mode');
    assert.equal(d.counter('parse', 'errors.focus-module'), 1);
    assert.deepEqual(d.readOutput('dead-letters'), []);
    await d.close();
  });
});
