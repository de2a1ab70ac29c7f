// One worker of `worker --threads N`, in its own thread (see worker-threads.ts). It parses the same
// command line, keeps its state in a directory of its own and stops when the main thread passes on
// a signal (signals reach only the main thread).
import { join } from 'node:path';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { CrawlTelemetry } from '../crawl/telemetry.js';
import type { MetricsJson } from '../metrics/crawl-metrics.js';
import { runWorker, workerCommand } from './worker-command.js';
import { threadLogger } from './worker-threads.js';

export interface ThreadData {
  argv: string[];
  /** 1-based. */
  index: number;
  count: number;
}

export type ThreadMessage =
  | { type: 'stop' }
  | { type: 'metrics'; id: number }
  | { type: 'metrics-answer'; id: number; json?: MetricsJson; error?: string };

if (!isMainThread && parentPort) {
  const port = parentPort;
  const { argv, index, count } = workerData as ThreadData;
  const logger = threadLogger(index, count);
  process.on('unhandledRejection', (err) => logger.warn(`unhandled: ${(err as Error)?.stack ?? err}`));
  let stop!: () => void;
  const stopAsked = new Promise<void>((resolve) => (stop = resolve));
  let telemetry: CrawlTelemetry | undefined;
  port.on('message', (m: ThreadMessage) => {
    if (m.type === 'stop') stop();
    if (m.type !== 'metrics') return;
    const answer = (a: Omit<Extract<ThreadMessage, { type: 'metrics-answer' }>, 'type' | 'id'>) => port.postMessage({ type: 'metrics-answer', id: m.id, ...a } satisfies ThreadMessage);
    if (!telemetry) answer({ json: [] });
    else telemetry.metrics.metricsJson().then((json) => answer({ json }), (err: Error) => answer({ error: err.message }));
  });
  try {
    const command = await workerCommand(argv);
    command.worker.dataDir = join(command.worker.dataDir, `thread-${index}`);
    // The threads share the process's cores and file descriptors: each opens its part of the parse
    // workers and sockets one worker would (N threads of 15 parse workers each would be N × 15 heaps).
    command.worker.share = 1 / count;
    if (command.metrics) telemetry = new CrawlTelemetry(logger, { defaultMetrics: false });
    await runWorker(command, { logger, telemetry, stopAsked, exit: (code) => process.exit(code) });
  } catch (err) {
    logger.warn((err as Error).message);
    process.exit(1);
  }
}
