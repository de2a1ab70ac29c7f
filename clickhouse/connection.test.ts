import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { CHDB_MERGE_TREE_SETTINGS } from './chdb-memory.js';
import { openClickHouse, redactUrl, sharedClickHouse, sqlString } from './connection.js';

const dataDir = mkdtempSync(join(tmpdir(), 'crawlstream-chconn-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((r) => server.close(r));
  return port;
}

test('should say which process holds the embedded store while a crawl has it open', { timeout: 60_000 }, async () => {
  const holder = spawn(process.execPath, ['--input-type=module', '-e', `
    import { openClickHouse } from ${JSON.stringify(new URL('./connection.js', import.meta.url).href)};
    const ch = await openClickHouse({ dataDir: ${JSON.stringify(dataDir)} });
    process.stdout.write('open\\n');
    process.stdin.once('data', async () => { await ch.close(); process.exit(0); });
  `], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    holder.stdout.once('data', () => resolve());
    holder.once('exit', (code) => reject(new Error(`holder exited with ${code}`)));
  });
  try {
    await assert.rejects(openClickHouse({ dataDir }), new RegExp(`locked by process ${holder.pid}.*crawl in progress`));
  } finally {
    holder.stdin.write('done\n');
    await new Promise((r) => holder.once('exit', r));
  }
  // Once the crawl is over, the store opens, with the database created and in use.
  const ch = await openClickHouse({ dataDir, database: 'after_lock' });
  try {
    assert.equal(ch.engine, 'chdb');
    assert.equal(ch.location, join(dataDir, 'clickhouse'));
    assert.deepEqual(await ch.query('SELECT currentDatabase() AS db'), [{ db: 'after_lock' }]);
  } finally {
    await ch.close();
  }
});

test('should run embedded ClickHouse with the merge settings that bound its memory and rewrites', { timeout: 60_000 }, async () => {
  // chdb reads these only from the configuration file its engine starts with: a file it ignored would
  // leave merges at ClickHouse's defaults without a word.
  const ch = await openClickHouse({ dataDir, database: 'merge_settings' });
  try {
    const rows = await ch.query<{ name: string; value: string }>(
      `SELECT name, value FROM system.merge_tree_settings WHERE name IN (${Object.keys(CHDB_MERGE_TREE_SETTINGS).map(sqlString).join(', ')})`,
    );
    const applied = Object.fromEntries(rows.map((r) => [r.name, Number(r.value)]));
    assert.deepEqual(applied, { ...CHDB_MERGE_TREE_SETTINGS });
  } finally {
    await ch.close();
  }
});

test('should name the server and the cause when the server cannot be reached', async () => {
  const port = await closedPort();
  await assert.rejects(openClickHouse({ url: `http://crawler:secret@127.0.0.1:${port}` }), (err: Error) => {
    assert.match(err.message, new RegExp(`^ClickHouse server at http://127\\.0\\.0\\.1:${port} is unreachable: .*ECONNREFUSED`));
    assert.doesNotMatch(err.message, /secret/);
    return true;
  });
});

test('should share one server connection and try again after a failed open', async () => {
  const statements: string[] = [];
  let up = false;
  const fake = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (!up) return res.destroy();
      statements.push(body.trim());
      res.setHeader('Content-Type', 'application/json');
      res.end(body.startsWith('SELECT version()') ? '{"version()":"18.16.1"}\n' : '');
    });
  });
  const port = await listen(fake);
  try {
    const get = sharedClickHouse({ url: `http://127.0.0.1:${port}`, database: 'shared_db' });
    await assert.rejects(get(), /unreachable/);
    up = true;
    const [a, b] = await Promise.all([get(), get()]);
    assert.equal(a, b);
    assert.equal(a.engine, 'server');
    assert.ok(statements.includes('CREATE DATABASE IF NOT EXISTS shared_db'), statements.join(' | '));
    await get.close();
  } finally {
    fake.closeAllConnections();
    await new Promise((r) => fake.close(r));
  }
});

test('should refuse database names that would need quoting', async () => {
  await assert.rejects(openClickHouse({ dataDir, database: 'crawl; DROP TABLE x' }), /invalid ClickHouse database name/);
});

test('should quote string literals and hide credentials in URLs', () => {
  assert.equal(sqlString(`it's a \\ test`), `'it\\'s a \\\\ test'`);
  assert.equal(redactUrl('http://u:p@127.0.0.1:8123/'), 'http://127.0.0.1:8123');
});
