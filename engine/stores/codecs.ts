// Small, allocation-light codecs for store keys and values.
import avro from 'avsc';
import type { KeyCodec, ValueCodec } from './key-value-store.js';

/** Keys that are their own routing key, e.g. a host. */
export const stringKey: KeyCodec<string> = {
  routingKey: (k) => k,
  encode: (k) => Buffer.from(k, 'utf8'),
  decode: (b) => b.toString('utf8'),
};

export function avroValues<V>(schema: avro.Schema): ValueCodec<V> {
  const type = avro.Type.forSchema(schema);
  return {
    encode: (v) => type.toBuffer(v),
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
