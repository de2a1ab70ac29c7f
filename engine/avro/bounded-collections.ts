// avsc (5.7.9) believes the item count of an array or map block: a record of a dozen bytes claiming
// 4 billion items makes it loop 4 billion times past the end of the buffer, allocating as it goes,
// before "truncated buffer" is noticed (the same flaw as AVRO-4301 in Apache Avro's JavaScript SDK).
// Here each array and map type of our schemas reads and skips its blocks with the count checked
// first. Every item type in our schemas takes at least one byte (no null or empty-record items), so a
// count larger than the bytes left describes items that are not there; refusing it bounds the work
// of any decode by the length of its input.
import avro from 'avsc';

export class RecordDecodingError extends Error {}

/** avsc's cursor over the bytes being decoded. */
interface Tap { buf: Buffer; pos: number; readLong(): number; skipLong(): void; readString(): string }
interface ReadableType { _read(tap: Tap): unknown; _skip(tap: Tap): void }

function checkedCount(tap: Tap, what: string): number {
  let n = tap.readLong();
  if (n < 0) {
    // A negative count is followed by the block's size in bytes (Avro spec, "Complex Types Encoding").
    n = -n;
    const size = tap.readLong();
    if (size < 0) throw new RecordDecodingError(`${what} block with a negative size (${size})`);
  }
  const left = tap.buf.length - tap.pos;
  if (n > left) throw new RecordDecodingError(`${what} block of ${n} items with only ${Math.max(0, left)} bytes left`);
  return n;
}

type Items = { itemsType: ReadableType };
type Values = { valuesType: ReadableType };

// avsc's own methods are on the prototypes (types are frozen); these replace them in subclasses.
class BoundedArrayType extends avro.types.ArrayType {
  _read(tap: Tap): unknown[] {
    const items = (this as unknown as Items).itemsType;
    const out: unknown[] = [];
    for (let n = checkedCount(tap, 'array'); n > 0; n = checkedCount(tap, 'array')) {
      for (let i = 0; i < n; i++) out.push(items._read(tap));
    }
    return out;
  }

  _skip(tap: Tap): void {
    const items = (this as unknown as Items).itemsType;
    for (let n = checkedCount(tap, 'array'); n > 0; n = checkedCount(tap, 'array')) {
      for (let i = 0; i < n; i++) items._skip(tap);
    }
  }
}

class BoundedMapType extends avro.types.MapType {
  _read(tap: Tap): Record<string, unknown> {
    const values = (this as unknown as Values).valuesType;
    const out: Record<string, unknown> = {};
    for (let n = checkedCount(tap, 'map'); n > 0; n = checkedCount(tap, 'map')) {
      for (let i = 0; i < n; i++) {
        const key = tap.readString();
        const value = values._read(tap);
        // A key "__proto__" would otherwise set the object's prototype instead of holding the value.
        if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
        else out[key] = value;
      }
    }
    return out;
  }

  _skip(tap: Tap): void {
    const values = (this as unknown as Values).valuesType;
    for (let n = checkedCount(tap, 'map'); n > 0; n = checkedCount(tap, 'map')) {
      for (let i = 0; i < n; i++) {
        tap.readString();
        values._skip(tap);
      }
    }
  }
}

/**
 * avro.Type.forSchema, with every array and map type reading and skipping its blocks as above (avsc
 * freezes its types, so they are built as such rather than patched). Resolvers created from these
 * types inherit the checked reading: avsc copies the reader type's `_read`.
 */
export function forSchemaBounded(schema: avro.Schema): avro.Type {
  return avro.Type.forSchema(schema, {
    typeHook: (s: avro.Schema, opts: avro.ForSchemaOptions) => {
      if (typeof s !== 'object' || s === null || Array.isArray(s)) return undefined;
      const kind = (s as { type?: unknown }).type;
      if (kind === 'array') return new BoundedArrayType(s as never, opts as never);
      if (kind === 'map') return new BoundedMapType(s as never, opts as never);
      return undefined;
    },
  });
}
