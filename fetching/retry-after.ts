// Retry-After (RFC 9110 §10.2.3): delta-seconds or an HTTP-date. The scheduler waits this long before the
// host's next request, so a hostile value must not park a host forever: results are capped.

export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

// IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
const IMF = /^[a-z]{3}, (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) gmt$/i;
// obsolete RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT"
const RFC850 = /^[a-z]{6,9}, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) gmt$/i;
// obsolete asctime: "Sun Nov  6 08:49:37 1994"
const ASCTIME = /^[a-z]{3} ([a-z]{3}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/i;

function toEpoch(day: string, mon: string, year: number, h: string, m: string, s: string): number {
  const month = MONTHS.indexOf(mon.toLowerCase());
  const [d, hh, mm, ss] = [Number(day), Number(h), Number(m), Number(s)];
  if (month < 0 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60) return NaN;
  const t = Date.UTC(year, month, d, hh, mm, Math.min(ss, 59));
  // Date.UTC rolls "31 Feb" over into March; such a date is invalid, not a different day.
  return new Date(t).getUTCDate() === d ? t : NaN;
}

/** Parses an HTTP-date in any of the three formats HTTP allows; NaN when it is none of them. */
export function parseHttpDate(value: string): number {
  const v = value.trim();
  let g = IMF.exec(v);
  if (g) return toEpoch(g[1], g[2], Number(g[3]), g[4], g[5], g[6]);
  g = RFC850.exec(v);
  if (g) {
    // RFC 9110: a two-digit year more than 50 years in the future is in the past century.
    const yy = Number(g[3]);
    const thisYear = new Date().getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + yy;
    if (year > thisYear + 50) year -= 100;
    return toEpoch(g[1], g[2], year, g[4], g[5], g[6]);
  }
  g = ASCTIME.exec(v);
  if (g) return toEpoch(g[2], g[1], Number(g[6]), g[3], g[4], g[5]);
  return NaN;
}

/** Milliseconds to wait; 0 for absent, negative, past or invalid values; at most MAX_RETRY_AFTER_MS. */
export function parseRetryAfter(value: string | undefined, now: number): number {
  if (typeof value !== 'string') return 0;
  const v = value.trim();
  if (v === '' || v.length > 64) return 0;
  let ms: number;
  if (/^\d+$/.test(v)) {
    ms = Number(v) * 1000; // huge digit strings become Infinity or 1e300 and are capped below
  } else {
    const at = parseHttpDate(v);
    if (Number.isNaN(at) || !Number.isFinite(now)) return 0;
    ms = at - now;
  }
  if (!(ms > 0)) return 0;
  return Math.min(Math.ceil(ms), MAX_RETRY_AFTER_MS);
}
