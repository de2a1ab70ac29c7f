// Fetch outcomes and a robots.txt store for the politeness rules' tests.
import type { KeyValueStore } from '../../engine/api.js';
import { PLAIN_RESULT, type FetchResult } from '../../schemas/records.js';
import type { RobotsText } from '../robots-gate.js';

/** A fetch of `url` that ended at `endedAt` (10 ms long) with `over` applied. */
export function outcome(url: string, endedAt: number, over: Partial<FetchResult> = {}): FetchResult {
  const host = new URL(url).host;
  return {
    ...PLAIN_RESULT,
    fetch_id: `${host}#1`, url, host, kind: 'page', depth: 1, attempt: 1, via: 'link', source_url: '', redirect_hops: 0,
    status: 200, error: '', final_url: url, redirect_chain: [], headers: {}, started_at: endedAt - 10, elapsed_ms: 10, ttfb_ms: 5,
    bytes: 0, wire_bytes: 0, content_type: 'text/plain', charset: '', truncated: false, retry_after_ms: 0, conditional: false,
    remote_address: '', body_encoding: 'identity', body: Buffer.alloc(0), ...over,
  };
}

/** A robots.txt answer with `text` as its body. */
export function robotsAnswer(url: string, endedAt: number, text: string, over: Partial<FetchResult> = {}): FetchResult {
  return outcome(url, endedAt, { kind: 'robots', body: Buffer.from(text), bytes: text.length, ...over });
}

/** The robots-txt store as a map (reads and writes only). */
export function memoryTexts(): KeyValueStore<string, RobotsText> {
  const m = new Map<string, RobotsText>();
  return {
    name: 'robots-txt',
    get: (k) => m.get(k),
    put: (k, v) => void m.set(k, v),
    delete: (k) => void m.delete(k),
    scan: () => { throw new Error('not used'); },
    entries: () => { throw new Error('not used'); },
  };
}
