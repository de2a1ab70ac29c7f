// A politeness delay is a floor the server must see, and Node's timers do not give one: libuv keeps
// time in whole milliseconds, so setTimeout(20) can resolve 19.1 ms after it was set (a few in a
// hundred do). A host's next request sent that early lands inside its delay as the server measures
// it. Every wait a politeness rule asks for goes through here.

type Timer = (resolve: () => void, ms: number) => void;

const realTimer: Timer = (resolve, ms) => setTimeout(resolve, ms);

/**
 * Resolves once at least `ms` have passed on `clock` (a monotonic, sub-millisecond one by default),
 * however early the underlying timer fires: it waits again for whatever is left.
 */
export async function waitAtLeast(ms: number, clock: () => number = () => performance.now(), timer: Timer = realTimer): Promise<void> {
  if (!(ms > 0)) return;
  const until = clock() + ms;
  for (let left = ms; left > 0; left = until - clock()) {
    await new Promise<void>((resolve) => timer(resolve, Math.ceil(left)));
  }
}

/**
 * Until a whole-millisecond clock (`now`, e.g. Date.now) has passed `epochMs`: it may read `epochMs`
 * up to 1 ms before that moment really came, so a wait is 1 ms longer than the clock says.
 */
export function untilPast(epochMs: number, now: () => number): Promise<void> {
  const left = epochMs - now();
  return left > 0 ? waitAtLeast(left + 1) : Promise.resolve();
}
