// Small, allocation-light codecs for store keys and values.
import avro from 'avsc';
import type { KeyCodec, ValueCodec } from './key-value-store.js';

/** Keys that are their own routing key, e.g. a host. */
export const stringKey: KeyCodec<string> = {
  routingKey: (k) => k,
  encode: (k) => Buffer.from(k, 'utf8'),
  decode: (b) => b.toString('utf8'),
};

const INITIAL_SCRATCH = 16 * 1024;
/** A value larger than this leaves no buffer of its size behind. */
const MAX_KEPT_SCRATCH = 1024 * 1024;
let scratch = Buffer.allocUnsafe(INITIAL_SCRATCH);

/**
 * `type.toBuffer(value)` without its allocation: avsc's copies each value into a zero-filled buffer
 * of its own backing store (Buffer.alloc), which cost twice the encoding of a store value and left
 * V8 one more array buffer to sweep; this one copies from a scratch buffer into Node's Buffer pool.
 * A crawled page writes ~15 store values, every one through here.
 */
export function avroBytes(type: avro.Type, value: unknown): Buffer {
  let end = type.encode(value, scratch, 0);
  if (end < 0) {
    scratch = Buffer.allocUnsafe(Math.max(scratch.length * 2, scratch.length - end));
    end = type.encode(value, scratch, 0);
  }
  const out = Buffer.allocUnsafe(end);
  scratch.copy(out, 0, 0, end);
  if (scratch.length > MAX_KEPT_SCRATCH) scratch = Buffer.allocUnsafe(INITIAL_SCRATCH);
  return out;
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
