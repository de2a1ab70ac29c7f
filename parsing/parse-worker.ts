// A worker thread of the parse pool: analyzes bodies sent by the pool, one message per page.
import { writeFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { analyzeBody, type BodyInput } from './analyze-body.js';
import { loadParserModule, type ParserModule } from './parser-module.js';
import { createFocus } from '../focus/create-focus.js';
import type { FocusSpec } from '../focus/focus-spec.js';

/** The thread's name in /proc (Linux): what lets `top -H` and the bench's CPU budget tell parsing apart. */
export const PARSE_THREAD_NAME = 'parse-worker';
try {
  writeFileSync('/proc/thread-self/comm', PARSE_THREAD_NAME);
} catch {
  // not Linux, or /proc not mounted: the thread keeps its name ("node"), nothing else changes
}

const data = workerData as { parserModule?: string; focus?: FocusSpec } | undefined;
const parserModule: ParserModule | undefined = data?.parserModule ? await loadParserModule(data.parserModule) : undefined;
// A focused crawl: the model is built here once from the examples (data), and learns from the pages this thread parses.
const focus = data?.focus ? await createFocus(data.focus) : undefined;

parentPort!.on('message', ({ id, input }: { id: number; input: BodyInput }) => {
  try {
    const result = analyzeBody(input, parserModule);
    if (focus && result.kind === 'html') result.focus = focus.score({ url: input.url, title: result.title, text: result.text, links: result.links });
    parentPort!.postMessage({ id, result });
  } catch (err) {
    parentPort!.postMessage({ id, error: (err as Error).stack ?? String(err) });
  }
});
parentPort!.postMessage({ ready: true });
