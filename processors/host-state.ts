// Per-host scheduling state held by the schedule processor's `hosts` store (DESIGN §2): politeness
// timer, in-flight fetch, backoff, budget, queue counters and robots.txt status.
import { avroValues, stringKey } from '../engine/stores/codecs.js';
import { defineStore } from '../engine/stores/key-value-store.js';

export type RobotsStatus = 'unknown' | 'rules' | 'allow-all' | 'unreachable';

export interface HostState {
  host: string;
  /** Scheme of the host's URLs; robots.txt is fetched on the same origin. */
  scheme: string;
  releaseSeq: number;
  enqueueSeq: number;
  queued: number;
  /** Pages accepted into the queue (the per-host budget counts these). */
  admitted: number;
  released: number;
  /** Earliest start of the next request: previous request's end plus the delay (or Retry-After, backoff). */
  nextFetchAt: number;
  /** fetch_id of the request in flight, '' when none: at most one per host. */
  inFlight: string;
  inFlightSince: number;
  delayMs: number;
  failures: number;
  robots: RobotsStatus;
  robotsUrl: string;
  robotsHops: number;
  robotsAttempts: number;
  robotsFetchedAt: number;
  robotsExpiresAt: number;
  robotsRetryAt: number;
  /** Set when robots.txt stayed unreachable after every attempt: URLs of the host are dropped until then. */
  robotsGaveUpUntil: number;
  crawlDelayMs: number;
}

const hostStateSchema = {
  type: 'record', name: 'HostState', namespace: 'crawlstream.store',
  fields: [
    { name: 'host', type: 'string' },
    { name: 'scheme', type: 'string' },
    { name: 'releaseSeq', type: 'long' },
    { name: 'enqueueSeq', type: 'long' },
    { name: 'queued', type: 'long' },
    { name: 'admitted', type: 'long' },
    { name: 'released', type: 'long' },
    { name: 'nextFetchAt', type: 'long' },
    { name: 'inFlight', type: 'string' },
    { name: 'inFlightSince', type: 'long' },
    { name: 'delayMs', type: 'long' },
    { name: 'failures', type: 'int' },
    { name: 'robots', type: 'string' },
    { name: 'robotsUrl', type: 'string' },
    { name: 'robotsHops', type: 'int' },
    { name: 'robotsAttempts', type: 'int' },
    { name: 'robotsFetchedAt', type: 'long' },
    { name: 'robotsExpiresAt', type: 'long' },
    { name: 'robotsRetryAt', type: 'long' },
    { name: 'robotsGaveUpUntil', type: 'long' },
    { name: 'crawlDelayMs', type: 'long' },
  ],
} as const;

export const hostsStore = defineStore<string, HostState>({
  name: 'hosts',
  description: 'Per host: next allowed fetch time, delay, backoff, in-flight fetch, budget used, queue counters, robots.txt status.',
  keys: stringKey,
  values: avroValues<HostState>(hostStateSchema as never),
});

export interface RobotsText {
  url: string;
  body: string;
  status: number;
}

export const robotsStore = defineStore<string, RobotsText>({
  name: 'robots-txt',
  description: 'The last robots.txt read per host (at most 500 KiB, RFC 9309 §2.5), parsed on demand.',
  keys: stringKey,
  values: avroValues<RobotsText>({
    type: 'record', name: 'RobotsText', namespace: 'crawlstream.store',
    fields: [{ name: 'url', type: 'string' }, { name: 'body', type: 'string' }, { name: 'status', type: 'int' }],
  } as never),
});

export function newHostState(host: string, scheme: string, delayMs: number): HostState {
  return {
    host, scheme, releaseSeq: 0, enqueueSeq: 0, queued: 0, admitted: 0, released: 0, nextFetchAt: 0,
    inFlight: '', inFlightSince: 0, delayMs, failures: 0, robots: 'unknown', robotsUrl: '', robotsHops: 0,
    robotsAttempts: 0, robotsFetchedAt: 0, robotsExpiresAt: 0, robotsRetryAt: 0, robotsGaveUpUntil: 0, crawlDelayMs: 0,
  };
}
