// Running a whole crawl of the synthetic web on Kafka through the real command line: topics,
// two workers, seed, and `status --wait-idle`; results read back from the ClickHouse server.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type ScenarioName, type SyntheticWeb } from '../../test-web/synthetic-web.js';
import { query, runCli, type CliRun } from './cli.js';
import { requireServices } from './services.js';
import { crawlLevelFlags, fetchCounts, FETCH_COUNTS_SQL, type FetchCounts, type PageRow } from './crawl-outcome-tests.js';

export const DEV_SERVICES = new URL('../../../scripts/dev-services.sh', import.meta.url).pathname;

export interface KafkaCrawl {
  web: SyntheticWeb;
  prefix: string;
  chUrl: string;
  workers: ReturnType<typeof runCli>[];
  idle: CliRun;
  pages: PageRow[];
  fetches: FetchCounts;
}

export interface KafkaCrawlOptions {
  scenario?: ScenarioName;
  /** Options of the fresh scenario (fewer pages leave the host's delay room for short intervals). */
  fresh?: { storyEveryMs?: number; pages?: number };
  /** Crawl-level flags for `seed` (default: the synthetic web's expected options). */
  seedFlags?: string[] | ((web: SyntheticWeb) => string[]);
  /** Wait for `status --wait-idle` (default), or let the workers run this long and stop them. */
  runForMs?: number;
  /** With `runForMs`: stop as soon as this holds of what the server has seen (`runForMs` is then the bound). */
  stopWhen?: (web: SyntheticWeb) => boolean;
  /** Options added to worker i's command line. */
  workerArgs?: (i: number) => string[];
}

/** Something done to a crawl under way once the server has seen `after` requests. */
export interface Midway {
  after: number;
  /** And once this holds too (a progress signal, such as what a worker said). */
  when?: (c: KafkaCrawl) => boolean;
  act: (c: KafkaCrawl) => void;
}

/** Runs a whole crawl on Kafka; each of `midway` is done once the server has seen its `after` requests. */
export async function kafkaCrawl(name: string, midway?: Midway | Midway[], o: KafkaCrawlOptions = {}): Promise<KafkaCrawl> {
  const { kafka, clickhouse } = requireServices();
  const id = `${name}${Date.now()}`;
  const prefix = `${id}.`;
  const chUrl = `${clickhouse}/${id}`;
  const kafkaFlags = ['--brokers', kafka, '--topic-prefix', prefix];
  const web = await startSyntheticWeb({ scenario: o.scenario ?? 'test', fresh: o.fresh });
  const crawl: KafkaCrawl = { web, prefix, chUrl, workers: [], idle: undefined as never, pages: [], fetches: fetchCounts({}) };
  try {
    return await run(crawl, kafkaFlags, midway, o);
  } catch (err) {
    // A crawl that failed half-way must not leave its workers and its web running: the test file would never end.
    await stopCrawl(crawl).catch(() => {});
    throw err;
  }
}

