import type { SinkInput } from '../rows.js';
// Synthetic crawl records for the ClickHouse tests and the report fixture (hosts under .test only).
import { createHash } from 'node:crypto';
import { PLAIN_RESULT, type Duplicate, type FetchResult, type ParsedPage, type SkippedUrl } from '../../schemas/records.js';

export type SourcedRecord = SinkInput & { partition: number; offset: number };

export function fetchResult(overrides: Partial<FetchResult> = {}): FetchResult {
  const url = overrides.url ?? 'http://a.test/';
  return {
    ...PLAIN_RESULT,
    fetch_id: 'a.test#1', url, host: new URL(url).host, kind: 'page', depth: 0, attempt: 1, via: 'seed', source_url: '',
    redirect_hops: 0, status: 200, error: '', final_url: url, redirect_chain: [], headers: { 'content-type': 'text/html' },
    started_at: Date.UTC(2026, 0, 1, 12, 0, 0), elapsed_ms: 40, ttfb_ms: 20, bytes: 1000, wire_bytes: 400,
    content_type: 'text/html', charset: 'utf-8', truncated: false, retry_after_ms: 0, conditional: false,
    remote_address: '127.0.0.1', body_encoding: 'identity', body: Buffer.alloc(0),
    ...overrides,
  };
}

export function parsedPage(overrides: Partial<ParsedPage> = {}): ParsedPage {
  const url = overrides.url ?? 'http://a.test/';
  return {
    fetch_id: 'a.test#1', url, host: new URL(url).host, depth: 0, status: 200, final_url: url,
    fetched_at: Date.UTC(2026, 0, 1, 12, 0, 0), content_type: 'text/html', title: 'A page', canonical: '', lang: 'en',
    meta_noindex: false, meta_nofollow: false, text_length: 500, content_hash: sha1(url), simhash: simhashOf(url),
    links: [], parser_version: 'test-1', error: '', text: '',
    ...overrides,
  };
}

export function duplicate(overrides: Partial<Duplicate> = {}): Duplicate {
  return {
    url: 'http://b.test/', host: 'b.test', fetch_id: 'b.test#1', duplicate_of: 'http://a.test/',
    duplicate_of_fetched_at: Date.UTC(2026, 0, 1, 12, 0, 0), kind: 'exact', distance: 0,
    detected_at: Date.UTC(2026, 0, 1, 12, 0, 1),
    ...overrides,
  };
}

export function skippedUrl(overrides: Partial<SkippedUrl> = {}): SkippedUrl {
  const url = overrides.url ?? 'http://c.test/private/x';
  return {
    url, host: new URL(url).host, reason: 'robots-disallowed', detail: 'Disallow: /private', depth: 1,
    source_url: 'http://a.test/', decided_at: Date.UTC(2026, 0, 1, 12, 0, 2),
    ...overrides,
  };
}

/** A stream of records over the four input topics of one partition, offsets counted per topic. */
export function recordStream(count: number, partition = 0, seed = 1): SourcedRecord[] {
  const rnd = prng(seed);
  const next = { fetched: 0, parsed: 0, duplicates: 0, skipped: 0 };
  const out: SourcedRecord[] = [];
  const push = (r: SinkInput) => out.push({ ...r, partition, offset: next[r.topic]++ });
  for (let i = 0; out.length < count; i++) {
    const host = `h${i % 17}.test`;
    const url = `http://${host}/p/${i}`;
    const fetchId = `${host}#${i}`;
    const t = Date.UTC(2026, 0, 1) + i * 37;
    if (i < 17) {
      push({ topic: 'fetched', value: fetchResult({ fetch_id: `${host}#r`, url: `http://${host}/robots.txt`, kind: 'robots', started_at: t, body: Buffer.from(`User-agent: *\nCrawl-delay: ${1 + (i % 3)}\nDisallow: /private\n`) }) });
      continue;
    }
    const status = rnd() < 0.9 ? 200 : 503;
    push({ topic: 'fetched', value: fetchResult({ fetch_id: fetchId, url, status, started_at: t, error: status === 200 ? '' : 'http: 503' }) });
    if (status === 200 && out.length < count) {
      push({ topic: 'parsed', value: parsedPage({ fetch_id: fetchId, url, fetched_at: t, title: `Page ${i} — “quoted” \\ 'x'`, links: [{ url: `http://h${(i + 1) % 17}.test/p/${i + 1}`, anchor: 'next', nofollow: false }] }) });
    }
    if (i % 10 === 0 && out.length < count) {
      push({ topic: 'duplicates', value: duplicate({ url, host, fetch_id: fetchId, duplicate_of: `http://h0.test/p/17`, detected_at: t + 1 }) });
    }
    if (i % 13 === 0 && out.length < count) {
      push({ topic: 'skipped', value: skippedUrl({ url: `http://${host}/private/${i}`, depth: 2, source_url: url, decided_at: t + 2 }) });
    }
  }
  return out.slice(0, count);
}

/** The rows each record should yield, as `${table}@${topic}/${offset}` keys. */
export function expectedRowKeys(records: SourcedRecord[]): string[] {
  const keys: string[] = [];
  for (const r of records) {
    if (r.topic === 'fetched') {
      keys.push(`fetches@${r.topic}/${r.offset}`);
      if (r.value.kind === 'robots') keys.push(`robots@${r.topic}/${r.offset}`);
    } else if (r.topic === 'parsed') keys.push(`parsed_pages@${r.topic}/${r.offset}`);
    else if (r.topic === 'duplicates') keys.push(`duplicates@${r.topic}/${r.offset}`);
    else keys.push(`skipped@${r.topic}/${r.offset}`);
  }
  return keys.sort();
}

export function sha1(s: string): string {
  return createHash('sha1').update(s).digest('hex');
}

export function simhashOf(s: string): Buffer {
  return createHash('sha256').update(s).digest().subarray(0, 8);
}

export function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x1_0000_0000;
  };
}
