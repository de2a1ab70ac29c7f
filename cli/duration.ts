// The one duration grammar of the command line: a number and a unit, e.g. 500ms, 30s, 5m, 1.5h, 7d.
// A bare number is refused because "30" could mean 30 ms or 30 s; the legacy *-ms flags take plain
// integers and are parsed elsewhere.

const UNIT_MS = { ms: 1n, s: 1_000n, m: 60_000n, h: 3_600_000n, d: 86_400_000n } as const;
type Unit = keyof typeof UNIT_MS;
const DISPLAY_ORDER: Unit[] = ['d', 'h', 'm', 's', 'ms'];
const GRAMMAR = 'a number and a unit: 500ms, 30s, 5m, 1.5h, 7d';
// Longer texts are refused before any arithmetic: nothing useful needs more digits.
const MAX_TEXT = 32;

export class DurationError extends Error {}

/**
 * Milliseconds in a duration such as "500ms", "30s", "5m", "1.5h" or "7d".
 * Fractions are allowed when the result is a whole number of milliseconds ("1.5h", "0.25s");
 * "0.5ms" is not. Units are lower case; one number and one unit ("90m", not "1h30m").
 * @throws DurationError saying what is wrong and what the grammar is.
 */
export function parseDuration(text: string): number {
  const t = String(text).trim();
  if (t === '') throw new DurationError(`empty duration; give ${GRAMMAR}`);
  if (t.length > MAX_TEXT) throw new DurationError(`"${t.slice(0, MAX_TEXT)}…" is too long for a duration; give ${GRAMMAR}`);
  if (/^-/.test(t)) throw new DurationError(`"${t}" is negative; give ${GRAMMAR}`);
  if (/^\d+(\.\d+)?$/.test(t)) throw new DurationError(`"${t}" has no unit; write ${t}ms, ${t}s, ${t}m, ${t}h or ${t}d`);
  const m = /^(\d+)(?:\.(\d+))?\s*(ms|s|m|h|d)$/.exec(t);
  if (!m) throw new DurationError(`"${t}" is not a duration; give ${GRAMMAR}`);
  const [, whole, fraction = '', unit] = m;
  // Exact decimal arithmetic: 1.1s in floating point is 1100.0000000000002 ms.
  const scaled = BigInt(whole + fraction) * UNIT_MS[unit as Unit];
  const divisor = 10n ** BigInt(fraction.length);
  if (scaled % divisor !== 0n) throw new DurationError(`"${t}" is not a whole number of milliseconds`);
  const ms = scaled / divisor;
  if (ms > BigInt(Number.MAX_SAFE_INTEGER)) throw new DurationError(`"${t}" is too long a duration`);
  return Number(ms);
}

/** The shortest exact spelling of a whole number of milliseconds: 90000 → "90s", 5400000 → "90m". */
export function formatDuration(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0) return `${ms}ms`;
  if (ms === 0) return '0s';
  const n = BigInt(ms);
  for (const unit of DISPLAY_ORDER) if (n % UNIT_MS[unit] === 0n) return `${n / UNIT_MS[unit]}${unit}`;
  return `${ms}ms`;
}
