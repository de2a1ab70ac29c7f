// Avro codecs for every topic of a topology, in the Confluent wire format. Encoding and decoding are
// synchronous on the hot path; a record written under a schema id this process has not seen yet
// raises UnknownSchemaIdError, and the runtime loads that id from the registry before retrying.
import avro from 'avsc';
import { forSchemaBounded, RecordDecodingError } from './bounded-collections.js';
import { ScratchEncoder } from './scratch-encoder.js';
import type { SchemaRegistry } from './schema-registry.js';
import { schemaIdOf, WIRE_HEADER, writeWireHeader } from './wire-format.js';

export { RecordDecodingError } from './bounded-collections.js';

export class UnknownSchemaIdError extends Error {
  constructor(readonly schemaId: number) {
    super(`schema id ${schemaId} not loaded`);
  }
}

export class RecordEncodingError extends Error {}

/** A record encoded above its topic's declared bound (TopicSpec.maxRecordBytes). */
export class RecordTooLargeError extends RecordEncodingError {}

type Resolver = ReturnType<avro.Type['createResolver']>;

/** What a processor reads of a topic's records: fields it never reads (`skip`), string fields it reads as UTF-8 bytes (`asBytes`). */
export interface Projection {
  skip: readonly string[];
  asBytes: readonly string[];
}

interface TopicCodec {
  readerId: number;
  reader: avro.Type;
  resolvers: Map<number, avro.Type | Resolver>;
  schema: avro.Schema;
  /** Readers without some fields or with some as bytes (a processor's projection), by the projection given, with their resolvers. */
  projections: Map<Projection, { reader: avro.Type; resolvers: Map<number, Resolver> }>;
  /** Largest encoded record the topic takes (wire header included). */
  maxRecordBytes: number;
}

/**
 * The value of a wire-format record, read in place after its header (fromBuffer would need the body
 * as a Buffer of its own: a view made for every record read), every byte of it and none past it.
 */
function readBody(reader: avro.Type, bytes: Buffer, resolver: Resolver | undefined): unknown {
  const { value, offset } = reader.decode(bytes, WIRE_HEADER, resolver);
  if (offset < 0) throw new Error('truncated buffer');
  if (offset < bytes.length) throw new Error('trailing data');
  return value;
}

export class TopicCodecs {
  private readonly topics = new Map<string, TopicCodec>();
  private readonly writers = new Map<number, avro.Type>();
  private readonly encoder = new ScratchEncoder();

  constructor(private readonly registry: SchemaRegistry) {}

  /**
   * Registers the topic's value schema under `<topic>-value` (BACKWARD compatibility enforced).
   * `maxRecordBytes`: the topic's declared bound, which encode enforces on every runtime: on Kafka a
   * larger record is refused by the broker at commit, failing the worker's whole transaction again at
   * every retry; here it fails the record that made it (a dead letter saying why).
   */
  async addTopic(topic: string, schema: avro.Schema, subjectTopic = topic, maxRecordBytes = Infinity): Promise<void> {
    const id = await this.registry.register(`${subjectTopic}-value`, schema);
    const reader = forSchemaBounded(schema);
    this.writers.set(id, reader);
    this.topics.set(topic, { readerId: id, reader, resolvers: new Map([[id, reader]]), schema, projections: new Map(), maxRecordBytes });
  }

  encode(topic: string, value: unknown): Buffer {
    const codec = this.codec(topic);
    try {
      // Header and body written once into the scratch buffer, then copied out at their exact size.
      const end = this.encoder.write(codec.reader, value, WIRE_HEADER);
      if (end > codec.maxRecordBytes) {
        this.encoder.drop();
        throw new RecordTooLargeError(`a record for topic ${topic} is ${end} bytes, over the topic's bound of ${codec.maxRecordBytes} (max.message.bytes on Kafka): not written`);
      }
      writeWireHeader(this.encoder.buffer, codec.readerId);
      return this.encoder.copyOut(end);
    } catch (err) {
      if (err instanceof RecordTooLargeError) throw err;
      const problems: string[] = [];
      codec.reader.isValid(value, { errorHook: (path) => problems.push(path.join('.') || '(record)') });
      throw new RecordEncodingError(
        `cannot encode a record for topic ${topic} as ${codec.reader.name}: invalid field(s) ${problems.join(', ') || (err as Error).message}`,
      );
    }
  }

  /**
   * @throws WireFormatError (not a Confluent-framed record), UnknownSchemaIdError (load the id and retry),
   *   RecordDecodingError (the body does not decode under its schema, whatever the bytes).
   */
  decode<V>(topic: string, bytes: Buffer, projection?: Projection): V {
    const codec = this.codec(topic);
    const id = schemaIdOf(bytes);
    if (projection) return this.decodeProjected(codec, topic, id, bytes, projection);
    let resolver = codec.resolvers.get(id);
    if (!resolver) {
      const writer = this.writers.get(id);
      if (!writer) throw new UnknownSchemaIdError(id);
      resolver = codec.reader.createResolver(writer);
      codec.resolvers.set(id, resolver);
    }
    try {
      return readBody(codec.reader, bytes, resolver === codec.reader ? undefined : (resolver as Resolver)) as V;
    } catch (err) {
      throw new RecordDecodingError(`cannot decode a record of topic ${topic} (schema id ${id}, ${bytes.length} bytes) ` +
        `as ${codec.reader.name}: ${(err as Error)?.message ?? err}`);
    }
  }

  /**
   * Decodes under a reader without the `skip` fields, and with the `asBytes` ones as bytes: avsc's
   * resolver steps over a skipped field (a string or a map is passed by its lengths, nothing is
   * allocated for it) and reads a string as bytes (Avro's promotion). `p` is a processor's own,
   * the same object every time, so its reader is built once.
   */
  private decodeProjected<V>(codec: TopicCodec, topic: string, id: number, bytes: Buffer, p: Projection): V {
    let projection = codec.projections.get(p);
    if (!projection) {
      const schema = codec.schema as { fields: { name: string; type: unknown }[] };
      const fields = schema.fields.filter((f) => !p.skip.includes(f.name)).map((f) => (p.asBytes.includes(f.name) ? { ...f, type: 'bytes' } : f));
      const reader = forSchemaBounded({ ...schema, fields } as avro.Schema);
      codec.projections.set(p, (projection = { reader, resolvers: new Map() }));
    }
    let resolver = projection.resolvers.get(id);
    if (!resolver) {
      const writer = this.writers.get(id);
      if (!writer) throw new UnknownSchemaIdError(id);
      projection.resolvers.set(id, (resolver = projection.reader.createResolver(writer)));
    }
    try {
      return readBody(projection.reader, bytes, resolver) as V;
    } catch (err) {
      throw new RecordDecodingError(`cannot decode a record of topic ${topic} (schema id ${id}, ${bytes.length} bytes) ` +
        `as ${codec.reader.name}: ${(err as Error)?.message ?? err}`);
    }
  }

  async loadSchemaId(id: number): Promise<void> {
    if (!this.writers.has(id)) this.writers.set(id, forSchemaBounded(await this.registry.schemaById(id)));
  }

  schemaIdFor(topic: string): number {
    return this.codec(topic).readerId;
  }

  private codec(topic: string): TopicCodec {
    const codec = this.topics.get(topic);
    if (!codec) throw new Error(`no schema registered for topic ${topic}`);
    return codec;
  }
}
