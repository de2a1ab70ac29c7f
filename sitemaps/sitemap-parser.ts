// Push-style sitemap parser: the fetcher feeds body chunks as they arrive and gets entries through
// callbacks, one at a time; the file is never held whole. Reads XML sitemaps (<urlset>), sitemap
// indexes (<sitemapindex>) and plain-text sitemaps, each optionally gzip-compressed (detected by the
// magic bytes, whatever the Content-Type), and RSS 2.0 and Atom feeds, whose entries are links to
// pages on any host, with their dates as lastmod. Limits of sitemaps.org are enforced per file:
// maxUrls entries and maxBytes of uncompressed data.
import { GunzipStream, GZIP_MAGIC_0, GZIP_MAGIC_1 } from './gunzip-stream.js';
import { parseChangefreq, parsePriority, parseRfc822Date, parseW3cDatetime, type SitemapEntry } from './entry-fields.js';
import { LocationRule, MAX_URL_LENGTH, type LocRejection, type LocVerdict } from './location-rule.js';
import { TextSitemapReader } from './text-reader.js';
import { XmlSitemapReader, type RawEntry, type XmlRootKind } from './xml-reader.js';
import { ErrorLog } from './error-log.js';

/**
 * Sitemaps deeper than this are not followed. Depth 1 is a sitemap named in robots.txt or given by
 * the operator; an index there names sitemaps at depth 2. sitemaps.org lets an index list sitemaps
 * only, not other indexes, so an index found at depth 2 has its entries counted and not reported.
 */
export const MAX_SITEMAP_DEPTH = 2;
export const DEFAULT_MAX_URLS = 50_000;
export const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;

export type SitemapKind = 'urlset' | 'sitemapindex' | 'text' | 'rss' | 'atom' | 'rdf' | 'unknown' | 'empty';
/** Which bound cut the file: the sitemaps.org limits, or the parser's own memory bounds. */
export type SitemapLimit = 'max-urls' | 'max-bytes' | 'max-markup' | 'max-depth';
/** Why an entry was not passed on: the location rule's verdicts, or an index too deep to follow. */
export type IgnoredReason = LocRejection | 'too-deep';

export interface SitemapParserOptions {
  /** Where the file was fetched from (after redirects); sets the location rule. */
  sitemapUrl: string;
  /** Host (hostKey spelling) whose URLs the file may list; defaults to the sitemapUrl's host. */
  host?: string;
  /** The file was named in robots.txt of `host`: any URL of that host is allowed. */
  fromRobots?: boolean;
  /** 1 for a sitemap from robots.txt or the operator, the index's depth + 1 for an index entry. */
  depth?: number;
  /** Entries per file (URLs, or sitemaps of an index), whatever their outcome. */
  maxUrls?: number;
  /** Uncompressed bytes per file. */
  maxBytes?: number;
  onUrl(entry: SitemapEntry): void;
  /** A child sitemap named by an index, same-site and within MAX_SITEMAP_DEPTH. */
  onSitemap(loc: string, lastmod?: number): void;
  /**
   * An entry not passed on, and why (every one the summary counts as ignored or invalid): the caller
   * records the dropped work instead of it vanishing. `loc` is '' when the entry had none.
   */
  onIgnored?(loc: string, reason: IgnoredReason, detail: string): void;
}

export interface SitemapSummary {
  kind: SitemapKind;
  compressed: boolean;
  /** URLs passed to onUrl. */
  urls: number;
  /** Child sitemaps passed to onSitemap. */
  sitemaps: number;
  /** Entries on a host other than the allowed one. */
  ignoredCrossHost: number;
  /** Entries on the right host but outside the sitemap's directory or scheme (not named in robots.txt). */
  ignoredOutOfPath: number;
  /** Index entries not followed because the index itself is at MAX_SITEMAP_DEPTH. */
  ignoredTooDeep: number;
  /** Entries without a usable <loc> (missing, malformed, not http(s), over 2,048 characters) or misplaced. */
  invalid: number;
  /** Optional fields (lastmod, changefreq, priority) dropped as malformed; their URLs were kept. */
  droppedFields: number;
  /**
   * Uncompressed bytes fed to the reader (at most maxBytes). When the parser stopped early (complete
   * false) the chunk it stopped in counts whole, so the figure then depends on the chunking.
   */
  bytes: number;
  /** The body was read to its end; false after a limit, corrupt gzip data, or a document that is not a sitemap. */
  complete: boolean;
  /** Set when a limit stopped the parse: entries after that point were not read. */
  cutBy?: SitemapLimit;
  /** '<kind>: message', kind one of format, xml, gzip, limit, entry, errors. */
  errors: string[];
}

export class SitemapParser {
  private readonly rule: LocationRule;
  private readonly maxUrls: number;
  private readonly maxBytes: number;
  private readonly depth: number;
  private readonly log = new ErrorLog();
  private readonly decoder = new TextDecoder('utf-8');
  private readonly summary: SitemapSummary;
  private head: Uint8Array | undefined = new Uint8Array(0);
  private gunzip: GunzipStream | undefined;
  private reader: XmlSitemapReader | TextSitemapReader | undefined;
  private entries = 0;
  private stopped = false;
  private ended = false;

