// Confluent wire format: magic byte 0, 4-byte big-endian schema id, then the Avro binary body.
// Any consumer with a Confluent-compatible deserializer can read our topics.

export const MAGIC_BYTE = 0;
export const WIRE_HEADER = 5;
const HEADER = WIRE_HEADER;

/** Writes the 5-byte header in front of a body already written at WIRE_HEADER. */
export function writeWireHeader(out: Buffer, schemaId: number): void {
  out[0] = MAGIC_BYTE;
  out.writeUInt32BE(schemaId, 1);
}

export function encodeWire(schemaId: number, body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(HEADER + body.length);
  out[0] = MAGIC_BYTE;
  out.writeUInt32BE(schemaId, 1);
  body.copy(out, HEADER);
  return out;
}

export class WireFormatError extends Error {}

export function schemaIdOf(bytes: Buffer): number {
  if (bytes.length < HEADER) throw new WireFormatError(`record of ${bytes.length} bytes is shorter than the 5-byte Confluent header`);
  if (bytes[0] !== MAGIC_BYTE) throw new WireFormatError(`unknown magic byte ${bytes[0]} (expected 0: Confluent wire format)`);
  return bytes.readUInt32BE(1);
}

export function bodyOf(bytes: Buffer): Buffer {
  return bytes.subarray(HEADER);
}
