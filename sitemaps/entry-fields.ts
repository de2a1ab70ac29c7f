// Parsing of the optional <url> fields of the sitemaps.org protocol. Each parser returns undefined
// for a value it cannot read: the caller drops that field and keeps the URL.

export type Changefreq = 'always' | 'hourly' | 'daily' | 'weekly' | 'monthly' | 'yearly' | 'never';

export interface SitemapEntry {
  loc: string;
  /** Epoch milliseconds. */
  lastmod?: number;
  changefreq?: Changefreq;
  /** 0..1 */
  priority?: number;
}

const CHANGEFREQS: ReadonlySet<string> = new Set(['always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'never']);

/** sitemaps.org: values are lowercase; upper-case spellings seen in the wild are accepted. */
export function parseChangefreq(text: string): Changefreq | undefined {
  const v = text.trim().toLowerCase();
  return CHANGEFREQS.has(v) ? (v as Changefreq) : undefined;
}

const PRIORITY = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/** A decimal number from 0.0 to 1.0; anything else (1.5, -0.1, "high", 1e-1) is dropped. */
export function parsePriority(text: string): number | undefined {
  const v = text.trim();
  if (v.length > 32 || !PRIORITY.test(v)) return undefined;
  const n = Number(v);
  return n >= 0 && n <= 1 ? n : undefined;
}

// W3C Datetime (https://www.w3.org/TR/NOTE-datetime), all six precisions:
//   YYYY | YYYY-MM | YYYY-MM-DD | YYYY-MM-DDThh:mmTZD | YYYY-MM-DDThh:mm:ssTZD | YYYY-MM-DDThh:mm:ss.sTZD
// A time without a TZD is not W3C but is common in generated sitemaps; it is read as UTC.
const W3C_DATETIME =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/** Epoch ms of a W3C datetime; undefined for anything else, including impossible dates (02-30). */
export function parseW3cDatetime(text: string): number | undefined {
  const v = text.trim();
  if (v.length > 40) return undefined;
  const m = W3C_DATETIME.exec(v);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = m[2] === undefined ? 1 : Number(m[2]);
  const day = m[3] === undefined ? 1 : Number(m[3]);
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const millis = m[7] === undefined ? 0 : Number((m[7] + '00').slice(0, 3)); // sub-ms digits truncated
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day); // setUTCFullYear, unlike Date.UTC, keeps years 0..99
  utc.setUTCHours(hour, minute, second, millis);
  // Date rolls 02-30 over to 03-02; a date that moved was not a real calendar day.
  if (utc.getUTCDate() !== day || utc.getUTCMonth() !== month - 1) return undefined;
  let offsetMinutes = 0;
  const tzd = m[8];
  if (tzd !== undefined && tzd !== 'Z') {
    const oh = Number(tzd.slice(1, 3));
    const om = Number(tzd.slice(4, 6));
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (tzd[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  return utc.getTime() - offsetMinutes * 60_000;
}

// RFC 822 dates as RSS 2.0 writes <pubDate> (with RFC 1123's four-digit years, the usual form):
//   [Mon, ]06 Sep 2010 00:01[:00] (GMT | UT | Z | EST … PDT | military letter | +hhmm)
const RFC822 = /^(?:[A-Za-z]{3},\s*)?(\d{1,2})\s+([A-Za-z]{3})\s+(\d{2}|\d{4})\s+(\d{2}):(\d{2})(?::(\d{2}))?\s*([A-Za-z]{1,3}|[+-]\d{4})?$/;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const ZONES: Record<string, number> = { GMT: 0, UT: 0, UTC: 0, Z: 0, EST: -300, EDT: -240, CST: -360, CDT: -300, MST: -420, MDT: -360, PST: -480, PDT: -420 };

/** Epoch ms of an RSS date; undefined for anything else (a zone it does not know is read as UTC). */
export function parseRfc822Date(text: string): number | undefined {
  const v = text.trim();
  if (v.length > 40) return undefined;
  const m = RFC822.exec(v);
  if (!m) return undefined;
  const month = MONTHS.indexOf(m[2].toLowerCase());
  const day = Number(m[1]);
  let year = Number(m[3]);
  if (m[3].length === 2) year += year < 50 ? 2000 : 1900;
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  if (month < 0 || day < 1 || hour > 23 || minute > 59 || second > 60) return undefined;
  const utc = Date.UTC(year, month, day, hour, minute, Math.min(second, 59));
  if (new Date(utc).getUTCDate() !== day) return undefined;
  const zone = m[7] ?? 'GMT';
  const offset = /^[+-]/.test(zone)
    ? (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5)))
    : ZONES[zone.toUpperCase()] ?? 0;
  return utc - offset * 60_000;
}
