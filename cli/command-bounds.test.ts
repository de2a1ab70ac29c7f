// Every numeric option of every command, one past each end of its range, through the command itself:
// the command must refuse it with a UsageError before it connects, reads or writes anything.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIMITS, UsageError, type Bounds } from './options.js';

const scratch = mkdtempSync(join(tmpdir(), 'crawlstream-bounds-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

type Run = (argv: string[]) => Promise<number>;
const commands: Record<string, () => Promise<{ run: Run }>> = {
  crawl: () => import('./crawl-command.js'),
  seed: () => import('./seed-command.js'),
  worker: () => import('./worker-command.js'),
  topics: () => import('./topics-command.js'),
  scale: () => import('./scale-command.js'),
  replay: () => import('./replay-command.js'),
  status: () => import('./status-command.js'),
};

interface Case { command: string; flag: string; bounds: Bounds; argv: (value: string, dataDir: string) => string[] }

const crawlLevel = ['max-depth', 'max-pages', 'max-pages-per-host', 'default-delay-ms', 'fetch-timeout-ms'] as const;
const crawlLevelBounds: Record<(typeof crawlLevel)[number], Bounds> = {
  'max-depth': LIMITS.maxDepth, 'max-pages': LIMITS.maxPages, 'max-pages-per-host': LIMITS.maxPagesPerHost,
  'default-delay-ms': LIMITS.defaultDelayMs, 'fetch-timeout-ms': LIMITS.fetchTimeoutMs,
};

// No --brokers anywhere: a command that checked its options after connecting would fail on the
// missing --brokers instead, and the test would say so.
const cases: Case[] = [
  ...crawlLevel.map((flag): Case => ({ command: 'crawl', flag, bounds: crawlLevelBounds[flag],
    argv: (v, dir) => ['http://127.0.0.1:9/', '--data-dir', dir, `--${flag}=${v}`, '--quiet'] })),
  { command: 'crawl', flag: 'partitions', bounds: LIMITS.embeddedPartitions,
    argv: (v, dir) => ['http://127.0.0.1:9/', '--data-dir', dir, `--partitions=${v}`, '--quiet'] },
  { command: 'crawl', flag: 'stop-grace', bounds: LIMITS.stopGraceMs, argv: (v, dir) => ['http://127.0.0.1:9/', '--data-dir', dir, `--stop-grace=${v}`, '--quiet'] },
  { command: 'crawl', flag: 'module-timeout', bounds: LIMITS.moduleTimeoutMs, argv: (v, dir) => ['http://127.0.0.1:9/', '--data-dir', dir, `--module-timeout=${v}`, '--quiet'] },
  ...crawlLevel.filter((f) => f !== 'max-pages').map((flag): Case => ({ command: 'seed', flag, bounds: crawlLevelBounds[flag],
    argv: (v) => ['--schema-registry', 'http://127.0.0.1:9', `--${flag}=${v}`, 'http://127.0.0.1:9/'] })),
  { command: 'worker', flag: 'session-timeout-ms', bounds: LIMITS.sessionTimeoutMs, argv: (v, dir) => ['--data-dir', dir, `--session-timeout-ms=${v}`] },
  { command: 'worker', flag: 'stop-grace', bounds: LIMITS.stopGraceMs, argv: (v, dir) => ['--data-dir', dir, `--stop-grace=${v}`] },
  { command: 'worker', flag: 'commit-interval', bounds: LIMITS.commitIntervalMs, argv: (v, dir) => ['--data-dir', dir, `--commit-interval=${v}`] },
  { command: 'worker', flag: 'threads', bounds: LIMITS.workerThreads, argv: (v, dir) => ['--data-dir', dir, `--threads=${v}`] },
  { command: 'worker', flag: 'handover-grace', bounds: LIMITS.handoverGraceMs, argv: (v, dir) => ['--data-dir', dir, `--handover-grace=${v}`] },
  { command: 'topics', flag: 'partitions', bounds: LIMITS.kafkaPartitions, argv: (v) => ['create', `--partitions=${v}`] },
  { command: 'scale', flag: 'partitions', bounds: LIMITS.embeddedPartitions, argv: (v, dir) => ['--data-dir', dir, `--partitions=${v}`] },
  { command: 'scale', flag: 'timeout', bounds: LIMITS.waitTimeoutMs, argv: (v, dir) => ['--data-dir', dir, '--partitions', '2', `--timeout=${v}`] },
  { command: 'replay', flag: 'from-offset', bounds: LIMITS.fromOffset, argv: (v, dir) => ['--data-dir', dir, `--from-offset=${v}`] },
  { command: 'replay', flag: 'since', bounds: LIMITS.sinceMs, argv: (v, dir) => ['--data-dir', dir, `--since=${v}`] },
  { command: 'status', flag: 'timeout', bounds: LIMITS.waitTimeoutMs, argv: (v) => ['--wait-idle', `--timeout=${v}`] },
  ...(['crawl', 'worker', 'replay'] as const).flatMap((command): Case[] => {
    const base = (dir: string) => (command === 'crawl' ? ['http://127.0.0.1:9/', '--data-dir', dir, '--quiet'] : ['--data-dir', dir]);
    return [
      { command, flag: 'metrics-port', bounds: LIMITS.metricsPort, argv: (v, dir) => [...base(dir), `--metrics-port=${v}`] },
      ...(command === 'worker' ? [] : [
        { command, flag: 'metrics-linger', bounds: LIMITS.metricsLingerMs, argv: (v: string, dir: string) => [...base(dir), '--metrics-port', '0', `--metrics-linger=${v}`] },
      ]),
    ];
  }),
];

/** Values just outside the range, spelled the way the flag takes them. */
function outside(c: Case): string[] {
  const duration = ['since', 'timeout', 'metrics-linger', 'stop-grace', 'module-timeout', 'commit-interval', 'handover-grace'].includes(c.flag);
  const spell = (n: number) => (duration ? `${n}ms` : String(n));
  const out = [spell(c.bounds.max + 1)];
  if (c.bounds.min > 0) out.push(spell(c.bounds.min - 1));
  else if (!duration) out.push('-1');
  return out;
}

describe('numeric options of every command', () => {
  let n = 0;
  for (const c of cases) {
    it(`should refuse ${c.command} --${c.flag} outside ${c.bounds.min}..${c.bounds.max} before touching anything`, async () => {
      const { run } = await commands[c.command]();
      for (const value of outside(c)) {
        const dataDir = join(scratch, `d${n++}`);
        await assert.rejects(run(c.argv(value, dataDir)), (e: Error) => {
          assert.ok(e instanceof UsageError, `${value}: ${e.stack}`);
          assert.match(e.message, new RegExp(`^--${c.flag} must be`), value);
          return true;
        });
        assert.equal(existsSync(dataDir), false, `${c.command} --${c.flag} ${value} created ${dataDir}`);
      }
    });
  }

  it('should refuse the values of issue 14.11 with the reason', async () => {
    const crawl = (await commands.crawl()).run;
    const dir = join(scratch, 'issue');
    await assert.rejects(crawl(['http://127.0.0.1:9/', '--data-dir', dir, '--partitions', '100000']),
      /--partitions must be an integer from 1 to 64, got 100000 \(an embedded crawl keeps 9 files open per partition/);
    await assert.rejects(crawl(['http://127.0.0.1:9/', '--data-dir', dir, '--fetch-timeout-ms', '99999999999']),
      /--fetch-timeout-ms must be an integer from 100 to 3600000, got 99999999999/);
    await assert.rejects((await commands.topics()).run(['create', '--partitions', '4097']),
      /--partitions must be an integer from 1 to 4096, got 4097 \(hosts hash to 4096 buckets/);
    assert.equal(existsSync(dir), false);
  });

  it('should refuse crawl --threads 2, saying where more cores are used instead', async () => {
    const dir = join(scratch, 'threads');
    await assert.rejects((await commands.crawl()).run(['http://127.0.0.1:9/', '--data-dir', dir, '--threads', '2']),
      (e: Error) => e instanceof UsageError && /runs its tasks on one thread.*worker --threads N/.test(e.message));
    assert.equal(existsSync(dir), false);
  });
});
