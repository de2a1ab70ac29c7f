// The embedded runtime's registry: subjects, versions and global ids kept in the data directory's
// LevelDB, with the same BACKWARD rule a Confluent registry applies.
import type avro from 'avsc';
import type { AbstractLevel } from 'abstract-level';
import { IncompatibleSchemaError, backwardIncompatibility, canonicalJson, type SchemaRegistry } from './schema-registry.js';

interface SubjectVersion {
  version: number;
  id: number;
}

type Db = AbstractLevel<Buffer | Uint8Array | string, string, string>;

export class LocalSchemaRegistry implements SchemaRegistry {
  private readonly byId = new Map<number, avro.Schema>();

  constructor(private readonly db: Db) {}

  async register(subject: string, schema: avro.Schema): Promise<number> {
    const text = canonicalJson(schema);
    const versions = await this.versions(subject);
    for (const v of versions) {
      const existing = await this.schemaById(v.id);
      if (canonicalJson(existing) === text) return v.id;
    }
    const latest = versions.at(-1);
    if (latest) {
      const why = backwardIncompatibility(schema, await this.schemaById(latest.id));
      if (why) {
        throw new IncompatibleSchemaError(
          `schema for subject ${subject} is not BACKWARD compatible with version ${latest.version} (id ${latest.id}): ${why}`,
        );
      }
    }
    const id = await this.sameSchemaId(text) ?? (await this.nextId());
    await this.db.batch([
      { type: 'put', key: `registry!id!${id}`, value: text },
      { type: 'put', key: `registry!subject!${subject}`, value: JSON.stringify([...versions, { version: versions.length + 1, id }]) },
    ]);
    this.byId.set(id, JSON.parse(text) as avro.Schema);
    return id;
  }

  async schemaById(id: number): Promise<avro.Schema> {
    let schema = this.byId.get(id);
    if (!schema) {
      const text = await this.db.get(`registry!id!${id}`);
      if (text === undefined) throw new Error(`schema id ${id} is not in the local registry`);
      schema = JSON.parse(text) as avro.Schema;
      this.byId.set(id, schema);
    }
    return schema;
  }

  private async versions(subject: string): Promise<SubjectVersion[]> {
    const text = await this.db.get(`registry!subject!${subject}`);
    return text === undefined ? [] : (JSON.parse(text) as SubjectVersion[]);
  }

  private async sameSchemaId(text: string): Promise<number | undefined> {
    for await (const [key, value] of this.db.iterator({ gte: 'registry!id!', lt: 'registry!id"' })) {
      if (value === text) return Number(String(key).slice('registry!id!'.length));
    }
    return undefined;
  }

  private async nextId(): Promise<number> {
    const last = Number((await this.db.get('registry!next-id')) ?? '0');
    const id = last + 1;
    await this.db.put('registry!next-id', String(id));
    return id;
  }
}
