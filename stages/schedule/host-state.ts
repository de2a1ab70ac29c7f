// Per-host state of the schedule processor, in its `hosts` store: three small records, each with one
// owner. The politeness slot and the robots state belong to politeness/ (host-politeness.ts and
// robots-gate.ts, which return new states rather than mutating, and politeness-schema.ts, their
// layout), the queue counts to the frontier bookkeeping.
import { avroValues, defineStore, stringKey } from '../../engine/api.js';
import type { HostSlot } from '../../politeness/host-politeness.js';
import type { RobotsState, RobotsText } from '../../politeness/robots-gate.js';
import { hostSlotSchema, robotsStateSchema } from '../../politeness/politeness-schema.js';

export type { RobotsState, RobotsStatus, RobotsText } from '../../politeness/robots-gate.js';

export interface QueueCounts {
  /** URLs that may be fetched now, and of those the recrawls that came due. */
  ready: number;
  readyRecrawls: number;
  /** URLs due again later. */
  waiting: number;
  /** Distinct page URLs fetched at least once (--max-pages-per-host counts these). */
  released: number;
  /** Sequence for queue entries: arrival order within a rank. */
  seq: number;
  /** When the host's sitemaps were last queued (robots.txt read at that time). */
  sitemapsAt: number;
}

export interface HostState {
  host: string;
  /** Scheme of the host's URLs; robots.txt is fetched on the same origin. */
  scheme: string;
  slot: HostSlot;
  robots: RobotsState;
  queue: QueueCounts;
}

const record = (name: string, fields: [string, string][]) => ({ type: 'record', name, fields: fields.map(([n, type]) => ({ name: n, type })) });

export const hostsStore = defineStore<string, HostState>({
  name: 'hosts',
  description: 'Per host: politeness slot (delay, next allowed start, request in flight, backoff), robots.txt state, queue counts.',
  keys: stringKey,
  values: avroValues<HostState>({
    type: 'record', name: 'HostState', namespace: 'crawlstream.store',
    fields: [
      { name: 'host', type: 'string' },
      { name: 'scheme', type: 'string' },
      { name: 'slot', type: hostSlotSchema },
      { name: 'robots', type: robotsStateSchema },
      { name: 'queue', type: record('QueueCounts', [['ready', 'long'], ['readyRecrawls', 'long'], ['waiting', 'long'], ['released', 'long'], ['seq', 'long'], ['sitemapsAt', 'long']]) },
    ],
  } as never),
});

export const robotsStore = defineStore<string, RobotsText>({
  name: 'robots-txt',
  description: 'The last robots.txt read per host (at most 500 KiB, RFC 9309 §2.5), parsed on demand.',
  keys: stringKey,
  values: avroValues<RobotsText>({
    type: 'record', name: 'RobotsText', namespace: 'crawlstream.store',
    fields: [{ name: 'url', type: 'string' }, { name: 'body', type: 'string' }, { name: 'status', type: 'int' }],
  } as never),
});

/** Whether `url` is on the host itself (same scheme and authority): a host's robots.txt speaks only for it. */
export function sameOrigin(url: string, h: HostState): boolean {
  try {
    const u = new URL(url);
    return u.host === h.host && u.protocol === `${h.scheme}:`;
  } catch {
    return false;
  }
}
