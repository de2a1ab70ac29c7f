// A host's politeness record and the rules over it: one request in flight at a time, and the next one
// no earlier than the delay after the last one ENDED (plus Retry-After and backoff). The schedule
// processor keeps the record in its `hosts` store and asks these functions; they return the record's
// next state and never touch anything else. This is the one place that adds a delay to the clock.
import type { FetchResult } from '../schemas/records.js';
import { backoffMs, type Random } from './backoff.js';

export interface HostSlot {
  /** Least time between the end of one request and the start of the next: max(default delay, Crawl-delay). */
  delayMs: number;
  /** Earliest start of the next request. */
  nextFetchAt: number;
  /** fetch_id of the request in flight, '' when none. */
  inFlight: string;
  inFlightSince: number;
  /** Consecutive failed fetches (5xx, network), for the host-wide backoff. */
  failures: number;
  releaseSeq: number;
}

const RETRYABLE_ERRORS = new Set(['timeout', 'connect', 'dns', 'protocol', 'body-incomplete']);
/** While releases are paused (crawlstream scale), a host is looked at again this often. */
const PAUSED_RECHECK_MS = 200;
/** No fetch outlives the fetcher's total timeout; a slot held far longer lost its outcome to a bug. */
const STALE_SLOT_GRACE_MS = 60_000;

export function newSlot(delayMs: number): HostSlot {
  return { delayMs, nextFetchAt: 0, inFlight: '', inFlightSince: 0, failures: 0, releaseSeq: 0 };
}

/** When the host may be asked next: never while a request is in flight (Infinity), else its timer. */
export function nextAllowedStart(slot: HostSlot): number {
  return slot.inFlight ? Infinity : slot.nextFetchAt;
}

/** When a paused scheduler looks at a host again. */
export function pausedUntil(now: number): number {
  return now + PAUSED_RECHECK_MS;
}

/** The slot with a request released: it is in flight until its outcome is read back. */
export function released(slot: HostSlot, host: string, now: number): { slot: HostSlot; fetchId: string } {
  const seq = slot.releaseSeq + 1;
  const fetchId = `${host}#${seq}`;
  return { slot: { ...slot, releaseSeq: seq, inFlight: fetchId, inFlightSince: now }, fetchId };
}

/** What a released request carries of its host's politeness, for the fetch task that paces it. */
export function pacingFields(slot: HostSlot): { delay_ms: number } {
  return { delay_ms: slot.delayMs };
}

export interface SlotOutcome {
  slot: HostSlot;
  /** The server asked us to slow down (429; 503 with Retry-After). */
  throttled: boolean;
  /** The fetch failed in a way worth trying again (5xx, network). */
  failed: boolean;
}

/** What an outcome says of the host: it asked us to slow down, or it failed in a way worth another try. */
export function judge(r: FetchResult): { throttled: boolean; failed: boolean } {
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
  // Measured from when the fetch ended (or when we learn of it, if later), never from release.
  const end = Math.max(now, r.started_at + r.elapsed_ms);
  let nextFetchAt = end + delayMs;
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
 * The slot freed without an outcome to read: the completion could not be handled, or never came. The
 * request may still have reached the server, so the next one waits a delay from now.
 */
export function freedWithoutOutcome(slot: HostSlot, now: number): HostSlot {
  return { ...slot, inFlight: '', nextFetchAt: now + slot.delayMs };
}

/** When a request in flight is given up as lost: no fetch outlives twice its timeout plus a grace. */
export function staleAt(slot: HostSlot, fetchTimeoutMs: number): number {
  return slot.inFlightSince + fetchTimeoutMs * 2 + STALE_SLOT_GRACE_MS;
}

/**
 * A slot found in flight when the scheduler starts: its outcome may still come (the fetch task redoes
 * what it had not committed), so the stale guard counts from now, not from the release before the stop.
 */
export function restarted(slot: HostSlot, now: number): HostSlot {
  return slot.inFlight ? { ...slot, inFlightSince: Math.max(slot.inFlightSince, now) } : slot;
}
