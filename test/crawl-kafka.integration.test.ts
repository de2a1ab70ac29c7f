// End to end on real services (scripts/dev-services.sh): the same crawl of the synthetic web on
// Kafka with two workers, results in the ClickHouse server, held to the same server-side checks
// as the embedded crawl; then the same with a worker killed -9 mid-crawl and with the broker
// restarted mid-crawl.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb } from '../test-web/synthetic-web.js';
import { query, runCli, type CliRun } from './support/cli.js';
import { requireServices } from './support/services.js';
import { assertAllFetched, assertNeverFetched, assertPolite } from './support/crawl-checks.js';
import { crawlLevelFlags, crawlOutcomeTests, TEST_DELAY_MS, type PageRow } from './support/crawl-outcome-tests.js';

const DEV_SERVICES = new URL('../../scripts/dev-services.sh', import.meta.url).pathname;

interface KafkaCrawl {
  web: SyntheticWeb;
  chUrl: string;
  workers: (Promise<CliRun> & { child: import('node:child_process').ChildProcess })[];
  idle: CliRun;
  pages: PageRow[];
}

/** Runs a whole crawl on Kafka; `midway` is called once the server has seen `after` requests. */
async function kafkaCrawl(name: string, midway?: { after: number; act: (c: KafkaCrawl) => void }): Promise<KafkaCrawl> {
  const { kafka, registry, clickhouse } = requireServices();
  const id = `${name}${Date.now()}`;
  const prefix = `${id}.`;
  const chUrl = `${clickhouse}/${id}`;
  const kafkaFlags = ['--brokers', kafka, '--topic-prefix', prefix];
  const web = await startSyntheticWeb({ scenario: 'test' });
  const topics = await runCli(['topics', 'create', ...kafkaFlags, '--partitions', '4']);
  assert.equal(topics.code, 0, topics.stderr);
  const crawl: KafkaCrawl = { web, chUrl, workers: [], idle: undefined as never, pages: [] };
  for (let i = 0; i < 2; i++) {
    crawl.workers.push(runCli([
      'worker', ...kafkaFlags, '--schema-registry', registry, '--clickhouse-url', chUrl, '--allow-network', '127.0.0.0/8',
      '--data-dir', mkdtempSync(join(tmpdir(), `${id}-w${i}-`)), '--session-timeout-ms', '6000',
    ]));
  }
  const seed = await runCli(['seed', ...kafkaFlags, '--schema-registry', registry, ...crawlLevelFlags(), ...web.seeds]);
  assert.equal(seed.code, 0, seed.stderr);
  let acted = false;
  const timer = setInterval(() => {
    if (midway && !acted && web.requests.length >= midway.after) {
      acted = true;
      midway.act(crawl);
    }
  }, 10);
  crawl.idle = await runCli(['status', ...kafkaFlags, '--wait-idle', '--timeout', '420']);
  clearInterval(timer);
  if (crawl.idle.code !== 0) {
    // Say why: the status table and what the workers said.
    for (const w of crawl.workers) w.child.kill('SIGTERM');
    const said = await Promise.all(crawl.workers.map(async (w) => (await w).stderr.split('\n').slice(-25).join('\n')));
    crawl.idle.stderr += `\n${crawl.idle.stdout}\n--- workers ---\n${said.join('\n---\n')}`;
  }
  crawl.pages = await query<PageRow>('', 'SELECT * FROM pages', ['--clickhouse-url', chUrl]);
  return crawl;
}

async function stopCrawl(c: KafkaCrawl | undefined): Promise<void> {
  if (!c) return;
  for (const w of c.workers) w.child.kill('SIGTERM');
  await Promise.all(c.workers);
  await c.web.close();
}

describe('Kafka crawl of the synthetic web with two workers', () => {
  let crawl: KafkaCrawl;
  before(async () => {
    crawl = await kafkaCrawl('two');
  });
  after(() => stopCrawl(crawl));

  it('should reach idle, as `status --wait-idle` reports', () => {
    assert.equal(crawl.idle.code, 0, crawl.idle.stderr);
    assert.match(crawl.idle.stdout, /idle: every topic is consumed/);
  });

  crawlOutcomeTests(() => ({ web: crawl.web, pages: crawl.pages, delayMs: TEST_DELAY_MS }));
});

describe('Kafka crawl surviving faults', () => {
  let killed: KafkaCrawl | undefined;
  let restarted: KafkaCrawl | undefined;
  after(async () => {
    await stopCrawl(killed);
    await stopCrawl(restarted);
  });

  it('should finish with nothing lost, no page row twice and politeness intact when a worker is killed -9', async () => {
    killed = await kafkaCrawl('kill', { after: 60, act: (c) => c.workers[0].child.kill('SIGKILL') });
    assert.equal(killed.idle.code, 0, killed.idle.stderr);
    assertPolite(killed.web, TEST_DELAY_MS);
    assertNeverFetched(killed.web);
    assertAllFetched(killed.web);
    const urls = killed.pages.map((p) => p.url);
    assert.equal(new Set(urls).size, urls.length, 'one pages row per URL');
    const fetchIds = await query<{ n: string; d: string }>('', 'SELECT count() AS n, uniqExact(fetch_id) AS d FROM fetches', ['--clickhouse-url', killed.chUrl]);
    assert.equal(fetchIds[0].n, fetchIds[0].d, 'no fetch recorded twice');
  });

  it('should finish with nothing lost and politeness intact when the broker restarts mid-crawl', async () => {
    restarted = await kafkaCrawl('restart', {
      after: 60,
      // Not execFileSync: the synthetic web runs in this process and must keep answering meanwhile.
      act: () => void spawn('bash', [DEV_SERVICES, 'restart-kafka'], { stdio: 'ignore' }),
    });
    assert.equal(restarted.idle.code, 0, restarted.idle.stderr);
    assertPolite(restarted.web, TEST_DELAY_MS);
    assertNeverFetched(restarted.web);
    assertAllFetched(restarted.web);
    const urls = restarted.pages.map((p) => p.url);
    assert.equal(new Set(urls).size, urls.length, 'one pages row per URL');
  });
});