  constructor(private readonly options: SitemapParserOptions) {
    this.rule = new LocationRule(options.sitemapUrl, options.host, options.fromRobots === true);
    this.maxUrls = positive(options.maxUrls, DEFAULT_MAX_URLS, 'maxUrls');
    this.maxBytes = positive(options.maxBytes, DEFAULT_MAX_BYTES, 'maxBytes');
    this.depth = positive(options.depth, 1, 'depth');
    this.summary = {
      kind: 'empty', compressed: false, urls: 0, sitemaps: 0, ignoredCrossHost: 0, ignoredOutOfPath: 0,
      ignoredTooDeep: 0, invalid: 0, droppedFields: 0, bytes: 0, complete: true, errors: [],
    };
  }

  /** The limit that stopped the parse, as soon as it did (before end()): the rest of the body is not wanted. */
  get cutBy(): SitemapLimit | undefined {
    return this.summary.cutBy;
  }

  /** True once the parser stopped reading (a limit, corrupt data, not a sitemap): stop the download. */
  get done(): boolean {
    return this.stopped || this.ended;
  }

  write(chunk: Uint8Array): void {
    if (this.ended) throw new Error('SitemapParser.write() after end()');
    if (this.stopped || chunk.length === 0) return;
    if (this.head !== undefined) {
      // The two gzip magic bytes may arrive in separate chunks; hold the first until the second comes.
      const head = concat(this.head, chunk);
      if (head.length < 2) {
        this.head = head;
        return;
      }
      this.head = undefined;
      if (head[0] === GZIP_MAGIC_0 && head[1] === GZIP_MAGIC_1) {
        this.summary.compressed = true;
        this.gunzip = new GunzipStream((data) => this.plain(data));
      }
      chunk = head;
    }
    if (this.gunzip === undefined) {
      this.plain(chunk);
      return;
    }
    const error = this.gunzip.write(chunk);
    if (error !== undefined) this.fail(error);
  }

  end(): SitemapSummary {
    if (this.ended) return this.summary;
    if (this.head !== undefined && this.head.length > 0 && !this.stopped) {
      const head = this.head;
      this.head = undefined;
      this.plain(head);
    }
    if (this.gunzip !== undefined && !this.stopped) {
      const error = this.gunzip.end();
      if (error !== undefined) this.fail(error);
    }
    this.ended = true;
    if (!this.stopped) {
      this.decode(this.decoder.decode());
      if (this.reader === undefined) this.log.add('format: the file is empty');
      else if (this.summary.kind === 'unknown') this.log.add('format: no root element (not an XML sitemap)');
      this.reader?.end();
    }
    this.summary.errors = this.log.list();
    return this.summary;
  }

  /** Takes uncompressed bytes; returns false once nothing more is wanted. */
  private plain(data: Uint8Array): boolean {
    if (this.stopped) return false;
    const room = this.maxBytes - this.summary.bytes;
    const over = data.length > room;
    if (over) data = data.subarray(0, room);
    this.summary.bytes += data.length;
    this.decode(this.decoder.decode(data, { stream: true }));
    if (over && !this.stopped) {
      this.cut('max-bytes', `limit: more than ${this.maxBytes} bytes${this.summary.compressed ? ' uncompressed' : ''}; the rest of the file is ignored`);
    }
    return !this.stopped;
  }

  private decode(text: string): void {
    if (this.stopped || text === '') return;
    if (this.reader === undefined) {
      // Leading whitespace decides nothing and is dropped rather than held.
      const start = text.search(/\S/);
      if (start < 0) return;
      text = text.slice(start);
      this.reader = text[0] === '<' ? this.xmlReader() : this.textReader();
    }
    this.reader.write(text);
  }

  private xmlReader(): XmlSitemapReader {
    this.summary.kind = 'unknown';
    return new XmlSitemapReader({
      root: (kind, name) => this.onRoot(kind, name),
      entry: (raw) => this.onEntry(raw),
      misplaced: (name) => {
        if (!this.countEntry()) return;
        this.invalid(`entry ${this.entries}: <${name}> does not belong in a <${this.summary.kind}>; skipped`);
      },
      unfinished: (element) => this.invalid(`xml: the file ended inside a <${element}> entry (truncated?); that entry is dropped`),
      error: (message) => this.log.add(message),
      cut: (limit, message) => this.cut(limit, message),
    });
  }

  private textReader(): TextSitemapReader {
    this.summary.kind = 'text';
    return new TextSitemapReader({
      line: (loc, tooLong) => this.onEntry({ element: 'url', loc, locTooLong: tooLong }),
    });
  }

