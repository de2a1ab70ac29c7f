// Per-host state of the schedule processor, in its `hosts` store: small records, each with one owner.
// The politeness slot, the lease book and the robots state belong to politeness/ (host-politeness.ts,
// leases.ts and robots-gate.ts, which return new states rather than mutating; politeness-schema.ts,
// their layout), the queue counts and the sitemap lane to the frontier bookkeeping.
import avro from 'avsc';
import { avroBytes, avroValues, defineStore, stringKey, type ValueCodec } from '../../engine/api.js';
import { fromSingleRelease, type HostSlot } from '../../politeness/host-politeness.js';
import { emptyBook, type LeaseBook } from '../../politeness/leases.js';
import { newRobotsState, type RobotsState, type RobotsText } from '../../politeness/robots-gate.js';
import { EMPTY_LEASE_BOOK, hostSlotSchema, leaseBookSchema, robotsStateSchema } from '../../politeness/politeness-schema.js';

export type { RobotsState, RobotsStatus, RobotsText } from '../../politeness/robots-gate.js';

export interface QueueCounts {
  /** URLs that may be fetched now (sitemaps included), and of those the recrawls that came due. */
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

/** Sitemaps ready to fetch wait in a lane of their own, and take turns with pages. */
export interface SitemapLane {
  /** Of the host's ready URLs, the sitemaps in the lane. */
  ready: number;
  /** The next URL comes from the sitemap lane (when both lanes hold some). */
  next: boolean;
}

export interface HostState {
  host: string;
  /** Scheme of the host's URLs; robots.txt is fetched on the same origin. */
  scheme: string;
  slot: HostSlot;
  robots: RobotsState;
  queue: QueueCounts;
  leases: LeaseBook;
  sitemaps: SitemapLane;
}

/** A host first seen: robots.txt still to read, nothing queued, no lease out. */
export function newHostState(host: string, scheme: string, slot: HostSlot): HostState {
  return {
    host, scheme, slot, robots: newRobotsState(), queue: { ready: 0, readyRecrawls: 0, waiting: 0, released: 0, seq: 0, sitemapsAt: 0 },
    leases: emptyBook(), sitemaps: { ready: 0, next: true },
  };
}

const record = (name: string, fields: [string, string][]) => ({ type: 'record', name, fields: fields.map(([n, type]) => ({ name: n, type })) });

const FIELDS = [
  { name: 'host', type: 'string' },
  { name: 'scheme', type: 'string' },
  { name: 'slot', type: hostSlotSchema },
  { name: 'robots', type: robotsStateSchema },
  { name: 'queue', type: record('QueueCounts', [['ready', 'long'], ['readyRecrawls', 'long'], ['waiting', 'long'], ['released', 'long'], ['seq', 'long'], ['sitemapsAt', 'long']]) },
];
/** Fields appended since the first layout, each with a default: records stored before them still read. */
const ADDED = [
  { name: 'leases', type: leaseBookSchema, default: EMPTY_LEASE_BOOK },
  { name: 'sitemaps', type: record('SitemapLane', [['ready', 'long'], ['next', 'boolean']]), default: { ready: 0, next: true } },
];

/**
 * Store values carry no schema id: a record written before fields were appended is shorter, fails to
 * decode as such (truncated), and is read with the older layout and the added fields' defaults (Avro
 * schema resolution). A request in flight from before leases becomes a lease of one.
 */
function hostStateValues(): ValueCodec<HostState> {
  const schema = (fields: object[]) => ({ type: 'record', name: 'HostState', namespace: 'crawlstream.store', fields }) as avro.Schema;
  const current = avro.Type.forSchema(schema([...FIELDS, ...ADDED]));
  const first = current.createResolver(avro.Type.forSchema(schema(FIELDS)));
  return {
    encode: (v) => avroBytes(current, v),
    decode: (b) => {
      let h: HostState;
      try {
        h = current.fromBuffer(b) as HostState;
      } catch {
        h = current.fromBuffer(b, first) as HostState;
      }
      if (h.slot.inFlight) Object.assign(h, fromSingleRelease(h.slot, h.leases));
      return h;
    },
  };
}

export const hostsStore = defineStore<string, HostState>({
  name: 'hosts',
  description: 'Per host: politeness slot (delay, next allowed start, backoff), leases out and the URLs they owe, robots.txt state, queue counts.',
  keys: stringKey,
  values: hostStateValues(),
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
