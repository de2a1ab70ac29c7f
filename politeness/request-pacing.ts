// How a fetch task paces the requests of the leases it was given: the host's delay as the scheduler
// released it (each request takes its host's turn, host-turns.ts), the restart guard, leases cut short
// by a failure, and the spacing of a rendering browser's requests within the page's turn. The fetch
// stage and the render step ask these and never compute a delay themselves.
import type { FetchRequest, FetchResult } from '../schemas/records.js';
import { judge } from './host-politeness.js';
import { untilPast } from './wait-at-least.js';

export interface Pacing {
  /** Least time from the end of one request to this host to the start of the next. */
  delayMs: number;
  /** Earliest start of this request (epoch ms; 0: none beyond the host's turn). */
  notBefore: number;
}

/**
 * The request's place in its host's turns: its host's delay after the request before it ended, and
 * no sooner than a delay after this task started. The host's last request may have been another
 * task instance's (the previous owner's, ended at the latest as it released the task, or in flight
 * when it died), which this task's turns never saw; a lease queued behind that request and released
 * after this task started is not given back, so it waits here. robots.txt is never queued behind a
 * request, and on a fresh host every later request follows it by a delay anyway: nothing waits there.
 */
export function pacingOf(request: FetchRequest, taskStartedAt = 0): Pacing {
  return { delayMs: request.delay_ms, notBefore: request.kind === 'robots' ? 0 : taskStartedAt + request.delay_ms };
}

/**
 * Restart guard: a request released before this task started may have been in flight when the previous
 * owner died or lost its commit (the server may have seen it), and the lease it belongs to may have
 * been cut short by a failure this task never saw. It is given back unsent: the schedule queues it
 * again and releases it a host delay after it learns of it. `recordTimestamp` bounds a release time
 * written by a clock that ran ahead.
 */
export function releasedBeforeStart(request: FetchRequest, recordTimestamp: number, taskStartedAt: number): boolean {
  return Math.min(recordTimestamp, request.released_at || recordTimestamp) < taskStartedAt;
}

/** Hosts whose leases a throttle or a failure cut short, as this fetch task saw them, at most this many. */
const MAX_CUT_HOSTS = 65_536;

/**
 * Leases cut short: once a request of a host is throttled (429, 503 with Retry-After) or fails (5xx, no
 * response), every later request of that host released in the same backoff generation is given back
 * unsent, and the schedule backs the host off. A request of a newer generation (released after the
 * schedule learnt of the failure) goes ahead and clears the mark.
 */
export class LeaseCuts {
  private readonly cut = new Map<string, number>();

  /** Whether the request belongs to a generation cut short (ask when its turn comes). */
  isCut(request: FetchRequest): boolean {
    const epoch = this.cut.get(request.host);
    if (epoch === undefined || !request.lease_id) return false;
    if (request.lease_epoch <= epoch) return true;
    this.cut.delete(request.host);
    return false;
  }

  /** A request of the host ended with this outcome. */
  ended(request: FetchRequest, result: Pick<FetchResult, 'status' | 'retry_after_ms' | 'error'>): void {
    if (!request.lease_id) return;
    const { throttled, failed } = judge(result);
    if (!throttled && !failed) return;
    this.cut.delete(request.host); // re-insert: Map order doubles as age order
    this.cut.set(request.host, request.lease_epoch);
    if (this.cut.size > MAX_CUT_HOSTS) this.cut.delete(this.cut.keys().next().value!);
  }
}

/**
 * The requests a rendering browser makes while its page holds the host's turn: one at a time, each
 * starting no sooner than the host's delay after the previous one (the page's own fetch first) ended.
 */
export class SubrequestSpacing {
  private lastEnd: number;

  constructor(private readonly request: FetchRequest, pageEndedAt: number, private readonly now: () => number) {
    this.lastEnd = pageEndedAt;
  }

  /** Resolves when the next request may start. */
  async turn(): Promise<void> {
    await untilPast(this.lastEnd + this.request.delay_ms, this.now);
  }

  /** The request that took the turn has ended. */
  ended(): void {
    this.lastEnd = this.now();
  }
}
