// Small, allocation-light codecs for store keys and values.
import avro from 'avsc';
import { ScratchEncoder } from '../avro/scratch-encoder.js';
import type { KeyCodec, ValueCodec } from './key-value-store.js';

/** Keys that are their own routing key, e.g. a host. */
export const stringKey: KeyCodec<string> = {
  routingKey: (k) => k,
  encode: (k) => Buffer.from(k, 'utf8'),
  decode: (b) => b.toString('utf8'),
};

const encoder = new ScratchEncoder();

/**
 * `type.toBuffer(value)` without its zero-filled buffer of its own backing store for every value
 * (twice the cost of encoding a store value, and one more array buffer for V8 to sweep): a crawled
 * page writes ~15 store values, every one through here.
 */
export function avroBytes(type: avro.Type, value: unknown): Buffer {
  return encoder.copyOut(encoder.write(type, value));
}

export function avroValues<V>(schema: avro.Schema): ValueCodec<V> {
  const type = avro.Type.forSchema(schema);
  return {
    encode: (v) => avroBytes(type, v),
    decode: (b) => type.fromBuffer(b) as V,
  };
}

export const jsonValues = <V>(): ValueCodec<V> => ({
  encode: (v) => Buffer.from(JSON.stringify(v), 'utf8'),
  decode: (b) => JSON.parse(b.toString('utf8')) as V,
});

export const emptyValue: ValueCodec<true> = {
  encode: () => EMPTY,
  decode: () => true,
};
const EMPTY = Buffer.alloc(0);