  private onRoot(kind: XmlRootKind, name: string): void {
    this.summary.kind = kind;
    if (kind === 'urlset' || kind === 'sitemapindex' || kind === 'rss' || kind === 'atom') return;
    const message =
      kind === 'unknown'
        ? `format: root element <${name}> is none of <urlset>, <sitemapindex>, <rss> and <feed>; no URLs taken`
        : 'format: RSS 1.0 (RDF) feeds are not read (RSS 2.0 and Atom are); no URLs taken';
    this.fail(message);
  }

  private onEntry(raw: RawEntry): void {
    if (!this.countEntry()) return;
    const n = this.entries;
    const what = raw.element === 'url' ? 'URL' : 'sitemap';
    if (raw.locTooLong) return this.invalid(`entry ${n}: ${what} longer than ${MAX_URL_LENGTH} characters`, raw.loc.slice(0, MAX_URL_LENGTH));
    if (raw.loc === '') return this.invalid(`entry ${n}: <${raw.element}> without ${raw.element === 'item' ? '<link>' : raw.element === 'entry' ? '<link href>' : '<loc>'}`);
    if (raw.element === 'item' || raw.element === 'entry') return this.onFeedEntry(n, raw);
    const lastmod = this.field(n, 'lastmod', raw.lastmod, parseW3cDatetime);
    if (raw.element === 'sitemap') {
      if (this.depth >= MAX_SITEMAP_DEPTH) {
        const message = `format: this index is at depth ${this.depth}; indexes may list sitemaps, not other indexes, so its entries are not followed`;
        if (this.summary.ignoredTooDeep++ === 0) this.log.add(message);
        this.options.onIgnored?.(raw.loc, 'too-deep', message);
        return;
      }
      if (!this.accept(n, what, this.rule.checkSitemap(raw.loc), raw.loc)) return;
      this.summary.sitemaps++;
      this.options.onSitemap(raw.loc, lastmod);
      return;
    }
    if (!this.accept(n, what, this.rule.checkUrl(raw.loc), raw.loc)) return;
    const entry: SitemapEntry = { loc: raw.loc };
    if (lastmod !== undefined) entry.lastmod = lastmod;
    const changefreq = this.field(n, 'changefreq', raw.changefreq, parseChangefreq);
    if (changefreq !== undefined) entry.changefreq = changefreq;
    const priority = this.field(n, 'priority', raw.priority, parsePriority);
    if (priority !== undefined) entry.priority = priority;
    this.summary.urls++;
    this.options.onUrl(entry);
  }

  /** A feed's entry is a link to a page, on any host, dated by its publication or update. */
  private onFeedEntry(n: number, raw: RawEntry): void {
    if (!this.accept(n, 'link', this.rule.checkLink(raw.loc), raw.loc)) return;
    const entry: SitemapEntry = { loc: raw.loc };
    const name = raw.element === 'item' ? 'pubDate' : 'updated';
    const lastmod = this.field(n, name, raw.lastmod, raw.element === 'item' ? parseRfc822Date : parseW3cDatetime);
    if (lastmod !== undefined) entry.lastmod = lastmod;
    this.summary.urls++;
    this.options.onUrl(entry);
  }

  private accept(n: number, what: string, verdict: LocVerdict, loc: string): boolean {
    if (verdict.ok) return true;
    if (verdict.reason === 'invalid') {
      this.invalid(`entry ${n}: invalid ${what}: ${verdict.detail}`, loc);
      return false;
    }
    const first = verdict.reason === 'cross-host' ? this.summary.ignoredCrossHost++ === 0 : this.summary.ignoredOutOfPath++ === 0;
    if (first) this.log.add(`entry ${n}: ${what} ignored: ${verdict.detail} (first of its kind)`);
    this.options.onIgnored?.(loc, verdict.reason, verdict.detail);
    return false;
  }

  private field<T>(n: number, name: string, text: string | undefined, parse: (s: string) => T | undefined): T | undefined {
    if (text === undefined) return undefined;
    const value = parse(text);
    if (value === undefined) {
      this.summary.droppedFields++;
      const shown = text === '' ? 'is empty or too long' : `${JSON.stringify(text.slice(0, 40))} is malformed`;
      this.log.add(`entry ${n}: <${name}> ${shown}; dropped, URL kept`);
    }
    return value;
  }

  private invalid(message: string, loc = ''): void {
    this.summary.invalid++;
    this.log.add(message);
    this.options.onIgnored?.(loc, 'invalid', message);
  }

  /** Counts one more entry, or cuts the file when it would exceed maxUrls. */
  private countEntry(): boolean {
    if (this.stopped) return false;
    if (this.entries >= this.maxUrls) {
      this.cut('max-urls', `limit: more than ${this.maxUrls} entries; the rest of the file is ignored`);
      return false;
    }
    this.entries++;
    return true;
  }

  private cut(limit: SitemapLimit, message: string): void {
    if (this.stopped) return;
    this.summary.cutBy = limit;
    this.fail(message);
  }

  private fail(message: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.summary.complete = false;
    this.log.add(message);
    this.reader?.stop();
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
