// How long a worker waits before it tries again to start what a broker refused (a consumer, a task's
// open, the worker's producer), and which failures it tells. One curve for all of them: doubling from
// 250 ms and capped at 2 s, as kafkajs's own retries are here (kafka-cluster.ts) and as the Java
// client caps them (retry.backoff.max.ms, 1 s). A broker restarting, or a coordinator loading its
// partitions, is the usual cause: a 10 s cap made a worker come back up to 10 s after the broker could
// serve it again, with every task waiting. A longer outage costs an attempt every 2 s per waiter, a
// request each, which a broker that answers again barely notices.

const FIRST_MS = 250;
const MAX_MS = 2_000;
/** Past the first failure, one line per this many attempts (about every 20 s): an outage is told, not flooded. */
const TELL_EVERY = 10;

/** The wait before attempt `attempt + 1`, after attempt `attempt` (0 first) failed. */
export function restartWait(attempt: number): number {
  return Math.min(FIRST_MS * 2 ** attempt, MAX_MS);
}

/** Whether the failure of attempt `attempt` is told: the first, then every TELL_EVERY-th. */
export function toldFailure(attempt: number): boolean {
  return attempt % TELL_EVERY === 0;
}

/** The line for a failed attempt: what failed, why, and when it is tried again. */
export function failureLine(what: string, err: Error, attempt: number): string {
  const tries = attempt === 0 ? '' : ` (attempt ${attempt + 1}; told every ${TELL_EVERY} attempts)`;
  return `${what}: cannot start (${err.message}); trying again in ${restartWait(attempt)} ms${tries}`;
}

/** Waits out attempt `attempt`'s failure, having told it when it is one to tell. */
export async function afterFailure(logger: { warn(m: string): void }, what: string, err: Error, attempt: number): Promise<void> {
  if (toldFailure(attempt)) logger.warn(failureLine(what, err, attempt));
  await new Promise((r) => setTimeout(r, restartWait(attempt)));
}
