// A worker thread of the parse pool: analyzes bodies sent by the pool, one message per page.
import { parentPort, workerData } from 'node:worker_threads';
import { analyzeBody, type BodyInput } from './analyze-body.js';
import { loadParserModule, type ParserModule } from './parser-module.js';

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
