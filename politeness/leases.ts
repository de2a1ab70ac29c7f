// Leases: how a host's requests are paced with no broker round trip per request. The schedule releases
// a lease, up to MAX_LEASE of a host's next URLs at once; the fetch task that owns the host's server
// address fetches them in order, one at a time, each a host delay after the one before it ended
// (HostTurns), and reports each URL on its own (`fetched`, or `unfetched` when it gives one back). The
// host's lease book says which leases are outstanding and which URLs each still owes; the host is
// free again once every URL of every lease has reported.
//
// A second lease may be released before the first is done, so that the host stays busy across the
// round trip, only when both are sure to reach the same fetch task and be serialized there: it is
// pinned to the server address the first one's reports came from (the `resolved` topic is keyed by
// address, so one address is one task). A throttle or a failure starts a new backoff generation
// (`epoch`): the fetch task gives back every URL of the generation that failed, and nothing is
// released again until all of them have reported and the backoff has passed.
import type { FetchRequest, FetchResult } from '../schemas/records.js';

export interface UrlRef {
  hi: number;
  lo: number;
}

export interface Lease {
  /** host, '#', the host's release sequence: the first URL's fetch_id; the others add '.1', '.2', … */
  id: string;
  /** The backoff generation it was released in. */
  epoch: number;
  releasedAt: number;
  /** Released while another lease was outstanding (its loop latency is not a round trip). */
  queued: boolean;
  /** 'robots': one robots.txt request; 'urls': pages and sitemaps. */
  kind: 'robots' | 'urls';
  /** URLs not yet reported, by fingerprint (empty for a request released before leases existed). */
  owed: UrlRef[];
  /** Requests not yet reported, and how many it had. */
  count: number;
  size: number;
}

export interface LeaseBook {
  /** Outstanding leases, oldest first (at most MAX_OPEN_LEASES). */
  open: Lease[];
  /** The server address the open leases' requests went to, from their reports; '' until one came. */
  address: string;
  /** Backoff generation: a throttle or a failure reported in this generation starts the next. */
  epoch: number;
  /** The last release or report: the lost-lease guard counts from it. */
  progressAt: number;
}

export const MAX_LEASE = 32;
export const MAX_OPEN_LEASES = 2;
/** A lease is lost when no URL of the host reported for a delay, twice the fetch timeout and this. */
const LOST_LEASE_GRACE_MS = 60_000;

export function emptyBook(): LeaseBook {
  return { open: [], address: '', epoch: 0, progressAt: 0 };
}

/** The fetch_id of the lease's i-th URL. */
export function fetchIdOf(leaseId: string, i: number): string {
  return i === 0 ? leaseId : `${leaseId}.${i}`;
}

/** The book with `lease` outstanding. A lease released while none is out is resolved afresh. */
export function opened(book: LeaseBook, lease: Lease, now: number): LeaseBook {
  return { ...book, open: [...book.open, lease], address: book.open.length ? book.address : '', progressAt: now };
}

export interface Report {
  book: LeaseBook;
  lease: Lease;
  /** Every URL of the lease has reported. */
  closed: boolean;
}

/**
 * The book once one URL of a lease reported (fetched, or given back). Undefined when the lease does
 * not owe it: a report that comes after its lease was given up as lost, or twice.
 * @param cut the report says the lease's generation failed or was throttled
 */
export function reported(book: LeaseBook, leaseId: string, ref: UrlRef | undefined, r: { address: string; epoch: number; cut: boolean }, now: number): Report | undefined {
  const at = book.open.findIndex((l) => l.id === leaseId);
  if (at < 0) return undefined;
  const lease = book.open[at];
  let owed = lease.owed;
  if (owed.length) {
    const i = ref ? owed.findIndex((o) => o.hi === ref.hi && o.lo === ref.lo) : -1;
    if (i < 0) return undefined;
    owed = [...owed.slice(0, i), ...owed.slice(i + 1)];
  }
  const left: Lease = { ...lease, owed, count: lease.count - 1 };
  const closed = left.count <= 0;
  const open = closed ? [...book.open.slice(0, at), ...book.open.slice(at + 1)] : book.open.map((l, j) => (j === at ? left : l));
  const epoch = r.cut && r.epoch >= book.epoch ? r.epoch + 1 : book.epoch;
  const address = open.length === 0 ? '' : lease.kind === 'urls' && r.address ? r.address : book.address;
  return { book: { open, address, epoch, progressAt: now }, lease: left, closed };
}

