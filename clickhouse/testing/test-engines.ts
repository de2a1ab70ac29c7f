// ClickHouse engines for tests: embedded chdb in a per-process temp directory, the server named by
// CLICKHOUSE_URL, and a throwaway clickhouse-server process the kill tests may kill -9.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openClickHouse, type ClickHouse } from '../connection.js';
import { migrate, type Migration } from '../schema.js';

export interface TestEngine {
  name: 'chdb' | 'server';
  /** A fresh database of its own, migrated (by default to the current schema). */
  open(opts?: { migrations?: readonly Migration[] }): Promise<ClickHouse>;
  /** Another connection to the database `ch` uses (as a restarted process would get). */
  reopen(ch: ClickHouse, opts?: { readOnly?: boolean }): Promise<ClickHouse>;
  /** Drops the databases this engine created. */
  cleanup(): Promise<void>;
}

let chdbDir: string | undefined;
let counter = 0;

/** chdb binds one directory per process, so every test database of a process lives in this one. */
export function testChdbDir(): string {
  if (!chdbDir) {
    chdbDir = mkdtempSync(join(tmpdir(), 'crawlstream-chdb-'));
    const dir = chdbDir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return chdbDir;
}

function uniqueDatabase(): string {
  return `t_${process.pid}_${Date.now().toString(36)}_${++counter}`;
}

function engineOf(name: TestEngine['name'], opts: { url?: string; dataDir?: string }): TestEngine {
  const opened: ClickHouse[] = [];
  const databases: string[] = [];
  return {
    name,
    async open(extra) {
      const database = uniqueDatabase();
      databases.push(database);
      const ch = await openClickHouse({ ...opts, database });
      opened.push(ch);
      await migrate(ch, { migrations: extra?.migrations });
      return ch;
    },
    async reopen(ch, extra) {
      const again = await openClickHouse({ ...opts, database: ch.database, readOnly: extra?.readOnly });
      opened.push(again);
      return again;
    },
    async cleanup() {
      const admin = opened.filter((c) => !c.readOnly).at(-1) ?? (await openClickHouse(opts));
      for (const db of databases) await admin.command(`DROP DATABASE IF EXISTS ${db}`).catch(() => undefined);
      for (const ch of opened) await ch.close().catch(() => undefined);
    },
  };
}

export function chdbEngine(): TestEngine {
  return engineOf('chdb', { dataDir: testChdbDir() });
}

/** The server of the integration tests, or undefined when CLICKHOUSE_URL is not set. */
export function serverEngine(): TestEngine | undefined {
  const url = process.env.CLICKHOUSE_URL;
  return url ? engineOf('server', { url }) : undefined;
}

export const CLICKHOUSE_SERVER_BIN = process.env.CLICKHOUSE_SERVER_BIN ?? '/usr/sbin/clickhouse-server';

export interface OwnServer {
  url: string;
  dir: string;
  process(): ChildProcess;
  kill9(): void;
  /** Starts again on the same data and ports. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A clickhouse-server of our own on free loopback ports, with its data in a temp directory. */
export async function startOwnServer(): Promise<OwnServer> {
  if (!existsSync(CLICKHOUSE_SERVER_BIN)) throw new Error(`no ClickHouse server binary at ${CLICKHOUSE_SERVER_BIN}`);
  const dir = mkdtempSync(join(tmpdir(), 'crawlstream-chserver-'));
  const [httpPort, tcpPort] = [await freePort(), await freePort()];
  for (const d of ['data', 'tmp', 'user_files', 'log']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'config.xml'), serverConfig(dir, httpPort, tcpPort));
  writeFileSync(join(dir, 'users.xml'), USERS_XML);
  const url = `http://127.0.0.1:${httpPort}`;
  let child: ChildProcess;
  const start = async () => {
    child = spawn(CLICKHOUSE_SERVER_BIN, [`--config-file=${join(dir, 'config.xml')}`], { stdio: 'ignore' });
    const own = child;
    // Never leave a server behind when a test process dies.
    const reap = () => own.kill('SIGKILL');
    process.once('exit', reap);
    own.once('exit', () => process.removeListener('exit', reap));
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        const res = await fetch(`${url}/ping`);
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`clickhouse-server in ${dir} did not start`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const exited = () => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode ? resolve() : child.once('exit', () => resolve())));
  await start();
  return {
    url,
    dir,
    process: () => child,
    kill9: () => child.kill('SIGKILL'),
    async restart() {
      await exited();
      await start();
    },
    async stop() {
      if (child.exitCode === null && !child.signalCode) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited();
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

function serverConfig(dir: string, httpPort: number, tcpPort: number): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/log/server.log</log><errorlog>${dir}/log/server.err.log</errorlog><size>10M</size><count>1</count></logger>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <max_connections>128</max_connections>
  <keep_alive_timeout>3</keep_alive_timeout>
  <max_concurrent_queries>50</max_concurrent_queries>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <mark_cache_size>268435456</mark_cache_size>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mlock_executable>false</mlock_executable>
</yandex>
`;
}

const USERS_XML = `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;
