// parse: fetched → parsed, and links and redirect targets → discovered-urls. Links are keyed by
// their own host: writing them to discovered-urls is the repartition that carries each URL to the
// task that owns its host.
import { createHash } from 'node:crypto';
import type { InputRecord, Processor, ProcessorContext } from './api.js';
import { defineProcessor } from '../topology/topology.js';
import type { DiscoveredUrl, FetchResult, ParsedPage } from '../schemas/records.js';
import { decompressBody } from '../fetching/body-codec.js';
import { decodeHtml, looksLikeHtml } from '../parsing/decode-html.js';
import { extractPage } from '../parsing/extract-page.js';
import type { ParserModule } from '../parsing/parser-module.js';
import { hostKey } from '../url/canonicalize.js';
import { RecentSet } from './recent-set.js';

export const PARSER_VERSION = 'parse/1';
/**
 * Only the first 1 MB of a page is parsed: parsing is synchronous, and a 10 MB page would hold
 * the event loop (timers, sockets, commits of every task) for seconds; 1 MB costs ~150 ms.
 */
export const MAX_PARSE_BYTES = 1024 * 1024;
const ZERO_SIMHASH = Buffer.alloc(8);

export interface ParseOptions {
  /** Replays re-parse without feeding links back into the crawl. */
  emitLinks: boolean;
  parserVersion: string;
  /** A user's parsing step applied after ours (replay --parser-module). */
  parserModule?: ParserModule;
}

/** The routing key of a link, or undefined when it cannot be parsed (normalize never sees it). */
function linkHost(url: string): string | undefined {
  try {
    return hostKey(new URL(url));
  } catch {
    return undefined;
  }
}

export class Parse implements Processor<FetchResult> {
  /**
   * Links this task forwarded recently. Skipping a repeat is safe: the first copy is committed
   * before (or with) anything that could be lost, and dedup would drop the repeat anyway.
   */
  private readonly recent = new RecentSet(50_000);

  constructor(private readonly options: ParseOptions) {}

  process(record: InputRecord<FetchResult>, ctx: ProcessorContext): void {
    const r = record.value;
    if (r.kind === 'robots') return;
    const now = ctx.now();
    if (r.status >= 300 && r.status < 400 && r.final_url !== r.url) {
      if (this.options.emitLinks) this.discover(ctx, r.final_url, r, r.depth, '', 'redirect', r.redirect_hops + 1, now);
      return;
    }
    if (r.status < 200 || r.status >= 300) return;
    const page: ParsedPage = {
      fetch_id: r.fetch_id, url: r.url, host: r.host, depth: r.depth, status: r.status, final_url: r.final_url,
      fetched_at: r.started_at, content_type: r.content_type, title: '', canonical: '', lang: '', meta_noindex: false,
      meta_nofollow: false, text_length: 0, content_hash: '', simhash: ZERO_SIMHASH, links: [],
      parser_version: this.options.parserVersion, error: '',
    };
    let body: Buffer;
    try {
      body = decompressBody(r.body_encoding, r.body, ctx.config.maxBodyBytes);
    } catch (err) {
      page.error = `stored-body: ${(err as Error).message}`;
      ctx.metrics.count('errors.stored-body');
      ctx.forward('parsed', r.host, page);
      return;
    }
    if (!looksLikeHtml(r.content_type, body)) {
      page.content_hash = createHash('sha1').update(body).digest('hex');
      page.text_length = 0;
      ctx.metrics.count('not-html');
      ctx.forward('parsed', r.host, page);
      return;
    }
    if (body.length > MAX_PARSE_BYTES) {
      body = body.subarray(0, MAX_PARSE_BYTES);
      ctx.metrics.count('parse-truncated');
    }
    const { html } = decodeHtml(body, r.charset);
    let extract = extractPage(html, r.final_url, ctx.config.productToken);
    if (this.options.parserModule) {
      try {
        extract = this.options.parserModule.transform(extract, { url: r.final_url, html });
      } catch (err) {
        page.error = `parser-module: ${(err as Error).message}`;
        ctx.metrics.count('errors.parser-module');
      }
    }
    page.title = extract.title;
    page.canonical = extract.canonical;
    page.lang = extract.lang;
    page.meta_noindex = extract.metaNoindex;
    page.meta_nofollow = extract.metaNofollow;
    page.text_length = extract.textLength;
    page.content_hash = extract.contentHash;
    page.simhash = extract.simhash;
    page.links = extract.links;
    ctx.metrics.count('pages');
    ctx.forward('parsed', r.host, page);
    if (!this.options.emitLinks || extract.metaNofollow) return;
    const depth = r.depth + 1;
    if (depth > ctx.config.maxDepth) return;
    for (const link of extract.links) {
      if (link.nofollow) continue;
      this.discover(ctx, link.url, r, depth, link.anchor, 'link', 0, now);
    }
  }

  private discover(ctx: ProcessorContext, url: string, from: FetchResult, depth: number, anchor: string,
    via: DiscoveredUrl['via'], hops: number, now: number): void {
    if (via === 'link' && !this.recent.addIfAbsent(url)) return;
    const host = linkHost(url);
    if (!host) {
      ctx.metrics.count('links.unroutable');
      return;
    }
    const out: DiscoveredUrl = { url, source_url: from.url, depth, anchor, via, redirect_hops: hops, discovered_at: now };
    ctx.forward('discovered-urls', host, out);
  }
}

export const parseProcessor = defineProcessor({
  name: 'parse',
  description: 'cheerio over htmlparser2: title, canonical, meta robots, links (base href, nofollow), text length, content hash, 64-bit simhash; redirects re-enter as discovered URLs.',
  stores: [],
  delivery: 'Stateless and deterministic: re-parsing a fetched record (after a crash or in a replay) gives the same page record.',
  create: (env) => {
    const parserModule = env.resources.parserModule as ParserModule | undefined;
    return new Parse({
      emitLinks: (env.resources.emitLinks as boolean | undefined) ?? true,
      parserVersion: parserModule ? `${PARSER_VERSION}+${parserModule.version}` : PARSER_VERSION,
      parserModule,
    });
  },
});
