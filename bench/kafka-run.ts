// crawlstream on Kafka with N workers over the dev services, driven only through the CLI (topics create,
// worker, seed, status --wait-idle) so that the benchmark does not depend on runtime internals. Workers
// start first and wait for a crawl; the clock runs from `seed` to `status --wait-idle`. RSS and CPU are
// summed over the workers; the services' CPU is reported separately.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crawlRun, quietWait, type CrawlRun, type Paths } from './crawls.js';
import { cpuSecondsOf, round, startMeasured, systemBusySeconds, waitQuiet } from './proc.js';
import { servicePids } from './service-pids.js';
import { sumThreadGroups } from './threads.js';
import { parseRequestCounts, sumCounts } from './kafka-cost.js';
import { startWeb } from './web.js';

export interface Services {
  brokers: string;
  registry: string;
  clickhouse: string;
  /** True when this run had to start them with scripts/dev-services.sh up. */
  startedByBench: boolean;
}

const PARTITIONS = 8;
/** How long the services' CPU is watched before seeding, to tell their idle rate. */
const SERVICE_IDLE_SAMPLE_MS = 10_000;
/** When status --wait-idle has not answered this long after the sink stopped receiving fetches, stop waiting. */
const IDLE_GRACE_MS = 60_000;

/** CRAWLSTREAM_BENCH_WORKER_ARGS: flags added to every worker (e.g. "--commit-interval 300ms"), to measure a lever in pairs. */
function extraWorkerArgs(): string[] {
  return (process.env.CRAWLSTREAM_BENCH_WORKER_ARGS ?? '').split(/\s+/).filter(Boolean);
}

