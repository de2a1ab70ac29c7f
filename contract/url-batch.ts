// Batches of URLs: a page's (or a sitemap's) URLs to one host travel as one record through
// discovered-urls and normalized, since every record pays the engine's fixed cost (Avro, log append,
// commit). A batch is the record's own URL followed by `more`; a record with `more` empty is one URL,
// as records were before batches existed, so old logs and replays read the same.
import { NO_HINTS, type CanonicalEntry, type CanonicalUrl, type DiscoveredEntry, type DiscoveredUrl } from '../schemas/records.js';
import { hostKey } from '../url/canonicalize.js';

/**
 * At most this many URLs per record, and at most MAX_BATCH_CHARS characters of per-URL text: a record
 * stays well under its topic's 1 MB however long the URLs are (a character is at most 3 bytes of
 * UTF-8, so 256 Ki characters are at most 768 KiB), and a failing record takes few URLs with it to
 * dead-letters. A single URL over the bound still travels, alone, as it did before batches.
 */
export const MAX_BATCH_URLS = 500;
export const MAX_BATCH_CHARS = 256 * 1024;
/** Avro framing and the numeric fields of one entry, roughly: keeps many tiny entries bounded too. */
const ENTRY_OVERHEAD_CHARS = 24;

export type DiscoveredShared = Omit<DiscoveredUrl, keyof DiscoveredEntry | 'more'>;
export type CanonicalShared = Omit<CanonicalUrl, keyof CanonicalEntry | 'more'>;

/** Every URL a discovered-urls record holds, its own first. */
export function discoveredEntries(r: DiscoveredUrl): DiscoveredEntry[] {
  const first = { url: r.url, anchor: r.anchor, priority_hint: r.priority_hint, changefreq: r.changefreq, lastmod: r.lastmod, sitemap_depth: r.sitemap_depth, ...scored(r) };
  return [first, ...(r.more ?? [])];
}

/** Every URL a normalized record holds, its own first. */
export function canonicalEntries(r: CanonicalUrl): CanonicalEntry[] {
  const first = { url: r.url, priority_hint: r.priority_hint, changefreq: r.changefreq, lastmod: r.lastmod, sitemap_depth: r.sitemap_depth, inlinks: r.inlinks, ...scored(r) };
  return [first, ...(r.more ?? [])];
}

/** A focused crawl's score, when the record has one (records written before focus read as -1). */
function scored(r: { score?: number }): { score?: number } {
  return r.score === undefined ? {} : { score: r.score };
}

/** Records holding `entries` (all of one host key) in order, each within the bounds. */
export function discoveredBatches(shared: DiscoveredShared, entries: readonly DiscoveredEntry[]): DiscoveredUrl[] {
  return chunks(entries, (e) => e.url.length + e.anchor.length + e.changefreq.length).map((c) => batchOf(shared, c));
}

/** Records holding canonical `entries` (all of `shared.host`) in order, each within the bounds. */
export function canonicalBatches(shared: CanonicalShared, entries: readonly CanonicalEntry[]): CanonicalUrl[] {
  return chunks(entries, (e) => e.url.length + e.changefreq.length).map((c) => batchOf(shared, c));
}

/**
 * One record of a chunk: its first entry's fields over the shared ones, the rest as `more`. Written
 * out rather than as `([first, ...more]) => ({ ...shared, ...first, more })`: the rest pattern runs
 * the array iterator, and this runs for every host a page links to.
 */
function batchOf<S extends object, E extends object>(shared: S, chunk: readonly E[]): S & E & { more: E[] } {
  return Object.assign({}, shared, chunk[0], { more: chunk.slice(1) });
}

/** Seed URLs as discovered-urls records batched by host key; seeds that are not URLs are listed in `invalid`. */
export function seedRecords(urls: readonly string[], now: number): { records: { host: string; value: DiscoveredUrl }[]; invalid: string[]; seeds: number } {
  const invalid: string[] = [];
  const valid: { host: string; entry: DiscoveredEntry }[] = [];
  for (const url of urls) {
    try {
      valid.push({ host: hostKey(new URL(url)), entry: { url, anchor: '', ...NO_HINTS } });
    } catch {
      invalid.push(url);
    }
  }
  const shared = { source_url: '', depth: 0, via: 'seed' as const, redirect_hops: 0, discovered_at: now };
  const records: { host: string; value: DiscoveredUrl }[] = [];
  for (const [host, group] of groupBy(valid, (v) => v.host)) {
    for (const value of discoveredBatches(shared, group.map((v) => v.entry))) records.push({ host, value });
  }
  return { records, invalid, seeds: valid.length };
}

/** Groups items by key, keeping the order of first appearance (links keep page order within a host). */
export function groupBy<T>(items: Iterable<T>, keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

function chunks<T>(entries: readonly T[], charsOf: (e: T) => number): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let chars = 0;
  for (const e of entries) {
    const size = charsOf(e) + ENTRY_OVERHEAD_CHARS;
    if (current.length > 0 && (current.length >= MAX_BATCH_URLS || chars + size > MAX_BATCH_CHARS)) {
      out.push(current);
      current = [];
      chars = 0;
    }
    current.push(e);
    chars += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}
