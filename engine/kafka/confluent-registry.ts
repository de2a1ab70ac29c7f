// The SchemaRegistry our codecs use, backed by a Confluent-compatible registry server through
// @kafkajs/confluent-schema-registry. Subjects are `<topic>-value` with BACKWARD compatibility; a
// schema the registry refuses stops the worker before it produces anything.
import { SchemaRegistry as ConfluentClient, SchemaType, COMPATIBILITY } from '@kafkajs/confluent-schema-registry';
import type avro from 'avsc';
import { IncompatibleSchemaError, type SchemaRegistry } from '../avro/schema-registry.js';

export class ConfluentSchemaRegistry implements SchemaRegistry {
  private readonly client: ConfluentClient;
  private readonly byId = new Map<number, avro.Schema>();

  constructor(private readonly url: string) {
    this.client = new ConfluentClient({ host: url.replace(/\/+$/, ''), retry: { retries: 5 } });
  }

  async register(subject: string, schema: avro.Schema): Promise<number> {
    // The subject's compatibility is set first, not by the client library after registering: its
    // check-then-set races when workers and `seed` register the same subjects at once.
    await this.ensureBackward(subject);
    let id: number;
    try {
      ({ id } = await this.client.register(
        { type: SchemaType.AVRO, schema: JSON.stringify(schema) },
        { subject, compatibility: COMPATIBILITY.BACKWARD },
      ));
    } catch (err) {
      const e = err as { status?: number; message?: string };
      const message = e.message ?? String(err);
      if (e.status === 409 || /incompatible/i.test(message)) {
        throw new IncompatibleSchemaError(`the registry at ${this.url} refuses the schema for subject ${subject} (BACKWARD compatibility): ${message}`);
      }
      throw new Error(`cannot register the schema for subject ${subject} at ${this.url}: ${message}`);
    }
    this.byId.set(id, schema);
    return id;
  }

  /** Every later version of the subject must be readable by consumers of the previous one. */
  private async ensureBackward(subject: string): Promise<void> {
    const url = `${this.url.replace(/\/+$/, '')}/config/${encodeURIComponent(subject)}`;
    const current = async () => {
      const r = await fetch(url);
      return r.ok ? String(((await r.json()) as { compatibilityLevel?: string }).compatibilityLevel ?? '').toUpperCase() : '';
    };
    if ((await current()) === 'BACKWARD') return;
    const put = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ compatibility: 'BACKWARD' }),
    });
    // Another process may have set it between our read and our write: fine if it is BACKWARD now.
    if (!put.ok && (await current()) !== 'BACKWARD') {
      throw new Error(`cannot set BACKWARD compatibility for subject ${subject} at ${this.url}: HTTP ${put.status} ${await put.text()}`);
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
