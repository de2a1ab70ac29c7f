// parse: fetched → parsed, and links and redirect targets → discovered-urls. Links are keyed by
// their own host: writing them to discovered-urls is the repartition that carries each URL to the
// task that owns its host. A page's links to one host travel as one record (a batch, url-batch.ts).
import { defineProcessor, type Processor, type ProcessorContext, type RecordOf, type TopicValues } from '../../engine/api.js';
import { NO_HINTS, type DiscoveredEntry, type DiscoveredUrl, type FetchResult, type ParsedPage } from '../../schemas/records.js';
import type { CrawlConfig } from '../../contract/config.js';
import { discoveredUrls, fetched, parsed, skipped } from '../../contract/topics.js';
import { MAX_LINKS_PER_PAGE } from '../../parsing/extract-page.js';
import { analyzeBody, type BodyAnalysis, type BodyInput } from '../../parsing/analyze-body.js';
import type { ParserModule } from '../../parsing/parser-module.js';
import { ParseTimeoutError, type ParsePool } from '../../parsing/parse-pool.js';
import { canonicalize, hostKey } from '../../url/canonicalize.js';
import { plainHost } from '../../url/url-host.js';
import type { PdfPool } from '../../pdf/pdf-pool.js';
import { analyzeOther } from './content-route.js';
import { discoveredBatches, groupBy } from '../../contract/url-batch.js';
import type { FocusResult, FocusScorer } from '../../focus/focus-scorer.js';
import { scoreOfRank } from '../../focus/rank.js';

/** On every parsed row; parse/2: one streaming pass, visible text, simhash over the main content. */
export const PARSER_VERSION = 'parse/2';
/**
 * Only the first 1 MB of a page is parsed: parsing is synchronous, and a 10 MB page would hold
 * the event loop (timers, sockets, commits of every task) for seconds; 1 MB costs ~150 ms.
 */
export const MAX_PARSE_BYTES = 1024 * 1024;

export interface ParseOptions {
  config: CrawlConfig;
  parserVersion: string;
  /** A user's parsing step applied after ours (replay --parser-module). */
  parserModule?: ParserModule;
  /** Worker threads that do the parsing; without them (tests) it runs inline. */
  pool?: ParsePool;
  /** Worker threads that read PDFs, bounded in time and memory. */
  pdfPool?: PdfPool;
  /** A focused crawl's scorer for pages parsed in this thread (the parse workers judge the HTML they parse). */
  focus?: FocusScorer;
}

/** The routing key of a link, or undefined when it cannot be parsed (normalize never sees it). */
function linkHost(url: string): string | undefined {
  const plain = plainHost(url);
  if (plain !== undefined) return plain;
  try {
    return hostKey(new URL(url));
  } catch {
    return undefined;
  }
}

const inputs = [fetched] as const;
// A replay discards discovered-urls (engine/replay/replay-plan.ts): re-parsing never feeds the frontier.
// skipped: links over the per-page cap, and a hard-focused crawl's links of off-topic pages, not followed.
const outputs = [parsed, discoveredUrls, skipped] as const;
type In = TopicValues<typeof inputs>;
type Out = TopicValues<typeof outputs>;

export class Parse implements Processor<In, Out> {
  /** The user's focus module failed once already: said once, counted always. */
  private moduleFailed = false;

  constructor(private readonly options: ParseOptions) {}

