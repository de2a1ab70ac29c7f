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
