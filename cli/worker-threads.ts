// `worker --threads N`: N workers in one process, one per thread (Kafka Streams' stream threads).
// Each thread is a whole worker: a member of every consumer group, with its own transactional
// producer, task owners' identity and state directory, so what holds for N worker processes holds
// here (tasks move between threads as between processes; a kill -9 of the process is N workers
// gone at once, their tasks taken over after the session timeout). What the process adds: one
// metrics endpoint for all threads, signals passed on to each, one exit code.
import { Worker } from 'node:worker_threads';
import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client';
import type { Logger } from '../engine/api.js';
import { PREFIX, type MetricsJson } from '../metrics/crawl-metrics.js';
import { serveMetrics, type MetricsSource } from '../metrics/metrics-server.js';
import { stderrLogger } from './progress.js';
import { stopOnSignals, warnWithoutChromium, type WorkerCommand } from './worker-command.js';
import type { ThreadData, ThreadMessage } from './worker-thread.js';

/** How long a scrape waits for a thread's metrics before it fails (and says which thread). */
const THREAD_METRICS_TIMEOUT_MS = 5_000;

export async function runThreads(argv: string[], command: WorkerCommand): Promise<number> {
  const logger = stderrLogger();
  warnWithoutChromium(command, logger);
  const running = new Map<number, Worker>();
  let stopping = false;
  const stopAll = () => {
    stopping = true;
    for (const t of running.values()) t.postMessage({ type: 'stop' } satisfies ThreadMessage);
  };
  void stopOnSignals(logger, command.stopGraceMs, stopAll);
  const metrics = command.metrics ? threadMetrics(running) : undefined;
  const served = command.metrics && metrics ? await serveMetrics(metrics.source, { ...command.metrics, logger }) : undefined;
  if (served) logger.info(`metrics at ${served.url} (the ${command.threads} threads' together)`);
  logger.info(`${command.threads} worker threads, each a member of the crawl's consumer groups with its own state under ${command.worker.dataDir}/thread-N`);

  const codes = await Promise.all(Array.from({ length: command.threads }, (_, i) => new Promise<number>((done) => {
    const index = i + 1;
    const data: ThreadData = { argv, index, count: command.threads };
    const thread = new Worker(new URL('./worker-thread.js', import.meta.url), { workerData: data });
    running.set(index, thread);
    thread.on('message', (m: ThreadMessage) => metrics?.answer(m));
    thread.on('error', (err) => logger.warn(`thread ${index}/${command.threads} failed: ${err?.stack ?? err}`));
    thread.on('exit', (code) => {
      running.delete(index);
      // One worker ending on its own (a fatal error, a broker it cannot reach) ends the process, as it
      // would end a worker process: the others stop cleanly and the exit code says it.
      if (!stopping) {
        logger.warn(`thread ${index}/${command.threads} ended (exit ${code}) before a stop was asked: stopping the other threads`);
        stopAll();
      }
      done(code);
    });
  })));
  await served?.close();
  return codes.includes(1) ? 1 : codes.find((c) => c !== 0) ?? 0;
}

/** The process's own metrics (CPU, memory) and every running thread's crawl metrics, added up at each scrape. */
function threadMetrics(running: Map<number, Worker>): { source: MetricsSource; answer(m: ThreadMessage): void } {
  const own = new Registry();
  collectDefaultMetrics({ register: own, prefix: PREFIX });
  const waiting = new Map<number, { resolve(json: MetricsJson): void; reject(err: Error): void }>();
  let next = 0;
  const ask = (index: number, thread: Worker) => new Promise<MetricsJson>((resolve, reject) => {
    const id = ++next;
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error(`thread ${index} did not answer within ${THREAD_METRICS_TIMEOUT_MS / 1000} s`));
    }, THREAD_METRICS_TIMEOUT_MS);
    waiting.set(id, {
      resolve: (json) => (clearTimeout(timer), resolve(json)),
      reject: (err) => (clearTimeout(timer), reject(err)),
    });
    thread.postMessage({ type: 'metrics', id } satisfies ThreadMessage);
  });
  return {
    source: {
      contentType: own.contentType,
      async metrics() {
        const parts = await Promise.all([...running].map(([index, thread]) => ask(index, thread)));
        return AggregatorRegistry.aggregate([await own.getMetricsAsJSON(), ...parts]).metrics();
      },
    },
    answer(m) {
      if (m.type !== 'metrics-answer') return;
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.error !== undefined) w?.reject(new Error(m.error));
      else if (m.json) w?.resolve(m.json);
    },
  };
}

/** A thread's lines say which thread said them. */
export function threadLogger(index: number, count: number): Logger {
  const base = stderrLogger();
  return { info: (m) => base.info(`thread ${index}/${count}: ${m}`), warn: (m) => base.warn(`thread ${index}/${count}: ${m}`) };
}