  async process(record: RecordOf<In>, ctx: ProcessorContext<Out>): Promise<void> {
    const { config } = this.options;
    const r = record.value;
    if (r.kind !== 'page') return; // robots.txt and sitemaps are read where they are fetched
    const now = ctx.now();
    if (r.status >= 300 && r.status < 400 && r.final_url !== r.url) {
      // A focused crawl's redirect target inherits the score the redirecting URL was fetched with.
      const score = this.options.focus ? scoreOfRank(r.priority * 16) : -1;
      this.discover(ctx, [{ url: r.final_url, anchor: '', ...NO_HINTS, score }], r, r.depth, 'redirect', r.redirect_hops + 1, now);
      return;
    }
    if (r.status < 200 || r.status >= 300) return;
    // A rendered page is read from its DOM after scripts ran (links written by JavaScript included);
    // its static HTML stays in the record, so a replay needs no browser.
    const rendered = r.rendered_body.length > 0;
    const input: BodyInput = {
      body: rendered ? r.rendered_body : r.body, bodyEncoding: rendered ? r.rendered_encoding : r.body_encoding,
      contentType: rendered ? 'text/html' : r.content_type, charset: rendered ? 'utf-8' : r.charset, url: r.final_url,
      productToken: config.productToken, maxBodyBytes: config.maxBodyBytes, maxParseBytes: MAX_PARSE_BYTES,
    };
    const other = rendered ? undefined : await analyzeOther(r, config.maxBodyBytes, this.options.pdfPool);
    // No other route took it: the body is HTML whatever its header said (HTML served as a PDF).
    const a = other ?? await this.analyzeHtml({ ...input, contentType: 'text/html' }, r.url, ctx);
    if (a.kind === 'unreadable') ctx.metrics.count('errors.stored-body');
    else if (a.kind === 'other') ctx.metrics.count('not-parsed');
    else ctx.metrics.count(a.kind === 'html' ? 'pages' : `pages.${a.kind}`);
    if (a.truncated) ctx.metrics.count('parse-truncated');
    if (a.error.startsWith('parser-module')) ctx.metrics.count('errors.parser-module');
    const judged = this.judge(a, r.final_url, ctx);
    const page: ParsedPage = {
      fetch_id: r.fetch_id, url: r.url, host: r.host, depth: r.depth, status: r.status, final_url: r.final_url,
      fetched_at: r.started_at, content_type: r.content_type, title: a.title, canonical: a.canonical, lang: a.lang,
      meta_noindex: a.metaNoindex, meta_nofollow: a.metaNofollow, text_length: a.textLength, content_hash: a.contentHash,
      simhash: Buffer.from(a.simhash.buffer, a.simhash.byteOffset, a.simhash.byteLength), links: a.links,
      parser_version: this.options.parserVersion, error: a.error, text: a.text,
      relevance: judged?.relevance ?? -1, focus_threshold: judged ? this.options.focus!.threshold : -1,
    };
    ctx.forward('parsed', r.host, page);
    if ((a.kind !== 'html' && a.kind !== 'pdf') || a.metaNofollow) return;
    // A recrawl that found the page as it was finds the links it had: they are known already.
    if (r.via === 'recrawl' && !r.changed) return;
    const depth = r.depth + 1;
    if (depth > config.maxDepth) return;
    // Feeds the page names are fetched as sitemaps are (through the host's slot, bounded, read
    // streaming); sent before the links, so that a feed also linked with <a> is still read as a feed.
    if (config.sitemaps && a.feeds?.length) {
      ctx.metrics.count('feeds-found', a.feeds.length);
      this.discover(ctx, a.feeds.map((url) => ({ url, anchor: '', ...NO_HINTS, sitemap_depth: 1 })), r, depth, 'link', 0, now);
    }
    const followed = a.links.flatMap((l, i) => (l.nofollow ? [] : [{ url: l.url, anchor: l.anchor, ...NO_HINTS, score: judged?.linkScores[i] ?? -1 }]));
    if (judged && this.dropsLinksOf(r, judged)) return this.skipLinks(ctx, followed, r, judged.relevance, depth, now);
    this.discover(ctx, followed, r, depth, 'link', 0, now);
    if (a.linksCut) {
      ctx.metrics.count('links.cut', a.linksCut);
      this.skip(ctx, r, r.final_url, depth, 'links-per-page',
        `the page has more than ${MAX_LINKS_PER_PAGE} links: the first ${a.links.length} were kept, at least ${a.linksCut} more were not followed`, now);
    }
  }

  /** Work a cap dropped, as a `skipped` row (keyed by the URL's own host, as the table is). */
  private skip(ctx: ProcessorContext<Out>, from: FetchResult, url: string, depth: number, reason: string, detail: string, now: number): void {
    const host = linkHost(url) ?? from.host;
    ctx.forward('skipped', host, { url, host, reason, detail, depth, source_url: from.url, decided_at: now });
  }

  /**
   * A focused crawl's judgement of a page with text: from the parse worker, or made here (PDFs, plain
   * text, a failed worker). A page the user's module failed on is recorded with the error, unjudged.
   */
  private judge(a: BodyAnalysis, url: string, ctx: ProcessorContext<Out>): FocusResult | undefined {
    const focus = this.options.focus;
    if (!focus || (a.kind !== 'html' && a.kind !== 'pdf' && a.kind !== 'text')) return undefined;
    const judged = a.focus ?? focus.score({ url, title: a.title, text: a.text, links: a.links });
    if (judged.error) {
      ctx.metrics.count('errors.focus-module');
      if (!this.moduleFailed) ctx.logger.warn(`parse: ${judged.error} (on ${url}; such pages are recorded unjudged, with the error in parsed_pages.error, and their links followed unscored)`);
      this.moduleFailed = true;
      if (!a.error) a.error = judged.error;
      return undefined;
    }
    ctx.metrics.count('focus.judged');
    if (judged.relevance >= focus.threshold) ctx.metrics.count('focus.relevant');
    return judged;
  }

