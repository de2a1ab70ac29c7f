// What the scheduler knows of each URL of a host, in its `urls` store on disk: where the URL is
// (ready, in flight, waiting for its recrawl, stopped), its importance, its validators and its change
// history. A host with a million known URLs costs disk, not RAM.
import avro from 'avsc';
import { avroBytes, defineStore, type ValueCodec } from '../../engine/api.js';
import type { DiscoveryKind } from '../../schemas/records.js';
import { fingerprint64, hostFingerprintKeys, type HostFingerprint } from '../../url/fingerprint.js';
import { focusRank } from '../../focus/rank.js';

export type UrlPhase = 'ready' | 'in-flight' | 'waiting' | 'stopped';

export interface UrlState {
  url: string;
  depth: number;
  via: DiscoveryKind;
  source_url: string;
  redirect_hops: number;
  discovered_at: number;
  /** Discoveries from other pages so far (dedup reports them at 1, 2, 4, 8, …). */
  inlinks: number;
  priority_hint: number;
  changefreq: string;
  lastmod: number;
  /** > 0: a sitemap to fetch at this nesting depth. */
  sitemap_depth: number;
  phase: UrlPhase;
  /** Sequence number of its queue entry (ready or waiting), to find the entry again. */
  queue_seq: number;
  /** The rank (ready) or due time (waiting) its queue entry was written with. */
  queue_rank: number;
  attempt: number;
  etag: string;
  last_modified: string;
  sha1: string;
  interval_ms: number;
  next_due_at: number;
  fetches: number;
  changes: number;
  /** Consecutive 404/410 answers. */
  gone: number;
  /** When the body whose digest is `sha1` was fetched (a 304's WARC revisit refers to it); 0 when unknown. */
  captured_at: number;
  /** A focused crawl's best score of the URL, 0–1 (it ranks the URL: focus/rank.ts); -1 when not scored. */
  score: number;
  /** Times a lease holding it was given up as lost (no report came): released again once, then skipped. */
  lost: number;
}

export type UrlKey = HostFingerprint;

export function urlKey(host: string, url: string): UrlKey {
  return { host, ...fingerprint64(url) };
}

const FIELDS = [
  { name: 'url', type: 'string' }, { name: 'depth', type: 'int' }, { name: 'via', type: 'string' },
  { name: 'source_url', type: 'string' }, { name: 'redirect_hops', type: 'int' }, { name: 'discovered_at', type: 'long' },
  { name: 'inlinks', type: 'int' }, { name: 'priority_hint', type: 'double' }, { name: 'changefreq', type: 'string' },
  { name: 'lastmod', type: 'long' }, { name: 'sitemap_depth', type: 'int' }, { name: 'phase', type: 'string' },
  { name: 'queue_seq', type: 'long' }, { name: 'queue_rank', type: 'long' }, { name: 'attempt', type: 'int' },
  { name: 'etag', type: 'string' }, { name: 'last_modified', type: 'string' }, { name: 'sha1', type: 'string' },
  { name: 'interval_ms', type: 'long' }, { name: 'next_due_at', type: 'long' }, { name: 'fetches', type: 'int' },
  { name: 'changes', type: 'int' }, { name: 'gone', type: 'int' },
];
/** Fields appended since the first layout, in order, each with a default: values stored before them still read. */
const ADDED = [{ name: 'captured_at', type: 'long', default: 0 }, { name: 'score', type: 'float', default: -1 }, { name: 'lost', type: 'int', default: 0 }];

/**
 * Store values carry no schema id, so a value written before a field was appended is shorter than
 * the current layout: it fails to decode as such (truncated), and is then read with each older
 * layout in turn, newest first, and the added fields' defaults (Avro schema resolution).
 */
function urlStateValues(): ValueCodec<UrlState> {
  const schema = (fields: object[]) => ({ type: 'record', name: 'UrlState', namespace: 'crawlstream.store', fields }) as avro.Schema;
  const current = avro.Type.forSchema(schema([...FIELDS, ...ADDED]));
  const older = ADDED.map((_, k) => current.createResolver(avro.Type.forSchema(schema([...FIELDS, ...ADDED.slice(0, ADDED.length - 1 - k)]))));
  return {
    encode: (v) => avroBytes(current, v),
    decode: (b) => {
      try {
        return current.fromBuffer(b) as UrlState;
      } catch (err) {
        for (const resolver of older) {
          try {
            return current.fromBuffer(b, resolver) as UrlState;
          } catch {
            // an older layout still
          }
        }
        throw err;
      }
    },
  };
}

export const urlsStore = defineStore<UrlKey, UrlState>({
  name: 'urls',
  description: 'Every URL the host queued: phase, importance, validators (ETag, Last-Modified, digest), recrawl interval and due time, change history.',
  keys: hostFingerprintKeys,
  values: urlStateValues(),
});

/**
 * Importance on one scale for new URLs and due recrawls, 0–255: in-links from other pages count by
 * their log (a hub linked from 60 pages outranks a leaf linked once, by a bounded margin), and a
 * sitemap's <priority> adds up to two steps; sitemaps themselves go first. Depth breaks ties in the
 * queue key, then arrival.
 */
export function rankOf(u: Pick<UrlState, 'inlinks' | 'priority_hint' | 'sitemap_depth' | 'fetches' | 'score'>): number {
  if (u.sitemap_depth > 0) return 255;
  if (u.score >= 0) return focusRank(u.score, u.inlinks);
  const links = Math.log2(Math.max(1, u.inlinks));
  const hint = u.priority_hint >= 0 ? 2 * Math.min(1, u.priority_hint) : 1;
  // A page never fetched is worth half an in-link doubling more than re-checking one as important:
  // without it, a host busy with due recrawls would starve its new pages of equal rank.
  const unseen = u.fetches === 0 ? 0.5 : 0;
  return Math.max(0, Math.min(254, Math.round(16 * (links + hint + unseen))));
}

/** The importance a fetch request carries, for analytics: in-link weight plus the sitemap hint. */
export function priorityOf(u: Pick<UrlState, 'inlinks' | 'priority_hint' | 'sitemap_depth' | 'fetches' | 'score'>): number {
  return rankOf(u) / 16;
}

/** A sitemap named in robots.txt (or /sitemap.xml), queued to be fetched; a refetch keeps what is known. */
export function sitemapState(url: string, robotsUrl: string, now: number, known: UrlState | undefined): UrlState {
  return {
    url, depth: 0, via: 'sitemap', source_url: robotsUrl, redirect_hops: 0, discovered_at: now, inlinks: 1,
    priority_hint: -1, changefreq: '', lastmod: 0, sitemap_depth: 1, phase: 'ready', queue_seq: 0, queue_rank: 0, attempt: 1,
    etag: '', last_modified: '', sha1: known?.sha1 ?? '', captured_at: known?.captured_at ?? 0, interval_ms: 0, next_due_at: 0,
    fetches: known?.fetches ?? 0, changes: 0, gone: 0, score: -1, lost: 0,
  };
}
