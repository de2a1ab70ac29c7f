// Decoding hostile bytes: whatever a topic holds, decode() returns a record or throws one of its three
// documented errors, quickly and without allocating beyond the input's size.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { MemoryLevel } from 'memory-level';
import { LocalSchemaRegistry } from '../engine/avro/local-schema-registry.js';
import { SCHEMA_FILES, loadSchema, type SchemaName } from './schema-files.js';
import { RecordDecodingError, TopicCodecs, UnknownSchemaIdError } from '../engine/avro/topic-codecs.js';
import { WireFormatError } from '../engine/avro/wire-format.js';
import { NO_HINTS, PLAIN_RESULT, type DiscoveredUrl, type FetchResult, type ParsedPage } from './records.js';

async function codecs(): Promise<TopicCodecs> {
  const db = new MemoryLevel<string, string>({ keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  const c = new TopicCodecs(new LocalSchemaRegistry(db as never));
  for (const name of SCHEMA_FILES) await c.addTopic(name, loadSchema(name));
  return c;
}

const AT = Date.UTC(2026, 0, 1);
const SAMPLES: Partial<Record<SchemaName, object>> = {
  'discovered-url': { url: 'http://a.test/', source_url: '', depth: 0, anchor: '', via: 'seed', redirect_hops: 0, discovered_at: AT, ...NO_HINTS, score: -1, more: [] } satisfies DiscoveredUrl,
  'fetch-result': {
    fetch_id: 'a.test#1', url: 'http://a.test/', host: 'a.test', kind: 'page', depth: 1, attempt: 1, via: 'link', source_url: '',
    redirect_hops: 1, status: 200, error: '', final_url: 'http://a.test/', redirect_chain: ['http://a.test/old', 'http://a.test/older'],
    headers: { 'content-type': 'text/html', server: 'x' }, started_at: AT, elapsed_ms: 12, ttfb_ms: 3, bytes: 5, wire_bytes: 5,
    content_type: 'text/html', charset: '', truncated: false, retry_after_ms: 0, conditional: false, remote_address: '127.0.0.1',
    body_encoding: 'identity', body: Buffer.from('hello'), ...PLAIN_RESULT,
  } satisfies FetchResult,
  'parsed-page': {
    fetch_id: 'a.test#1', url: 'http://a.test/', host: 'a.test', depth: 1, status: 200, final_url: 'http://a.test/', fetched_at: AT,
    content_type: 'text/html', title: 'A', canonical: '', lang: 'en', meta_noindex: false, meta_nofollow: false, text_length: 9,
    content_hash: 'f'.repeat(40), simhash: Buffer.alloc(8, 1), links: [{ url: 'http://b.test/', anchor: 'B', nofollow: false }],
    parser_version: 'parse/1', error: '', text: 'A', relevance: -1, focus_threshold: -1,
  } satisfies ParsedPage,
};

/** Zigzag varint of n, the Avro encoding of a long. */
function varint(n: bigint): Buffer {
  let z = n >= 0n ? n * 2n : -n * 2n - 1n;
  const out: number[] = [];
  while (z >= 0x80n) {
    out.push(Number(z & 0x7fn) | 0x80);
    z >>= 7n;
  }
  out.push(Number(z));
  return Buffer.from(out);
}

function isDocumentedError(err: unknown): boolean {
  return err instanceof RecordDecodingError || err instanceof WireFormatError || err instanceof UnknownSchemaIdError;
}

/** decode() either succeeds or throws a documented error with a message. */
function decodesOrExplains(c: TopicCodecs, topic: string, bytes: Buffer): void {
  try {
    c.decode(topic, bytes);
  } catch (err) {
    if (!isDocumentedError(err) || !(err as Error).message) throw err;
  }
}

/**
 * Decodes in a worker with a small heap and a deadline, so that a decoder which loops over a claimed
 * item count or allocates for it fails this test instead of hanging or killing the test process.
 */
function decodeIsolated(topic: SchemaName, bytes: Buffer): Promise<string> {
  const modules = {
    codecs: new URL('../engine/avro/topic-codecs.js', import.meta.url).href,
    registry: new URL('../engine/avro/local-schema-registry.js', import.meta.url).href,
    files: new URL('./schema-files.js', import.meta.url).href,
    level: import.meta.resolve('memory-level'),
  };
  const source = `
    const { parentPort, workerData: { modules, topic, bytes } } = require('node:worker_threads');
    (async () => {
      const { TopicCodecs } = await import(modules.codecs);
      const { LocalSchemaRegistry } = await import(modules.registry);
      const { loadSchema, SCHEMA_FILES } = await import(modules.files);
      const { MemoryLevel } = await import(modules.level);
      const db = new MemoryLevel({ keyEncoding: 'utf8', valueEncoding: 'utf8' });
      await db.open();
      const c = new TopicCodecs(new LocalSchemaRegistry(db));
      for (const name of SCHEMA_FILES) await c.addTopic(name, loadSchema(name)); // same ids as codecs()
      try { c.decode(topic, Buffer.from(bytes)); parentPort.postMessage('decoded'); }
      catch (err) { parentPort.postMessage(err.constructor.name + ': ' + err.message); }
    })();`;
  const worker = new Worker(source, { eval: true, workerData: { modules, topic, bytes }, resourceLimits: { maxOldGenerationSizeMb: 96 } });
  return new Promise((resolve, reject) => {
    // A decode of a few dozen bytes takes microseconds; this only catches a decoder that never ends.
    const deadline = setTimeout(() => {
      void worker.terminate();
      reject(new Error('decoding did not finish within 20 s'));
    }, 20_000);
    worker.once('message', (m: string) => {
      clearTimeout(deadline);
      void worker.terminate();
      resolve(m);
    });
    worker.once('error', (err) => {
      clearTimeout(deadline);
      reject(err);
    });
  });
}

describe('TopicCodecs.decode on hostile bytes', () => {
  it('should refuse an array or map claiming billions of items in a few bytes, without looping over them', async () => {
    const c = await codecs();
    const id = c.schemaIdFor('fetch-result');
    const valid = c.encode('fetch-result', SAMPLES['fetch-result']);
    // fetch_id … final_url are strings and ints; redirect_chain's count follows final_url's text.
    const at = valid.indexOf(Buffer.from('http://a.test/old')) - 2; // the count byte (2 items), then the first length byte
    assert.equal(valid[at], 4); // zigzag 2
    for (const count of [2n ** 32n - 1n, 2n ** 31n, 2n ** 52n, -(2n ** 32n)]) {
      const hostile = Buffer.concat([valid.subarray(0, at), varint(count), valid.subarray(at + 1)]);
      const message = await decodeIsolated('fetch-result', hostile);
      assert.match(message, new RegExp(`^RecordDecodingError: cannot decode a record of topic fetch-result \\(schema id ${id}, \\d+ bytes\\) as crawlstream.FetchResult: array block of \\d+ items with only \\d+ bytes left$`), String(count));
    }
    const headersAt = valid.indexOf(Buffer.from('content-type')) - 2;
    assert.equal(valid[headersAt], 4);
    const hostileMap = Buffer.concat([valid.subarray(0, headersAt), varint(2n ** 50n), valid.subarray(headersAt + 1)]);
    assert.match(await decodeIsolated('fetch-result', hostileMap), /^RecordDecodingError: .*map block of \d+ items with only \d+ bytes left$/);
  });

  it('should decode what it encoded, arrays and maps included', async () => {
    const c = await codecs();
    for (const [topic, sample] of Object.entries(SAMPLES)) {
      assert.deepEqual(JSON.parse(JSON.stringify(c.decode(topic, c.encode(topic, sample)))), JSON.parse(JSON.stringify(sample)), topic);
    }
  });

  it('should refuse a record cut short or followed by bytes past its end, saying which', async () => {
    const c = await codecs();
    for (const topic of ['discovered-url', 'parsed-page']) {
      const valid = c.encode(topic, SAMPLES[topic as SchemaName]);
      assert.throws(() => c.decode(topic, valid.subarray(0, valid.length - 1)), (err: Error) => err instanceof RecordDecodingError && /truncated buffer$/.test(err.message), topic);
      assert.throws(() => c.decode(topic, Buffer.concat([valid, Buffer.from([0])])), (err: Error) => err instanceof RecordDecodingError && /trailing data$/.test(err.message), topic);
      // Projected readers (a processor's skipped fields) check the same.
      const projection = { skip: ['anchor', 'text'].filter((f) => f in SAMPLES[topic as SchemaName]!), asBytes: [] };
      assert.throws(() => c.decode(topic, Buffer.concat([valid, Buffer.from([0])]), projection), /trailing data$/, topic);
    }
  });

  it('should keep a header named __proto__ as a header', async () => {
    const c = await codecs();
    const value = { ...SAMPLES['fetch-result'], headers: JSON.parse('{"__proto__": "x", "a": "b"}') } as FetchResult;
    const decoded = c.decode<FetchResult>('fetch-result', c.encode('fetch-result', value));
    assert.deepEqual(Object.entries(decoded.headers), [['__proto__', 'x'], ['a', 'b']]);
    assert.equal(Object.getPrototypeOf(decoded.headers), Object.prototype);
  });

  it('should give a documented error for random bodies under every schema', async () => {
    const c = await codecs();
    fc.assert(fc.property(fc.constantFrom(...SCHEMA_FILES), fc.uint8Array({ maxLength: 200 }), (topic, body) => {
      const header = Buffer.alloc(5);
      header.writeUInt32BE(c.schemaIdFor(topic), 1);
      decodesOrExplains(c, topic, Buffer.concat([header, body]));
    }), { numRuns: 400 });
  });

  it('should give a documented error for random framing', async () => {
    const c = await codecs();
    fc.assert(fc.property(fc.constantFrom(...SCHEMA_FILES), fc.uint8Array({ maxLength: 40 }), (topic, bytes) => {
      decodesOrExplains(c, topic, Buffer.from(bytes));
    }), { numRuns: 200 });
  });

  it('should give a documented error for mutations of valid records', async () => {
    const c = await codecs();
    const topics = Object.keys(SAMPLES) as SchemaName[];
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 4 }) }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 8 }) }),
      fc.record({ kind: fc.constant('varint' as const), at: fc.nat(), value: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }) }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
    );
    fc.assert(fc.property(fc.constantFrom(...topics), fc.array(mutation, { minLength: 1, maxLength: 4 }), (topic, mutations) => {
      let bytes = c.encode(topic, SAMPLES[topic]);
      for (const m of mutations) {
        const at = 5 + (m.at % Math.max(1, bytes.length - 5)); // keep the header: framing has its own test
        if (m.kind === 'set') bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from([m.byte]), bytes.subarray(at + 1)]);
        else if (m.kind === 'insert') bytes = Buffer.concat([bytes.subarray(0, at), m.bytes, bytes.subarray(at)]);
        else if (m.kind === 'delete') bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + m.length)]);
        else if (m.kind === 'varint') bytes = Buffer.concat([bytes.subarray(0, at), varint(m.value), bytes.subarray(at + 1)]);
        else bytes = bytes.subarray(0, at);
      }
      decodesOrExplains(c, topic, bytes);
    }), { numRuns: 500 });
  });
});