/** When the open leases are given up as lost if nothing more reports. */
export function lostAt(book: LeaseBook, delayMs: number, fetchTimeoutMs: number): number {
  return book.progressAt + delayMs + fetchTimeoutMs * 2 + LOST_LEASE_GRACE_MS;
}

/**
 * A book found with leases out when the scheduler starts: their reports may still come (the fetch task
 * redoes or gives back what it had not committed), so the lost-lease guard counts from now.
 */
export function restarted(book: LeaseBook, now: number): LeaseBook {
  return book.open.length ? { ...book, progressAt: Math.max(book.progressAt, now) } : book;
}

/** URLs still owed by the open leases. */
export function owedCount(book: LeaseBook): number {
  let n = 0;
  for (const l of book.open) n += l.count;
  return n;
}

/**
 * Whether a next lease may go out before the open one is done: one lease out, of pages, in the current
 * generation, whose requests are known to have reached one address (so the next one, pinned to it,
 * reaches the same fetch task and queues behind it). Robots.txt and failures are never queued behind.
 */
export function mayQueueBehind(book: LeaseBook, failures: number): boolean {
  if (book.open.length !== 1 || book.address === '' || failures > 0) return false;
  const [lease] = book.open;
  // Once the open lease has itself begun to report: what it still owes covers the next one's way there.
  return lease.kind === 'urls' && lease.epoch === book.epoch && lease.count < lease.size;
}

/**
 * The loop's latency as this scheduler sees it (release → the fetch task → the report back, less the
 * fetch itself) and how long a fetch takes, both smoothed: a lease should cover about a round trip of
 * the host's pacing, so that the next one arrives before the host falls idle.
 */
export class LoopEstimate {
  loopMs: number;
  fetchMs: number;
  private measured = false;

  /** Until a loop is measured, leases hold one URL: a host's first requests keep the finest priority order. */
  constructor(loopMs = 0, fetchMs = 10) {
    this.loopMs = loopMs;
    this.fetchMs = fetchMs;
  }

  /** A report of a lease's URL came: the first URL of a lease released onto a free host measures the loop. */
  observe(lease: Lease, r: FetchResult, now: number): void {
    const elapsed = Math.max(0, r.elapsed_ms);
    this.fetchMs += (elapsed - this.fetchMs) * 0.1;
    if (lease.queued || r.fetch_id !== lease.id) return;
    const loop = now - lease.releasedAt - elapsed;
    if (!Number.isFinite(loop)) return;
    const sample = Math.min(Math.max(loop, 1), 60_000);
    this.loopMs = this.measured ? this.loopMs + (sample - this.loopMs) * 0.2 : sample;
    this.measured = true;
  }

  /**
   * URLs for the next lease of a host with this delay: a round trip of its pacing, 1 to MAX_LEASE, and
   * one more to cover the next lease's way to the fetch task while it queues behind. A host whose delay
   * dwarfs the loop gets leases of one: the hop it idles between them is small beside its delay, and a
   * clean stop never waits on a queue of long delays.
   */
  size(delayMs: number): number {
    const perUrl = Math.max(1, delayMs + this.fetchMs);
    const behind = perUrl < 10 * this.loopMs ? 1 : 0;
    return Math.max(1, Math.min(MAX_LEASE, Math.ceil(this.loopMs / perUrl) + behind));
  }
}

/** A lease's requests in order: its first URL, then each of `more`, every one a request of its own. */
export function leaseRequests(lease: FetchRequest): FetchRequest[] {
  const { more, ...shared } = lease;
  const first: FetchRequest = { ...shared, more: [] };
  // Object.assign, not { ...shared, ...entry }: V8 makes a second spread ~20 times slower.
  return [first, ...more.map((entry): FetchRequest => Object.assign({}, shared, entry, { more: [] }))];
}
