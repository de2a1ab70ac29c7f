// Loads the Avro schemas shipped in schemas/*.avsc.
import { readFileSync } from 'node:fs';
import type avro from 'avsc';

export const SCHEMA_FILES = [
  'discovered-url', 'canonical-url', 'fetch-request', 'fetch-result', 'parsed-page',
  'simhash-band', 'duplicate', 'skipped-url', 'unfetched-url',
] as const;
export type SchemaName = (typeof SCHEMA_FILES)[number];

const cache = new Map<SchemaName, avro.Schema>();

export function loadSchema(name: SchemaName): avro.Schema {
  let schema = cache.get(name);
  if (!schema) {
    // dist/schemas/schema-files.js → ../../schemas/<name>.avsc: the .avsc files are not compiled.
    const text = readFileSync(new URL(`../../schemas/${name}.avsc`, import.meta.url), 'utf8');
    schema = JSON.parse(text) as avro.Schema;
    cache.set(name, schema);
  }
  return schema;
}