/** CRAWLSTREAM_BENCH_WORKER_NODE_ARGS: Node flags for every worker (e.g. "--cpu-prof --cpu-prof-dir=DIR"; Node refuses --cpu-prof in NODE_OPTIONS). */
function workerNodeArgs(): string[] {
  return (process.env.CRAWLSTREAM_BENCH_WORKER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
}

/** CRAWLSTREAM_BENCH_WORKER_LOGS=DIR: each worker's whole stderr is appended to DIR/kafka-<n>w-w<i>.log (the run keeps only a tail). */
function workerLog(name: string, i: number): string | undefined {
  const dir = process.env.CRAWLSTREAM_BENCH_WORKER_LOGS;
  if (!dir) return undefined;
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}-w${i}.log`);
}

/** A run's name: kafka-2w for two worker processes, kafka-1w2t for one of two threads (`worker --threads 2`). */
export function kafkaRunName(workers: number, threads = 1): string {
  return `kafka-${workers}w${threads > 1 ? `${threads}t` : ''}`;
}

/** Services from the environment, else from `scripts/dev-services.sh up` (idempotent) and its `env`. */
export function ensureServices(root: string): Services {
  const e = process.env;
  if (e.KAFKA_BROKERS && e.SCHEMA_REGISTRY_URL && e.CLICKHOUSE_URL) {
    return { brokers: e.KAFKA_BROKERS, registry: e.SCHEMA_REGISTRY_URL, clickhouse: e.CLICKHOUSE_URL, startedByBench: false };
  }
  const script = join(root, 'scripts/dev-services.sh');
  process.stderr.write('bench: KAFKA_BROKERS/SCHEMA_REGISTRY_URL/CLICKHOUSE_URL not set; running scripts/dev-services.sh up\n');
  const up = spawnSync('bash', [script, 'up'], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (up.status !== 0) throw new Error('scripts/dev-services.sh up failed');
  const env = spawnSync('bash', [script, 'env'], { encoding: 'utf8' }).stdout;
  const get = (k: string) => new RegExp(`^(?:export )?${k}=(.*)$`, 'm').exec(env)?.[1]?.replace(/^["']|["']$/g, '') ?? '';
  return { brokers: get('KAFKA_BROKERS'), registry: get('SCHEMA_REGISTRY_URL'), clickhouse: get('CLICKHOUSE_URL'), startedByBench: true };
}

interface CliResult { code: number | null; stdout: string; stderr: string }

function cliChild(paths: Paths, args: string[]): { done: Promise<CliResult>; kill(): void } {
  const child = spawn(process.execPath, [paths.bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8192)));
  return {
    done: new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr }))),
    kill: () => child.kill('SIGTERM'),
  };
}

const cli = (paths: Paths, args: string[]) => cliChild(paths, args).done;
const lastLine = (s: string) => s.trim().split('\n').at(-1) ?? '';

async function fetchRows(clickhouse: string, db: string): Promise<number | undefined> {
  try {
    const res = await fetch(clickhouse, { method: 'POST', body: `SELECT count() FROM ${db}.fetches` });
    return res.ok ? Number((await res.text()).trim()) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A fallback end for a crawl whose `status --wait-idle` never answers: the time the sink's fetches table
 * reached its final count, once it has not grown for IDLE_GRACE_MS. Resolves Infinity when stopped first.
 */
async function watchSink(clickhouse: string, db: string, atLeast: number, stop: AbortSignal, onStale: () => void): Promise<number> {
  let last = -1;
  let since = performance.now();
  while (!stop.aborted) {
    const n = await fetchRows(clickhouse, db);
    if (n !== undefined && n !== last) {
      last = n;
      since = performance.now();
    } else if (last >= atLeast && performance.now() - since > IDLE_GRACE_MS) {
      onStale();
      return since;
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
  return Infinity;
}

export async function runKafka(paths: Paths, services: Services, workers: number, hosts: number, pages: number, seeds?: number, threads = 1): Promise<CrawlRun> {
  const name = kafkaRunName(workers, threads);
  const id = `bench${Date.now()}w${workers}t${threads}`;
  // Each thread of a worker says it is waiting, and running, as a worker process does.
  const members = workers * threads;
  const prefix = `${id}.`;
  const kafkaFlags = ['--brokers', services.brokers, '--topic-prefix', prefix];
  const scratch = mkdtempSync(join(tmpdir(), 'crawlstream-bench-kafka-'));
  const web = await startWeb(paths.dist, hosts, pages, scratch, { seeds });
  const procs: ReturnType<typeof startMeasured>[] = [];
  try {
    const topics = await cli(paths, ['topics', 'create', ...kafkaFlags, '--partitions', String(PARTITIONS)]);
    if (topics.code !== 0) throw new Error(`topics create failed: ${lastLine(topics.stderr)}`);
    let waiting = 0;
    let running = 0;
    let runningAt = Infinity;
    const waitingForCrawl = new Promise<void>((resolve) => {
      for (let i = 0; i < workers; i++) {
        const log = workerLog(name, i);
        procs.push(startMeasured(process.execPath, [...workerNodeArgs(), paths.bin, 'worker', ...kafkaFlags, '--schema-registry', services.registry,
          '--clickhouse-url', `${services.clickhouse}/${id}`, '--allow-network', '127.0.0.0/8', '--data-dir', join(scratch, `w${i}`),
          ...(threads > 1 ? ['--threads', String(threads)] : []), ...extraWorkerArgs()], {
          cwd: scratch,
          threads: true,
          onStderr: (chunk) => {
            if (log) appendFileSync(log, chunk);
            waiting += chunk.match(/waiting for a crawl/g)?.length ?? 0;
            if (waiting >= members) resolve();
            running += chunk.match(/ running .* partitions/g)?.length ?? 0;
            if (running >= members && runningAt === Infinity) runningAt = performance.now();
          },
        }));
      }
      setTimeout(resolve, 60_000).unref(); // an unrecognised log line must not stall the benchmark
    });
    await waitingForCrawl;
    const busyCoresBefore = await waitQuiet(quietWait.ms, 0.6);
    const svc = servicePids(paths.root, services);
    // What the services burn with no crawl of ours (their own housekeeping, other users' traffic), for comparison.
    const idle0 = Object.fromEntries(Object.entries(svc).map(([k, pid]) => [k, cpuSecondsOf(pid) ?? 0]));
    await new Promise((r) => setTimeout(r, SERVICE_IDLE_SAMPLE_MS));
    const servicesIdleCpuPerSecond = Object.fromEntries(Object.entries(svc).map(([k, pid]) =>
      [k, round(((cpuSecondsOf(pid) ?? 0) - idle0[k]) / (SERVICE_IDLE_SAMPLE_MS / 1000), 3)]));
    const svcCpu0 = Object.fromEntries(Object.entries(svc).map(([k, pid]) => [k, cpuSecondsOf(pid) ?? 0]));
    const workersCpu = () => procs.reduce((n, p) => n + (cpuSecondsOf(p.pid() ?? -1) ?? 0), 0);
    const workersCpu0 = workersCpu();
    const busy0 = systemBusySeconds();
    const t0 = performance.now();
    const seed = await cli(paths, ['seed', ...kafkaFlags, '--schema-registry', services.registry, '--default-delay-ms', '0', ...web.seeds]);
    if (seed.code !== 0) throw new Error(`seed failed: ${lastLine(seed.stderr)}`);
    const status = cliChild(paths, ['status', ...kafkaFlags, '--wait-idle', '--timeout', '1800']);
    const stopWatch = new AbortController();
    const sinkSettled = watchSink(services.clickhouse, id, hosts * pages, stopWatch.signal, () => status.kill());
    // A worker that dies or a broker restarted by someone else ends the attempt at once, not after the timeout.
    let fault = '';
    const faultWatch = setInterval(() => {
      const restarted = svc.kafka !== undefined && !existsSync(`/proc/${svc.kafka}`);
      if (restarted) fault = 'the Kafka broker was restarted during the run (by another user of the dev services)';
      if (fault) status.kill();
    }, 2000);
    procs.forEach((p, i) => void p.done.then((m) => {
      if (!stopWatch.signal.aborted) fault ||= `worker ${i} exited (${m.exitCode}) during the crawl: ${lastLine(m.stderrTail)}`;
    }));
    const idle = await status.done;
    const idleAt = performance.now();
    clearInterval(faultWatch);
    stopWatch.abort();
    const settledAt = await sinkSettled;
    if (fault) throw new Error(fault);
    const reportedIdle = idle.code === 0;
    if (!reportedIdle && settledAt === Infinity) throw new Error(`status --wait-idle failed: ${lastLine(idle.stderr)}`);
    const end = reportedIdle ? idleAt : settledAt;
    const busy = systemBusySeconds() - busy0;
    const workersWindowCpu = workersCpu() - workersCpu0;
    const servicesCpu = Object.fromEntries(Object.entries(svc).map(([k, pid]) => [k, round((cpuSecondsOf(pid) ?? 0) - svcCpu0[k], 1)]));
    for (const p of procs) p.signal('SIGTERM');
    const stuck = setTimeout(() => procs.forEach((p) => p.signal('SIGKILL')), 60_000);
    stuck.unref();
    const measured = await Promise.all(procs.map((p) => p.done));
    clearTimeout(stuck);
    const stats = await web.stop();
    const sum = {
      wallSeconds: round((end - t0) / 1000, 2),
      peakRssMb: round(measured.reduce((n, m) => n + m.peakRssMb, 0), 1),
      cpuSeconds: round(measured.reduce((n, m) => n + m.cpuSeconds, 0), 2),
      exitCode: 0,
    };
    const run = crawlRun(name, hosts, pages, sum, stats, idle.stdout.split('\n').filter((l) => /^idle:|^frontier:/.test(l)).join(' | '));
    run.busyCoresBefore = busyCoresBefore;
    run.seeds = web.seeds.length;
    run.web_kind = 'bench';
    run.servicesCpuSeconds = servicesCpu;
    run.servicesIdleCpuPerSecond = servicesIdleCpuPerSecond;
    run.workersCrawlCpuSeconds = round(workersWindowCpu, 2);
    // Every worker's threads, added up: what makes two workers dearer than one shows by thread group.
    run.threads = sumThreadGroups(measured.flatMap((m) => (m.threads ? [m.threads] : [])));
    run.kafkaRequests = sumCounts(measured.map((m) => parseRequestCounts(m.stderrTail)));
    const servicesTotal = Object.values(servicesCpu).reduce((a, b) => a + b, 0);
    run.backgroundCpuSeconds = round(Math.max(0, busy - workersWindowCpu - stats.serverCpuSeconds - servicesTotal), 1);
    run.notes = [
      `wall = seed → status --wait-idle reports idle (the workers were already up, waiting for a crawl; ` +
        `after seed they needed ${runningAt === Infinity ? '?' : round((runningAt - t0) / 1000, 1)} s to join and start their tasks; ` +
        `wait-idle wants 3 idle polls 1 s apart)`,
      `worker CPU/RSS cover their whole life (start-up and shutdown too); services' CPU during the crawl (s): ${JSON.stringify(servicesCpu)}`,
      `per-worker peak RSS MB: ${measured.map((m) => m.peakRssMb).join(', ')}`,
    ];
    if (workerNodeArgs().length) run.notes.push(`workers ran under node ${workerNodeArgs().join(' ')} (CRAWLSTREAM_BENCH_WORKER_NODE_ARGS)`);
    if (extraWorkerArgs().length) run.notes.push(`workers ran with ${extraWorkerArgs().join(' ')} (CRAWLSTREAM_BENCH_WORKER_ARGS)`);
    if (!reportedIdle) {
      run.notes.push(`status --wait-idle did not report idle (${lastLine(idle.stderr) || 'no output'}); wall = seed → the sink's last new fetch row`);
    }
    if (stats.distinctPages < hosts * pages) run.notes.push(`only ${stats.distinctPages} of ${hosts * pages} pages fetched`);
    if (stats.pageRequests > stats.distinctPages) run.notes.push(`${stats.pageRequests - stats.distinctPages} pages fetched more than once`);
    return run;
  } finally {
    await web.abort();
    for (const p of procs) p.signal('SIGKILL');
    await cleanupKafkaRun(services, prefix, id);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Drops this run's database and (when the broker allows) its topics, so runs do not pile up on the dev services. */
export async function cleanupKafkaRun(services: Services, prefix: string, db: string): Promise<void> {
  try {
    await fetch(services.clickhouse, { method: 'POST', body: `DROP DATABASE IF EXISTS ${db}` });
  } catch (err) {
    process.stderr.write(`bench kafka: could not drop database ${db}: ${(err as Error).message}\n`);
  }
  try {
    // kafkajs is a dependency of the project; its admin API is stable, unlike the runtime's internals.
    const { Kafka, logLevel } = await import('kafkajs');
    const admin = new Kafka({ brokers: services.brokers.split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const mine = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (mine.length) await admin.deleteTopics({ topics: mine });
    await admin.disconnect();
  } catch (err) {
    process.stderr.write(`bench kafka: could not delete topics ${prefix}*: ${(err as Error).message}\n`);
  }
}
