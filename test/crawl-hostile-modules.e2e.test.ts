// test-plan: e2e ~60s
// End to end: users' modules that fail, loop or never return, and a ClickHouse that fails at start.
// Every case ends, within its bound, with the module's or the service's own error in the message,
// and a non-zero exit: nothing a user depends on fails silently or holds the crawl for good.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticWeb, type SyntheticWeb } from '../test-web/synthetic-web.js';
import { startFaultyClickHouse, type ClickHouseFault, type FaultyClickHouse } from '../clickhouse/testing/faulty-clickhouse.js';
import { query, runCli, type CliRun } from './support/cli.js';

const fixture = (name: string) => new URL(`../../test/fixtures/${name}`, import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'crawl-hostile-'));
let dirs = 0;
const dataDir = () => join(root, `d${dirs++}`);

/** Resolves once `file` exists: the fixture is stuck where the test wants it. */
async function marked(file: string, run: { child: { exitCode: number | null } }): Promise<void> {
  while (!existsSync(file) && run.child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
}

describe('users\' modules that misbehave, and a ClickHouse that fails at start', () => {
  let web: SyntheticWeb;
  const crawl = (dir: string, extra: string[], env?: Record<string, string>) =>
    runCli(['crawl', ...web.seeds, '--data-dir', dir, '--allow-network', '127.0.0.0/8', '--default-delay-ms', '10', '--partitions', '2', '--quiet', ...extra],
      { env, timeoutMs: 120_000 });
  const runs: Record<string, { dir: string; run: CliRun }> = {};
  let stopped: { looped: CliRun; hung: CliRun; signalled: number; ended: number; again: CliRun };
  let atStart: { fault: ClickHouseFault; ch: FaultyClickHouse; run: CliRun }[];
  const servers: FaultyClickHouse[] = [];

  /** Two crawls stopped (SIGTERM) while a parser loops and a processor never returns; the second run again. */
  async function stopWhileStuck(): Promise<typeof stopped> {
    const loopMark = join(root, 'loop.mark');
    const hangMark = join(root, 'hang.mark');
    const hangDir = dataDir();
    // The module bound is the default (30 s): only the stop's own bound can end these in time.
    const loop = crawl(dataDir(), ['--parser-module', fixture('loop-on-trap.mjs'), '--stop-grace', '4s'], { LOOP_MARK: loopMark });
    const hang = crawl(hangDir, ['--processor-module', fixture('hostile-processor.mjs'), '--stop-grace', '4s'], { HOSTILE_PROCESSOR: 'process-hangs', HOSTILE_MARK: hangMark });
    await Promise.all([marked(loopMark, loop), marked(hangMark, hang)]);
    const signalled = performance.now();
    loop.child.kill('SIGTERM');
    hang.child.kill('SIGTERM');
    const [looped, hung] = await Promise.all([loop, hang]);
    const ended = performance.now();
    // Rerun with a processor that behaves: the record left in progress is processed, the crawl ends.
    const again = await crawl(hangDir, ['--processor-module', fixture('hostile-processor.mjs')]);
    return { looped, hung, signalled, ended, again };
  }

  /** A crawl against a ClickHouse that fails from its first request; `interrupt`: SIGTERM once it has. */
  async function startAgainst(fault: ClickHouseFault, interrupt = false) {
    const ch = await startFaultyClickHouse({ fault });
    servers.push(ch);
    const run = runCli(['crawl', 'http://127.0.0.1:9/', '--data-dir', dataDir(), '--quiet', '--clickhouse-url', `${ch.url}/crawl`], { timeoutMs: 90_000 });
    if (interrupt) {
      while (ch.stats.failed === 0 && run.child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
      run.child.kill('SIGTERM');
    }
    return { fault, ch, run: await run };
  }

  before(async () => {
    web = await startSyntheticWeb({ scenario: 'bench', bench: { hosts: 1, pagesPerHost: 8 } });
    const go = async (name: string, extra: string[], env?: Record<string, string>) => {
      const dir = dataDir();
      runs[name] = { dir, run: await crawl(dir, extra, env) };
    };
    // Independent crawls, all run side by side: the file costs the longest of them, not their sum.
    await Promise.all([
      go('parser-throws', ['--parser-module', fixture('throw-on-every-page.mjs')]),
      // 3 s, not 1, here and below: the bound also covers each page's parse, and a parse worker
      // starting on a loaded machine took over 1 s (in fresh-clone runs the first page then failed
      // its parse, so its links, /p/3 among them, were never crawled; and a page never reached the
      // hanging processor).
      go('parser-loops', ['--parser-module', fixture('loop-on-trap.mjs'), '--module-timeout', '3s']),
      go('process-hangs', ['--processor-module', fixture('hostile-processor.mjs'), '--module-timeout', '3s'], { HOSTILE_PROCESSOR: 'process-hangs' }),
      go('init-hangs', ['--processor-module', fixture('hostile-processor.mjs'), '--module-timeout', '1s'], { HOSTILE_PROCESSOR: 'init-hangs' }),
      go('init-throws', ['--processor-module', fixture('hostile-processor.mjs')], { HOSTILE_PROCESSOR: 'init-throws' }),
      stopWhileStuck().then((r) => void (stopped = r)),
      Promise.all([startAgainst('error'), startAgainst('close'), startAgainst('hang'), startAgainst('hang', true)]).then((r) => void (atStart = r)),
    ]);
  });
  after(async () => {
    await web?.close();
    for (const ch of servers) await ch.close();
  });

  it('should exit 3 when a parser module fails on pages, not 0 with the error only in rows', async () => {
    const { run, dir } = runs['parser-throws'];
    assert.equal(run.code, 3, run.stderr);
    const [{ n, failed }] = await query<{ n: string; failed: string }>(dir, "SELECT count() AS n, countIf(error LIKE 'parser-module: cannot read %') AS failed FROM parsed_pages");
    assert.ok(Number(n) >= 8);
    assert.equal(failed, n, 'every page carries the module\'s own error');
    assert.match(run.stdout, new RegExp(`^parser module: ${n} pages failed in .*throw-on-every-page\\.mjs`, 'm'));
  });

  it('should end a parse that loops, record its page with the reason, replace the worker and crawl on', async () => {
    const { run, dir } = runs['parser-loops'];
    assert.equal(run.code, 3, run.stderr);
    const rows = await query<{ url: string; error: string }>(dir, 'SELECT url, error FROM parsed_pages ORDER BY url');
    const trap = rows.filter((r) => r.url.endsWith('/p/3'));
    assert.equal(trap.length, 1, `/p/3 has a parsed_pages row (rows: ${JSON.stringify(rows)})`);
    assert.match(trap[0].error, /^parser-module: timeout: the parse did not finish within 3 s \(--module-timeout\); its worker thread was replaced/);
    assert.ok(rows.filter((r) => r.error === '').length >= 7, 'the other pages were parsed by the new worker');
    assert.match(run.stdout, /^parser module: 1 pages failed/m);
    assert.match(run.stderr, /parse: http:\/\/.*\/p\/3: the parse did not finish within 3 s/);
  });

  it('should fail a record whose process never returns, with the reason, and exit 3', () => {
    const { run } = runs['process-hangs'];
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stdout, /^dead letters: 1 records could not be processed/m);
    assert.match(run.stderr, /hostile.*process did not finish within 3 s \(--module-timeout\)/);
  });

  it('should end a start whose init never returns, naming the module and the bound', () => {
    const { run } = runs['init-hangs'];
    assert.equal(run.code, 1);
    assert.match(run.stderr, /crawlstream crawl: processor module hostile \(.*hostile-processor\.mjs\): init did not finish within 1 s \(--module-timeout\)\n$/);
  });

  it('should say why the start failed when a module\'s init throws, not that some task has not started', () => {
    const { run } = runs['init-throws'];
    assert.equal(run.code, 1);
    assert.match(run.stderr, /crawlstream crawl: processor module hostile \(.*\): init failed: the licence server at 127\.0\.0\.1:9 refused us\n$/);
    assert.doesNotMatch(run.stderr, /has not started/);
  });

  it('should stop within --stop-grace while a parser loops and a processor never returns, name what was left, and resume', () => {
    const { looped, hung, signalled, ended, again } = stopped;
    assert.ok(ended - signalled < 25_000, 'ended by the stop\'s bound, not by the module bound');
    for (const [run, what] of [[looped, /not finished: parse still held \d+ records? in progress/], [hung, /not finished: hostile still held 1 record in progress/]] as const) {
      assert.equal(run.code, 5, run.stderr);
      assert.match(run.stderr, /stopping: no new work starts; work in flight gets up to 4s \(--stop-grace\)/);
      assert.match(run.stdout, /^stopped before everything finished: the stop waited 4 s \(--stop-grace\); nothing is lost: run the same command again to resume/m);
      assert.match(run.stdout, what);
      assert.doesNotMatch(run.stdout, /not written/, 'the sinks had their share of the grace to write what the others committed');
    }
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stdout, /stopped before/);
  });

  it('should end with ClickHouse\'s own error when it answers 500, closes or never answers at start, and stop at once on SIGTERM', () => {
    const [error, closed, hung, interrupted] = atStart;
    const last = (r: CliRun) => r.stderr.trimEnd().split('\n').at(-1)!;
    assert.equal(error.run.code, 1);
    assert.match(last(error.run), new RegExp(`^crawlstream crawl: ClickHouse server at ${error.ch.url} answered with an error: Memory limit \\(total\\) exceeded`));
    assert.equal(closed.run.code, 1);
    assert.match(last(closed.run), /ClickHouse server at .* is unreachable: socket hang up/);
    assert.equal(hung.run.code, 1);
    assert.match(last(hung.run), /ClickHouse server at .* did not answer within 10 s/);
    for (const r of [error, closed, hung]) assert.doesNotMatch(r.run.stderr, /has not started/);
    assert.equal(interrupted.run.signal, null, 'SIGTERM ended a start that waited on ClickHouse');
    assert.match(interrupted.run.stderr, /stopping:/);
  });
});
