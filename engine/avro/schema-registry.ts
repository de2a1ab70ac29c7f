// The registry interface both runtimes use: a local one in the data directory (embedded) and a
// Confluent-compatible server (Kafka mode). Subjects are `<topic>-value`, compatibility BACKWARD.
import avro from 'avsc';

export interface SchemaRegistry {
  /** Registers (or finds) the schema under the subject; refuses a change that is not BACKWARD compatible. */
  register(subject: string, schema: avro.Schema): Promise<number>;
  schemaById(id: number): Promise<avro.Schema>;
  close?(): Promise<void>;
}

export class IncompatibleSchemaError extends Error {}

/**
 * BACKWARD: a consumer using the new schema can read data written with the previous one.
 * Returns a reason when it cannot, undefined when it can.
 */
export function backwardIncompatibility(newSchema: avro.Schema, previous: avro.Schema): string | undefined {
  try {
    avro.Type.forSchema(newSchema).createResolver(avro.Type.forSchema(previous));
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export function canonicalJson(schema: avro.Schema): string {
  return JSON.stringify(avro.Type.forSchema(schema).schema());
}
