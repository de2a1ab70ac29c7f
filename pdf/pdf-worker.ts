// A worker thread of the PDF pool: one extraction at a time, reported as a stream of events.
import { parentPort } from 'node:worker_threads';
import { classifyError, extractPdf, type ExtractLimits } from './pdf-extract.js';

interface Job {
  id: number;
  bytes: Uint8Array;
  url: string;
  limits: ExtractLimits;
}

parentPort!.on('message', async ({ id, bytes, url, limits }: Job) => {
  let error = '';
  try {
    await extractPdf(bytes, url, limits, (event) => parentPort!.postMessage({ id, event }));
  } catch (err) {
    error = classifyError(err);
  }
  parentPort!.postMessage({ id, done: true, error });
});
parentPort!.postMessage({ ready: true });
