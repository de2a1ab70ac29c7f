// The SchemaRegistry our codecs use, backed by a Confluent-compatible registry server through
// @kafkajs/confluent-schema-registry. Subjects are `<topic>-value` with BACKWARD compatibility; a
// schema the registry refuses stops the worker before it produces anything.
import { SchemaRegistry as ConfluentClient, SchemaType, COMPATIBILITY } from '@kafkajs/confluent-schema-registry';
import type avro from 'avsc';
import { IncompatibleSchemaError, type SchemaRegistry } from '../../schemas/schema-registry.js';

export class ConfluentSchemaRegistry implements SchemaRegistry {
  private readonly client: ConfluentClient;
  private readonly byId = new Map<number, avro.Schema>();

  constructor(private readonly url: string) {
    this.client = new ConfluentClient({ host: url.replace(/\/+$/, ''), retry: { retries: 5 } });
  }

  async register(subject: string, schema: avro.Schema): Promise<number> {
    try {
      const { id } = await this.client.register(
        { type: SchemaType.AVRO, schema: JSON.stringify(schema) },
        { subject, compatibility: COMPATIBILITY.BACKWARD },
      );
      this.byId.set(id, schema);
      return id;
    } catch (err) {
      const e = err as { status?: number; message?: string; name?: string };
      const message = e.message ?? String(err);
      if (e.status === 409 || /incompatible|compatib/i.test(message)) {
        throw new IncompatibleSchemaError(`the registry at ${this.url} refuses the schema for subject ${subject} (BACKWARD compatibility): ${message}`);
      }
      throw new Error(`cannot register the schema for subject ${subject} at ${this.url}: ${message}`);
    }
  }

  async schemaById(id: number): Promise<avro.Schema> {
    let schema = this.byId.get(id);
    if (!schema) {
      const found = (await this.client.getSchema(id)) as unknown as { schema?: () => avro.Schema };
      if (typeof found.schema !== 'function') throw new Error(`schema id ${id} in the registry is not an Avro schema`);
      schema = found.schema();
      this.byId.set(id, schema);
    }
    return schema;
  }
}