  /** Hard focus follows the links of the seeds and of pages on the topic only. */
  private dropsLinksOf(r: FetchResult, judged: FocusResult): boolean {
    const focus = this.options.focus!;
    return focus.spec.mode === 'hard' && r.depth > 0 && judged.relevance < focus.threshold;
  }

  /** Each link not followed is a `skipped` row, with the page's relevance as the reason's detail. */
  private skipLinks(ctx: ProcessorContext<Out>, links: DiscoveredEntry[], from: FetchResult, relevance: number, depth: number, now: number): void {
    const detail = `page relevance ${relevance.toFixed(3)} < threshold ${this.options.focus!.threshold}`;
    ctx.metrics.count('focus.links-dropped', links.length);
    for (const l of links) {
      const c = canonicalize(l.url, { maxLength: this.options.config.maxUrlLength });
      if (c.ok) ctx.forward('skipped', c.host, { url: c.url, host: c.host, reason: 'focus-off-topic', detail, depth, source_url: from.url, decided_at: now });
    }
  }

  /** One discovered-urls record per host key (more when a host's share is over the batch bound). */
  private discover(ctx: ProcessorContext<Out>, found: DiscoveredEntry[], from: FetchResult, depth: number,
    via: DiscoveredUrl['via'], hops: number, now: number): void {
    const routable: { host: string; entry: DiscoveredEntry }[] = [];
    for (const entry of found) {
      const host = linkHost(entry.url);
      if (host) routable.push({ host, entry });
      else ctx.metrics.count('links.unroutable');
    }
    if (routable.length > 0) ctx.metrics.count('urls-discovered', routable.length);
    const shared = { source_url: from.url, depth, via, redirect_hops: hops, discovered_at: now };
    for (const [host, group] of groupBy(routable, (g) => g.host)) {
      for (const batch of discoveredBatches(shared, group.map((g) => g.entry))) ctx.forward('discovered-urls', host, batch);
    }
  }

  /** HTML goes to the parse workers; PDFs and plain text took their own path before this. */
  private async analyzeHtml(input: BodyInput, url: string, ctx: ProcessorContext<Out>): Promise<BodyAnalysis> {
    if (!this.options.pool) return analyzeBody(input, this.options.parserModule);
    // A worker that died takes its pages with it: parse them here rather than lose them. A page that
    // overran its bound is not parsed again here, where it could hold the event loop as long.
    return this.options.pool.analyze(input).catch((err: Error) => {
      if (err instanceof ParseTimeoutError) {
        ctx.metrics.count('parse-timeouts');
        ctx.logger.warn(`parse: ${url}: ${err.message}; recorded with the error, its links not followed`);
        return overran(err, this.options.parserModule !== undefined);
      }
      ctx.metrics.count('parse-worker-failures');
      ctx.logger.warn(`parse: a worker thread failed on ${url} (${err.message}); parsed in the main thread instead`);
      return analyzeBody(input, this.options.parserModule);
    });
  }
}

/** A page whose parse overran: nothing extracted, the reason in `error` (a parser module's when one is loaded). */
function overran(err: ParseTimeoutError, withModule: boolean): BodyAnalysis {
  return {
    kind: 'html', error: `${withModule ? 'parser-module: timeout' : 'parse-timeout'}: ${err.message}`, truncated: false, title: '', canonical: '',
    lang: '', metaNoindex: false, metaNofollow: false, textLength: 0, text: '', contentHash: '', simhash: new Uint8Array(8), links: [],
  };
}

export const parseProcessor = defineProcessor({
  name: 'parse',
  description: 'One streaming htmlparser2 pass: title, canonical, meta robots, links (base href, nofollow), visible text, content hash, 64-bit simhash of the main content; redirects re-enter as discovered URLs. A focused crawl judges each page and scores each link it follows.',
  inputs,
  outputs,
  stores: [],
  // Pages are parsed in worker threads, many at a time; the order of parsed records does not matter.
  concurrency: { maxInFlight: 64, perKeyOrder: false },
  delivery: 'Stateless and deterministic: re-parsing a fetched record (after a crash or in a replay) gives the same page record.',
  create: (s: { config: CrawlConfig; parsePool?: ParsePool; parserModule?: ParserModule; pdfPool?: PdfPool; focus?: FocusScorer }) => new Parse({
    config: s.config,
    parserVersion: s.parserModule ? `${PARSER_VERSION}+${s.parserModule.version}` : PARSER_VERSION,
    parserModule: s.parserModule,
    pool: s.parsePool,
    pdfPool: s.pdfPool,
    focus: s.focus,
  }),
});
