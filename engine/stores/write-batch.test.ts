import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { writeBatch, type StoreOp } from './write-batch.js';

async function withDb(run: (db: Level<Buffer, Buffer>) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'crawlstream-write-batch-'));
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  try {
    await run(db);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const b = (s: string) => Buffer.from(s);

describe('writeBatch', () => {
  it('should write puts and deletes in order, a later operation on a key winning', async () => {
    await withDb(async (db) => {
      await db.put(b('gone'), b('x'));
      await writeBatch(db, [
        { type: 'put', key: b('a'), value: b('1') }, { type: 'del', key: b('gone') },
        { type: 'put', key: b('c'), value: b('old') }, { type: 'put', key: b('c'), value: b('new') },
      ]);
      assert.deepEqual(await db.getMany([b('a'), b('gone'), b('c')]), [b('1'), undefined, b('new')]);
    });
  });

  it('should write nothing of a batch holding an operation LevelDB refuses', async () => {
    await withDb(async (db) => {
      const bad = { type: 'put', key: null, value: b('v') } as unknown as StoreOp;
      await assert.rejects(writeBatch(db, [{ type: 'put', key: b('a'), value: b('1') }, bad]));
      assert.equal(await db.get(b('a')), undefined);
    });
  });
});
