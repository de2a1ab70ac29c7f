// A host's politeness record and the rules over it: one request at a time, and the next one no earlier
// than the delay after the last one ENDED (plus Retry-After and backoff). The schedule processor keeps
// the record (the slot, and the lease book of leases.ts) in its `hosts` store and asks these functions;
// they return the record's next state and never touch anything else. With the fetch task's turns
// (host-turns.ts, request-pacing.ts) this is the one place that adds a delay to the clock.
import type { FetchResult } from '../schemas/records.js';
import { backoffMs, type Random } from './backoff.js';
import { opened, type Lease, type LeaseBook, type UrlRef } from './leases.js';

export interface HostSlot {
  /** Least time between the end of one request and the start of the next: max(default delay, Crawl-delay). */
  delayMs: number;
  /** Earliest start of the next lease's first request, once no lease is out. */
  nextFetchAt: number;
  /** Before leases: the fetch_id of the request in flight; moved into the lease book when read ('' since). */
  inFlight: string;
  inFlightSince: number;
  /** Consecutive failed or throttled fetches (5xx, 429, network), for the host-wide backoff. */
  failures: number;
  releaseSeq: number;
}

/** The longest delay a request carries (an Avro int); Crawl-delays are kept within it (robots-gate.ts). */
const MAX_DELAY_MS = 2 ** 31 - 1;

const RETRYABLE_ERRORS = new Set(['timeout', 'connect', 'dns', 'protocol', 'body-incomplete', 'proxy']);
/** While releases are paused (crawlstream scale), a host is looked at again this often. */
const PAUSED_RECHECK_MS = 200;

export function newSlot(delayMs: number): HostSlot {
  return { delayMs, nextFetchAt: 0, inFlight: '', inFlightSince: 0, failures: 0, releaseSeq: 0 };
}

/** When the host's next lease may start: not while one is out (Infinity; see mayQueueBehind), else its timer. */
export function nextAllowedStart(slot: HostSlot, book: LeaseBook): number {
  return book.open.length ? Infinity : slot.nextFetchAt;
}

/** When a paused scheduler looks at a host again. */
export function pausedUntil(now: number): number {
  return now + PAUSED_RECHECK_MS;
}

/**
 * The record with a lease released: robots.txt alone, or these URLs in order. It is out until each has
 * reported. `queued`: released while another lease is out, to queue behind it in the same fetch task.
 */
export function leased(slot: HostSlot, book: LeaseBook, host: string, now: number, urls: UrlRef[] | 'robots', queued = false): { slot: HostSlot; book: LeaseBook; lease: Lease } {
  const seq = slot.releaseSeq + 1;
  const owed = urls === 'robots' ? [] : urls;
  const size = urls === 'robots' ? 1 : urls.length;
  const lease: Lease = { id: `${host}#${seq}`, epoch: book.epoch, releasedAt: now, queued, kind: urls === 'robots' ? 'robots' : 'urls', owed, count: size, size };
  return { slot: { ...slot, releaseSeq: seq }, book: opened(book, lease, now), lease };
}

/** What a released request carries of its host's politeness, for the fetch task that paces it. */
export function pacingFields(slot: HostSlot): { delay_ms: number } {
  return { delay_ms: Math.min(Math.max(0, slot.delayMs), MAX_DELAY_MS) };
}

export interface SlotOutcome {
  slot: HostSlot;
  /** The server asked us to slow down (429; 503 with Retry-After). */
  throttled: boolean;
  /** The fetch failed in a way worth trying again (5xx, network). */
  failed: boolean;
}

/** Whether a request that got no response for this reason (an error kind) is worth another try. */
export function retryableError(kind: string): boolean {
  return RETRYABLE_ERRORS.has(kind);
}

/** What an outcome says of the host: it asked us to slow down, or it failed in a way worth another try. */
export function judge(r: Pick<FetchResult, 'status' | 'retry_after_ms' | 'error'>): { throttled: boolean; failed: boolean } {
  const errorKind = r.error.split(':', 1)[0];
  const throttled = r.status === 429 || (r.status === 503 && r.retry_after_ms > 0);
  // A response that came, even cut short, is not retried: a server that trickles or resets a body
  // would get the same request again and again. No response at all is worth another try.
  const failed = !throttled && (r.status >= 500 || (r.status === 0 && RETRYABLE_ERRORS.has(errorKind)));
  return { throttled, failed };
}

/**
 * The slot once the fetch in flight finished. `delayMs` is the host's delay as of now (robots may change
 * it). A throttle or a failure slows the whole host down on the one backoff curve (backoff.ts); a
 * success resets it.
 */
export function freed(slot: HostSlot, r: FetchResult, now: number, delayMs: number, maxAttempts: number, random: Random): SlotOutcome {
  // Measured from when the fetch ended (or when we learn of it, if later), never from release; a
  // backoff already set by an earlier report of the lease stands.
  const end = Math.max(now, r.started_at + r.elapsed_ms);
  let nextFetchAt = Math.max(slot.nextFetchAt, end + delayMs);
  let failures = slot.failures;
  const { throttled, failed } = judge(r);
  if (throttled || failed) {
    failures++;
    nextFetchAt = Math.max(nextFetchAt, now + backoffMs(failures, delayMs, r.retry_after_ms, maxAttempts, random));
  } else {
    failures = 0;
  }
  return { slot: { ...slot, delayMs, nextFetchAt, inFlight: '', failures }, throttled, failed };
}

/**
 * The slot after a report with no outcome to read: a URL given back unfetched, a completion that could
 * not be handled, or leases given up as lost. A request may still have reached the server (just before
 * a restart), so the next one waits a delay from now.
 */
export function freedWithoutOutcome(slot: HostSlot, now: number): HostSlot {
  return { ...slot, inFlight: '', nextFetchAt: Math.max(slot.nextFetchAt, now + slot.delayMs) };
}

/** A record stored before leases, with a request in flight: that request becomes a lease of one. */
export function fromSingleRelease(slot: HostSlot, book: LeaseBook): { slot: HostSlot; book: LeaseBook } {
  if (!slot.inFlight) return { slot, book };
  const lease: Lease = { id: slot.inFlight, epoch: book.epoch, releasedAt: slot.inFlightSince, queued: false, kind: 'urls', owed: [], count: 1, size: 1 };
  return { slot: { ...slot, inFlight: '' }, book: { ...book, open: [...book.open, lease], progressAt: slot.inFlightSince } };
}
