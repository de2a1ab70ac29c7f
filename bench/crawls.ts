// One measured crawl of a fresh bench web: crawlstream embedded or Crawlee, each in its own process,
// both from the same seeds (every origin's root), counted at the server.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebKind } from './bench-pages.js';
import { countLogs, type LogCounts } from './log-counts.js';
import { round, runMeasured, systemBusySeconds, waitQuiet, type Measured, type RssSample } from './proc.js';
import type { ThreadGroups } from './threads.js';
import { startWeb, type BenchWeb, type WebStats } from './web.js';

export interface Paths {
  root: string;
  dist: string;
  bin: string;
  bench: string;
}

export interface CrawlRun {
  name: string;
  hosts: number;
  pagesPerHost: number;
  /** Root URLs given as seeds (the other hosts are reached through cross-host links). */
  seeds?: number;
  /** Which bench web: 'bench' or 'template-heavy'. */
  web_kind?: WebKind;
  /** Served over HTTPS (a CA made for the run). */
  https?: boolean;
  /** Page requests the server answered (robots.txt excluded): the arbiter. */
  pages: number;
  wallSeconds: number;
  /** pages / wall time of the crawler process (start-up and shutdown included). */
  pagesPerSecond: number;
  /** pages / the server's active window (first request start → last request end). */
  activePagesPerSecond: number;
  peakRssMb: number;
  cpuSeconds: number;
  cpuSecondsPer1000Pages: number;
  web: WebStats;
  /** What the crawler itself reported (summary line or JSON). */
  crawlerReport: string;
  exitCode: number | null;
  rssSeries?: RssSample[];
  replay?: ReplayRun;
  /** CPU seconds other processes on the machine used during the run (system busy − crawler − web server). */
  backgroundCpuSeconds?: number;
  /** Cores busy just before the run started (the harness waits for a quiet machine, up to a limit). */
  busyCoresBefore?: number;
  /** The crawler process's CPU by thread (sampled; see threads.ts). */
  threads?: ThreadGroups;
  /** Embedded crawls: records per topic written through the topology, from the data directory. */
  logCounts?: LogCounts;
  /** Kafka crawls: CPU seconds of each service process during the crawl. */
  servicesCpuSeconds?: Record<string, number>;
  /** Kafka crawls: CPU seconds per second each service used in the 10 s before the crawl (idle, others' traffic). */
  servicesIdleCpuPerSecond?: Record<string, number>;
  /**
   * Kafka crawls: the workers' CPU seconds from seed to idle, the window the services' CPU covers
   * (`cpuSeconds` is their whole life: start-up, waiting for the crawl and shutdown too).
   */
  workersCrawlCpuSeconds?: number;
  /** Kafka crawls: requests the workers sent to the brokers, by API, summed over workers. */
  kafkaRequests?: Record<string, number>;
  notes?: string[];
}

export function crawlRun(name: string, hosts: number, pagesPerHost: number, m: Pick<Measured, 'wallSeconds' | 'peakRssMb' | 'cpuSeconds' | 'exitCode'>, web: WebStats, report: string): CrawlRun {
  const pages = web.pageRequests;
  return {
    name,
    hosts,
    pagesPerHost,
    pages,
    wallSeconds: m.wallSeconds,
    pagesPerSecond: round(pages / m.wallSeconds, 1),
    activePagesPerSecond: round(pages / Math.max(web.activeSeconds, 0.001), 1),
    peakRssMb: m.peakRssMb,
    cpuSeconds: m.cpuSeconds,
    cpuSecondsPer1000Pages: round((m.cpuSeconds * 1000) / Math.max(pages, 1), 2),
    web,
    crawlerReport: report.trim(),
    exitCode: m.exitCode,
  };
}

function checkComplete(run: CrawlRun, expected: number): void {
  const notes = run.notes ?? [];
  if (run.exitCode !== 0) notes.push(`crawler exited with ${run.exitCode}`);
  if (run.web.distinctPages < expected) notes.push(`only ${run.web.distinctPages} of ${expected} pages fetched`);
  if (run.pages > run.web.distinctPages) notes.push(`${run.pages - run.web.distinctPages} pages fetched more than once`);
  if (notes.length) run.notes = notes;
}

/** How long a measured run waits for other processes' CPU bursts to pass before it starts (--quiet-wait). */
export const quietWait = { ms: 60_000 };

export interface CrawlOptions {
  hosts: number;
  pages: number;
  /** Root URLs given as seeds (default every origin's root). */
  seeds?: number;
  /** Which bench web (default 'bench'). */
  kind?: WebKind;
  /** Embedded crawls: count the records of every topic afterwards. */
  countRecords?: boolean;
  /** Extra node flags for the crawler process (e.g. --cpu-prof). */
  nodeFlags?: string[];
  /** Extra arguments to `crawl` (embedded crawls). */
  crawlArgs?: string[];
  keepSeries?: boolean;
  onSample?: (s: RssSample) => void;
  /** After the crawl, replay its `fetched` topic through parse and sink and measure that too. */
  replay?: boolean;
  /** Serve the web over HTTPS with a CA made for the run, handed to crawlstream with --ca-file and to Crawlee through NODE_EXTRA_CA_CERTS. */
  https?: boolean;
}

export interface ReplayRun {
  /** Records of `fetched` re-parsed and re-sunk. */
  records: number;
  wallSeconds: number;
  /** records / wall time of the replay process (start-up and shutdown included). */
  recordsPerSecond: number;
  peakRssMb: number;
  cpuSecondsPer1000Records: number;
  /** What the replay command printed. */
  report: string;
}

