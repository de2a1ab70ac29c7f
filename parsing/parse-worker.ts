// A worker thread of the parse pool: analyzes bodies sent by the pool, one message per page.
import { writeFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { analyzeBody, type BodyInput } from './analyze-body.js';
import { loadParserModule, type ParserModule } from './parser-module.js';

/** The thread's name in /proc (Linux): what lets `top -H` and the bench's CPU budget tell parsing apart. */
export const PARSE_THREAD_NAME = 'parse-worker';
try {
  writeFileSync('/proc/thread-self/comm', PARSE_THREAD_NAME);
} catch {
  // not Linux, or /proc not mounted: the thread keeps its name ("node"), nothing else changes
}

const modulePath = (workerData as { parserModule?: string } | undefined)?.parserModule;
const parserModule: ParserModule | undefined = modulePath ? await loadParserModule(modulePath) : undefined;

parentPort!.on('message', ({ id, input }: { id: number; input: BodyInput }) => {
  try {
    parentPort!.postMessage({ id, result: analyzeBody(input, parserModule) });
  } catch (err) {
    parentPort!.postMessage({ id, error: (err as Error).stack ?? String(err) });
  }
});
parentPort!.postMessage({ ready: true });
