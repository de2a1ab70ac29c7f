// How a fetch task paces the requests it was given: the host's delay as the scheduler released it,
// the restart guard, and the spacing of a rendering browser's requests within the page's turn. The
// fetch stage and the render step ask these and never compute a delay themselves.
import type { FetchRequest } from '../schemas/records.js';

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve());

export interface Pacing {
  /** Least time from the end of one request to this host to the start of the next. */
  delayMs: number;
  /** Earliest start of this request (epoch ms; 0: none beyond the host's turn). */
  notBefore: number;
}

/**
 * Restart guard: a request released before this task started may have been in flight when the previous
 * owner died or lost its commit, and the server may have seen it: it waits one host delay from the
 * task's start. `recordTimestamp` bounds a release time written by a clock that ran ahead.
 */
export function pacingOf(request: FetchRequest, recordTimestamp: number, taskStartedAt: number): Pacing {
  const releasedAt = Math.min(recordTimestamp, request.released_at || recordTimestamp);
  return { delayMs: request.delay_ms, notBefore: releasedAt < taskStartedAt ? taskStartedAt + request.delay_ms : 0 };
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
    await sleep(this.lastEnd + this.request.delay_ms - this.now());
  }

  /** The request that took the turn has ended. */
  ended(): void {
    this.lastEnd = this.now();
  }
}