export async function runEmbedded(paths: Paths, name: string, o: CrawlOptions): Promise<CrawlRun> {
  return measuredCrawl(paths, name, 'embedded', o, async (web, scratch) => {
    const args = [...(o.nodeFlags ?? []), paths.bin, 'crawl', ...web.seeds, '--data-dir', join(scratch, 'data'),
      '--allow-network', '127.0.0.0/8', '--default-delay-ms', '0', '--quiet', ...(web.caFile ? ['--ca-file', web.caFile] : []), ...(o.crawlArgs ?? [])];
    return { args, env: process.env };
  }, async (run, m, _stats, scratch) => {
    if (o.countRecords && m.exitCode === 0) run.logCounts = await countLogs(join(scratch, 'data'));
    if (o.replay && m.exitCode === 0) {
      try {
        run.replay = await replayFetched(paths, scratch);
      } catch (err) {
        // The crawl itself was measured; a broken replay must be visible without losing it.
        (run.notes ??= []).push(`REPLAY FAILED: ${(err as Error).message.trim()}`);
      }
    }
  });
}

/**
 * One crawler process against a fresh bench web: waits for a quiet machine, measures the process and
 * the CPU everything else used meanwhile, and checks at the server that every page was fetched once.
 */
async function measuredCrawl(
  paths: Paths, name: string, kind: string, o: CrawlOptions,
  command: (web: BenchWeb, scratch: string) => Promise<{ args: string[]; env: NodeJS.ProcessEnv }>,
  after: (run: CrawlRun, m: Measured, stats: WebStats, scratch: string) => Promise<void>,
): Promise<CrawlRun> {
  const scratch = mkdtempSync(join(tmpdir(), `crawlstream-bench-${kind}-`));
  const web = await startWeb(paths.dist, o.hosts, o.pages, scratch, { kind: o.kind, seeds: o.seeds, tlsDir: o.https ? join(scratch, 'tls') : undefined });
  try {
    const { args, env } = await command(web, scratch);
    const busyCoresBefore = await waitQuiet(quietWait.ms);
    const busy0 = systemBusySeconds();
    const m = await runMeasured(process.execPath, args, { cwd: scratch, env, timeoutMs: 60 * 60_000, onSample: o.onSample, threads: true });
    const busy = systemBusySeconds() - busy0;
    const stats = await web.stop();
    if (m.exitCode !== 0) process.stderr.write(m.stderrTail);
    const run = crawlRun(name, o.hosts, o.pages, m, stats, m.stdout);
    run.seeds = web.seeds.length;
    run.web_kind = o.kind ?? 'bench';
    if (o.https) run.https = true;
    run.busyCoresBefore = busyCoresBefore;
    run.threads = m.threads;
    run.backgroundCpuSeconds = round(Math.max(0, busy - m.cpuSeconds - stats.serverCpuSeconds), 1);
    if (o.keepSeries) run.rssSeries = m.rssSeries;
    if (m.exitCode !== 0) throw new Error(`${name}: the crawler exited with ${m.exitCode}: ${m.stderrTail.trim().split('\n').at(-1) ?? ''}`);
    checkComplete(run, o.hosts * o.pages);
    await after(run, m, stats, scratch);
    return run;
  } finally {
    await web.abort();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Re-parses and re-sinks every retained `fetched` record of the crawl in `scratch`/data: nothing is fetched. */
async function replayFetched(paths: Paths, scratch: string): Promise<ReplayRun> {
  await waitQuiet(quietWait.ms);
  const m = await runMeasured(process.execPath, [paths.bin, 'replay', '--from', 'fetched', '--processors', 'parse,clickhouse-sink', '--data-dir', join(scratch, 'data')],
    { cwd: scratch, timeoutMs: 30 * 60_000 });
  if (m.exitCode !== 0) throw new Error(`replay failed: ${m.stderrTail}`);
  const records = Number(/: (\d+) records of fetched/.exec(m.stdout)?.[1] ?? NaN);
  if (!Number.isFinite(records)) throw new Error(`replay printed no record count: ${m.stdout}`);
  return {
    records,
    wallSeconds: m.wallSeconds,
    recordsPerSecond: round(records / m.wallSeconds, 1),
    peakRssMb: m.peakRssMb,
    cpuSecondsPer1000Records: round((m.cpuSeconds * 1000) / Math.max(records, 1), 2),
    report: m.stdout.trim(),
  };
}

/** Crawlee's concurrency: at most `max` requests in flight, its autoscaler starting from `min`. */
export interface CrawleeConcurrency {
  min: number;
  max: number;
}

export async function runCrawlee(paths: Paths, name: string, concurrency: CrawleeConcurrency, o: CrawlOptions): Promise<CrawlRun> {
  return measuredCrawl(paths, name, 'crawlee', o, async (web, scratch) => {
    const seedsFile = join(scratch, 'seeds.txt');
    writeFileSync(seedsFile, web.seeds.join('\n') + '\n');
    const env = { ...process.env, CRAWLEE_STORAGE_DIR: join(scratch, 'storage'), CRAWLEE_PERSIST_STORAGE: 'false', CRAWLEE_LOG_LEVEL: 'OFF',
      // Crawlee has no CA option of its own: the bench CA joins the roots Node trusts.
      ...(web.caFile ? { NODE_EXTRA_CA_CERTS: web.caFile } : {}) };
    return {
      args: [...(o.nodeFlags ?? []), join(paths.bench, 'crawlee-crawl.mjs'), '--seeds-file', seedsFile,
        '--min-concurrency', String(concurrency.min), '--max-concurrency', String(concurrency.max), ...(o.https ? ['--verify-tls'] : [])],
      env,
    };
  }, async (run, _m, stats) => {
    if (stats.robotsRequests === 0) (run.notes ??= []).push('Crawlee fetched no robots.txt: respectRobotsTxtFile had no effect');
  });
}