async function run(crawl: KafkaCrawl, kafkaFlags: string[], midway: Midway | Midway[] | undefined, o: KafkaCrawlOptions): Promise<KafkaCrawl> {
  const { registry } = requireServices();
  const { web, chUrl, prefix } = crawl;
  const id = prefix.slice(0, -1);
  const topics = await runCli(['topics', 'create', ...kafkaFlags, '--partitions', '4']);
  assert.equal(topics.code, 0, topics.stderr);
  for (let i = 0; i < 2; i++) {
    crawl.workers.push(runCli([
      'worker', ...kafkaFlags, '--schema-registry', registry, '--clickhouse-url', chUrl, '--allow-network', '127.0.0.0/8',
      '--data-dir', mkdtempSync(join(tmpdir(), `${id}-w${i}-`)), '--session-timeout-ms', '6000', ...(o.workerArgs?.(i) ?? []),
    ]));
  }
  const seed = await runCli(['seed', ...kafkaFlags, '--schema-registry', registry, ...(typeof o.seedFlags === 'function' ? o.seedFlags(web) : o.seedFlags ?? crawlLevelFlags()), ...web.seeds]);
  assert.equal(seed.code, 0, seed.stderr);
  const steps = midway === undefined ? [] : Array.isArray(midway) ? [...midway].sort((a, b) => a.after - b.after) : [midway];
  const timer = setInterval(() => {
    while (steps.length && web.requests.length >= steps[0].after && (steps[0].when?.(crawl) ?? true)) steps.shift()!.act(crawl);
  }, 10);
  if (o.runForMs !== undefined) {
    // A crawl that never drains (--recrawl) runs until what the server saw shows what the test needs, or
    // for a while; its workers then stop as Ctrl-C stops them.
    const bound = Date.now() + o.runForMs;
    while (Date.now() < bound && !(o.stopWhen?.(web) ?? false)) await new Promise((r) => setTimeout(r, 100));
    crawl.idle = await runCli(['status', ...kafkaFlags]);
    for (const w of crawl.workers) w.child.kill('SIGTERM');
    await Promise.all(crawl.workers);
  } else {
    crawl.idle = await runCli(['status', ...kafkaFlags, '--wait-idle', '--timeout', '420']);
  }
  clearInterval(timer);
  if (crawl.idle.code !== 0) {
    // Say why: the status table and what the workers said.
    for (const w of crawl.workers) w.child.kill('SIGTERM');
    const said = await Promise.all(crawl.workers.map(async (w) => (await w).stderr.split('\n').slice(-25).join('\n')));
    crawl.idle.stderr += `\n${crawl.idle.stdout}\n--- workers ---\n${said.join('\n---\n')}`;
  }
  try {
    crawl.pages = await query<PageRow>('', 'SELECT * FROM pages', ['--clickhouse-url', chUrl]);
    crawl.fetches = fetchCounts((await query('', FETCH_COUNTS_SQL, ['--clickhouse-url', chUrl]))[0]);
  } catch (err) {
    // Nothing reached ClickHouse: say what status and the workers said, not only that the database is missing.
    for (const w of crawl.workers) w.child.kill('SIGTERM');
    const said = await Promise.all(crawl.workers.map(async (w) => (await w).stderr.split('\n').slice(-25).join('\n')));
    throw new Error(`${(err as Error).message}\nstatus (exit ${crawl.idle.code}):\n${crawl.idle.stdout}${crawl.idle.stderr}\n--- workers ---\n${said.join('\n---\n')}`);
  }
  return crawl;
}

export async function stopCrawl(c: KafkaCrawl | undefined): Promise<void> {
  if (!c) return;
  for (const w of c.workers) w.child.kill('SIGTERM');
  const runs = await Promise.all(c.workers);
  if (process.env.DEBUG_WORKER_LOGS) {
    const { writeFileSync } = await import('node:fs');
    runs.forEach((r, i) => writeFileSync(`${process.env.DEBUG_WORKER_LOGS}/${c.prefix}w${i}.log`, r.stderr));
    writeFileSync(`${process.env.DEBUG_WORKER_LOGS}/${c.prefix}requests.json`, JSON.stringify(c.web.requests));
  }
  await c.web.close();
  await deleteTopics(c.prefix);
}

/**
 * Each crawl makes ~150 partitions under its own prefix; left behind, a day of runs piles up thousands
 * on the dev broker, whose checkpoints and cleaner then cost every later crawl (and the bench) CPU.
 */
async function deleteTopics(prefix: string): Promise<void> {
  const { Kafka, logLevel } = (await import('kafkajs')).default;
  const admin = new Kafka({ brokers: [requireServices().kafka], logLevel: logLevel.NOTHING }).admin();
  try {
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length) await admin.deleteTopics({ topics, timeout: 30_000 });
  } catch (err) {
    process.stderr.write(`test cleanup: topics under ${prefix} not deleted: ${(err as Error).message}\n`);
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

