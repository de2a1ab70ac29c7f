import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import avro from 'avsc';
import fc from 'fast-check';
import { avroBytes, avroValues } from './codecs.js';

const type = avro.Type.forSchema({
  type: 'record', name: 'Probe', fields: [{ name: 'url', type: 'string' }, { name: 'n', type: 'long' }, { name: 'body', type: 'bytes' }],
});
const probe = fc.record({
  url: fc.string({ maxLength: 200 }),
  n: fc.maxSafeInteger(),
  // Up to three times the scratch buffer (64 KB), so values that outgrow it come between small ones.
  body: fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ minLength: 20_000, maxLength: 200_000 })).map((a) => Buffer.from(a)),
});

describe('store value codecs', () => {
  it('should encode every value to the bytes avsc\'s own toBuffer gives, whatever came before it', () => {
    fc.assert(fc.property(fc.array(probe, { minLength: 1, maxLength: 6 }), (values) => {
      const out = values.map((v) => avroBytes(type, v));
      // Compared after all were encoded: a buffer that shared the scratch would have changed since.
      values.forEach((v, i) => assert.deepEqual(out[i], type.toBuffer(v)));
    }), { numRuns: 60 });
  });

  it('should read back what it wrote', () => {
    const codec = avroValues<{ url: string; n: number; body: Buffer }>(type.schema() as avro.Schema);
    const v = { url: 'http://127.0.0.1/a', n: 42, body: Buffer.from('x') };
    assert.deepEqual({ ...codec.decode(codec.encode(v)) }, v);
  });

  it('should fail on a value its schema refuses, and encode the next one', () => {
    assert.throws(() => avroBytes(type, { url: 7, n: 1, body: Buffer.alloc(0) }));
    assert.deepEqual(avroBytes(type, { url: 'a', n: 1, body: Buffer.alloc(0) }), type.toBuffer({ url: 'a', n: 1, body: Buffer.alloc(0) }));
  });
});
