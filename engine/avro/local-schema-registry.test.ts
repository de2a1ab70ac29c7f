import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryLevel } from 'memory-level';
import avro from 'avsc';
import { LocalSchemaRegistry } from './local-schema-registry.js';
import { IncompatibleSchemaError } from './schema-registry.js';
import { TopicCodecs, UnknownSchemaIdError } from './topic-codecs.js';
import { MAGIC_BYTE, WireFormatError, encodeWire, schemaIdOf } from './wire-format.js';
import { counts, lines } from '../examples/word-count.js';

const V1 = {
  type: 'record', name: 'Page', namespace: 'test',
  fields: [{ name: 'url', type: 'string' }, { name: 'depth', type: 'int' }],
} as avro.Schema;
const withField = (field: object) => ({ ...(V1 as object), fields: [...(V1 as { fields: object[] }).fields, field] }) as avro.Schema;
const V2 = withField({ name: 'lang', type: 'string', default: 'und' });

async function openDb() {
  const db = new MemoryLevel<string, string>({ keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  return db;
}
const registryOver = (db: MemoryLevel<string, string>) => new LocalSchemaRegistry(db as never);

describe('LocalSchemaRegistry', () => {
  it('should give the same schema the same id, also after a restart and under another subject', async () => {
    const db = await openDb();
    const registry = registryOver(db);
    const id = await registry.register('pages-value', V1);
    assert.equal(await registry.register('pages-value', V1), id);
    // Key order and whitespace do not make a different schema.
    const reordered = JSON.parse(JSON.stringify({ fields: (V1 as { fields: unknown }).fields, namespace: 'test', name: 'Page', type: 'record' }));
    assert.equal(await registry.register('pages-value', reordered), id);
    assert.equal(await registryOver(db).register('pages-value', V1), id, 'a new process over the same data directory');
    assert.equal(await registry.register('other-value', V1), id, 'ids are global, as in a Confluent registry');
    const stored = await registryOver(db).schemaById(id);
    assert.deepEqual(avro.Type.forSchema(stored).schema(), avro.Type.forSchema(V1).schema(), 'readable by id after a restart');
    await db.close();
  });

  it('should register a BACKWARD-compatible change as a new version with a new id', async () => {
    const db = await openDb();
    const registry = registryOver(db);
    const v1 = await registry.register('pages-value', V1);
    const v2 = await registry.register('pages-value', V2);
    assert.notEqual(v2, v1);
    assert.equal(await registry.register('pages-value', V1), v1, 'earlier versions stay registered');
    assert.equal(await registry.register('pages-value', V2), v2);
    const stored = (await registry.schemaById(v2)) as { fields: { name: string }[] };
    assert.deepEqual(stored.fields.map((f) => f.name), ['url', 'depth', 'lang']);
    // Removing a field is BACKWARD compatible too: the new reader ignores it.
    const v3 = await registry.register('pages-value', { ...(V1 as object), fields: [{ name: 'url', type: 'string' }] } as avro.Schema);
    assert.ok(v3 !== v1 && v3 !== v2);
    await db.close();
  });

  it('should refuse an incompatible change with an error naming the subject', async () => {
    const db = await openDb();
    const registry = registryOver(db);
    await registry.register('pages-value', V1);
    const noDefault = withField({ name: 'lang', type: 'string' });
    const retyped = { ...(V1 as object), fields: [{ name: 'url', type: 'int' }, { name: 'depth', type: 'int' }] } as avro.Schema;
    for (const bad of [noDefault, retyped]) {
      await assert.rejects(registry.register('pages-value', bad), (err: Error) => {
        assert.ok(err instanceof IncompatibleSchemaError, `${err.constructor.name}: ${err.message}`);
        assert.match(err.message, /subject pages-value/);
        assert.match(err.message, /not BACKWARD compatible with version 1/);
        return true;
      });
    }
    assert.ok((await registry.register('other-value', noDefault)) > 0, 'another subject has no history to be compatible with');
    await db.close();
  });

  it('should check a change against the latest version of the subject', async () => {
    const db = await openDb();
    const registry = registryOver(db);
    await registry.register('pages-value', V1);
    await registry.register('pages-value', V2);
    const retypedLang = withField({ name: 'lang', type: 'int', default: 0 });
    await assert.rejects(registry.register('pages-value', retypedLang), /version 2/);
    await db.close();
  });
});

describe('Confluent wire format', () => {
  it('should frame each record as magic byte 0, a 4-byte big-endian schema id, then the Avro body', async () => {
    const db = await openDb();
    const registry = registryOver(db);
    await registry.register('padding-value', counts.schema); // so that the topic's id is not 1
    const codecs = new TopicCodecs(registry);
    await codecs.addTopic('lines', lines.schema);
    const id = codecs.schemaIdFor('lines');
    assert.ok(id > 1);
    const bytes = codecs.encode('lines', { doc: 'd1', text: 'hello' });
    assert.equal(bytes[0], MAGIC_BYTE);
    assert.equal(MAGIC_BYTE, 0);
    assert.equal(bytes.readUInt32BE(1), id);
    assert.equal(schemaIdOf(bytes), id);
    assert.deepEqual(encodeWire(0x01020304, Buffer.from([9])), Buffer.from([0, 1, 2, 3, 4, 9]));
    assert.equal(codecs.decode<{ text: string }>('lines', bytes).text, 'hello');
    await db.close();
  });

  it('should refuse to decode a record with an unknown magic byte, saying why', async () => {
    const db = await openDb();
    const codecs = new TopicCodecs(registryOver(db));
    await codecs.addTopic('lines', lines.schema);
    const good = codecs.encode('lines', { doc: 'd1', text: 'hello' });
    const bad = Buffer.from(good);
    bad[0] = 1;
    assert.throws(() => codecs.decode('lines', bad), (err: Error) => {
      assert.ok(err instanceof WireFormatError);
      assert.match(err.message, /unknown magic byte 1 \(expected 0: Confluent wire format\)/);
      return true;
    });
    assert.throws(() => codecs.decode('lines', Buffer.from([0, 0, 1])), /shorter than the 5-byte Confluent header/);
    await db.close();
  });

  it('should read a record written under an older schema version, filling new fields from defaults', async () => {
    const db = await openDb();
    const writer = new TopicCodecs(registryOver(db));
    await writer.addTopic('pages', V1);
    const old = writer.encode('pages', { url: 'http://a.test/', depth: 3 });
    const reader = new TopicCodecs(registryOver(db));
    await reader.addTopic('pages', V2);
    assert.throws(() => reader.decode('pages', old), UnknownSchemaIdError, 'the writer id is loaded on demand');
    await reader.loadSchemaId(schemaIdOf(old));
    assert.deepEqual({ ...reader.decode<object>('pages', old) }, { url: 'http://a.test/', depth: 3, lang: 'und' });
    await db.close();
  });

  it('should name the invalid field when a record does not fit its topic schema', async () => {
    const db = await openDb();
    const codecs = new TopicCodecs(registryOver(db));
    await codecs.addTopic('pages', V1);
    assert.throws(() => codecs.encode('pages', { url: 'http://a.test/', depth: 'deep' }), /topic pages .*invalid field\(s\) depth/);
    await db.close();
  });
});
