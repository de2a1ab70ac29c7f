// Streams the entries out of an XML sitemap (<urlset>), a sitemap index (<sitemapindex>), an RSS 2.0
// feed (<rss><channel><item>) or an Atom feed (<feed><entry>) with htmlparser2 in xmlMode: a feed is
// read as a sitemap is (sitemaps.org accepts both as sitemaps), with the same bounds. htmlparser2 never reads a DTD: <!DOCTYPE> and <!ENTITY> are skipped as
// declarations, so external entities (XXE) are never fetched and user entities (billion laughs) stay
// the literal text "&name;". It is lenient like the sitemap readers of search engines: a raw "&" in a
// URL, a missing namespace or an unclosed tag does not lose the entries around it.
//
// Memory stays bounded by two cut-offs, both decided on positions in the text so that the outcome
// does not depend on how the input was chunked:
// - htmlparser2 streams text, but holds a tag, comment, CDATA section or declaration whole until it
//   ends; a node longer than MAX_MARKUP_CHARS stops the parse (checked on each event, and after each
//   write for a node still open).
// - it keeps a stack of open elements; nesting deeper than MAX_XML_DEPTH stops the parse.
// Captured field text is itself capped (FIELD_CAP), so a giant <loc> is cut and reported, not kept.
import { Parser } from 'htmlparser2';
import { MAX_URL_LENGTH } from './location-rule.js';

/** A sitemap needs depth 3 (urlset/url/loc); extensions (image, video, news) reach 4 or 5. */
export const MAX_XML_DEPTH = 32;
/** Longest tag, comment, CDATA section or declaration, in UTF-16 code units. */
export const MAX_MARKUP_CHARS = 64 * 1024;
/** Whitespace allowed around a <loc> value beyond the URL length cap before it counts as too long. */
const LOC_SLACK = 256;
const FIELD_CAP = 128;

export type XmlRootKind = 'urlset' | 'sitemapindex' | 'rss' | 'atom' | 'rdf' | 'unknown';

export interface RawEntry {
  /** <url> in a urlset, <sitemap> in an index, <item> in an RSS feed, <entry> in an Atom feed. */
  element: 'url' | 'sitemap' | 'item' | 'entry';
  /** Trimmed text of the first <loc> (RSS: <link>, else a permalink <guid>; Atom: the alternate <link href>); '' when absent. */
  loc: string;
  /** The <loc> text ran past the cap and was cut. */
  locTooLong: boolean;
  /** <lastmod>; RSS <pubDate> (RFC 822); Atom <updated>, else <published> (RFC 3339). */
  lastmod?: string;
  changefreq?: string;
  priority?: string;
}

export interface XmlSink {
  /** The first element was seen; the sink may stop() the reader when it is not a sitemap. */
  root(kind: XmlRootKind, name: string): void;
  entry(entry: RawEntry): void;
  /** An entry of the wrong family (<url> in an index, <sitemap> in a urlset), skipped. */
  misplaced(name: string): void;
  /** The input ended inside an entry (usually a truncated download). */
  unfinished(element: string): void;
  error(message: string): void;
  /** The reader stopped itself because a memory bound was hit. */
  cut(limit: 'max-markup' | 'max-depth', message: string): void;
}

type Field = 'loc' | 'lastmod' | 'changefreq' | 'priority' | 'guid' | 'published';

/** Where a document kind keeps its entries: their element and depth, and which children are read as which field. */
interface Layout {
  entries: Record<string, RawEntry['element']>;
  depth: number;
  /** The element between the root and the entries (RSS's <channel>). */
  via?: string;
  fields: Record<string, Field>;
}

const SITEMAP_FIELDS: Record<string, Field> = { loc: 'loc', lastmod: 'lastmod', changefreq: 'changefreq', priority: 'priority' };
const LAYOUTS: Partial<Record<XmlRootKind, Layout>> = {
  urlset: { entries: { url: 'url', sitemap: 'sitemap' }, depth: 2, fields: SITEMAP_FIELDS },
  sitemapindex: { entries: { url: 'url', sitemap: 'sitemap' }, depth: 2, fields: SITEMAP_FIELDS },
  rss: { entries: { item: 'item' }, depth: 3, via: 'channel', fields: { link: 'loc', pubdate: 'lastmod', guid: 'guid' } },
  atom: { entries: { entry: 'entry' }, depth: 2, fields: { updated: 'lastmod', published: 'published' } },
};

export class XmlSitemapReader {
  private readonly parser: Parser;
  private written = 0;
  private depth = 0;
  private stopped = false;
  private ending = false;
  private rootKind: XmlRootKind | undefined;
  private rootClosed = false;
  private prefix = '';
  private layout: Layout | undefined;
  private entry: (RawEntry & { published?: string }) | undefined;
  /** An RSS <guid> that is a permalink, used when an item has no <link>. */
  private guid = '';
  private guidIsPermaLink = true;
  private field: Field | undefined;
  private text = '';
  private textTooLong = false;
  private seenDoctype = false;
  private seenAfterRoot = false;

  constructor(private readonly sink: XmlSink) {
    this.parser = new Parser(
      {
        onopentag: (name, attribs) => this.guard() && this.open(name, attribs),
        onclosetag: (name) => this.guard() && this.close(name),
        ontext: (text) => this.onText(text),
        oncomment: () => this.guard(),
        oncdatastart: () => this.guard(),
        onprocessinginstruction: (name) => this.guard() && this.declaration(name),
      },
      { xmlMode: true, decodeEntities: true },
    );
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  write(text: string): void {
    if (this.stopped) return;
    this.written += text.length;
    this.parser.write(text);
    this.checkOpenNode();
  }

  end(): void {
    if (this.stopped) return;
    this.checkOpenNode();
    if (this.stopped) return;
    if (this.entry !== undefined) this.sink.unfinished(this.entry.element);
    else if (this.rootKind !== undefined && !this.rootClosed && this.depth > 0) {
      this.sink.error(`xml: the file ended before </${this.rootKind}> (truncated?)`);
    }
    // htmlparser2 closes the open elements at the end; those implied closes are not real entries.
    this.ending = true;
    this.parser.end();
    this.stopped = true;
  }

  /** Stops at once: nothing more is emitted, not even by the rest of the current write. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.parser.pause();
  }

  private cut(limit: 'max-markup' | 'max-depth', message: string): false {
    this.stop();
    this.sink.cut(limit, message);
    return false;
  }

  /** Refuses a node that htmlparser2 had to hold whole for too long. */
  private guard(): boolean {
    if (this.stopped || this.ending) return false;
    const span = this.parser.endIndex - this.parser.startIndex + 1;
    if (span > MAX_MARKUP_CHARS) return this.cut('max-markup', markupMessage());
    return true;
  }

  private checkOpenNode(): void {
    if (this.stopped) return;
    // parser.startIndex is where the node still being read began: all of it is buffered.
    if (this.written - this.parser.startIndex > MAX_MARKUP_CHARS) this.cut('max-markup', markupMessage());
  }

  private localName(name: string): string | undefined {
    const colon = name.indexOf(':');
    const prefix = colon < 0 ? '' : name.slice(0, colon);
    return prefix === this.prefix ? name.slice(colon + 1).toLowerCase() : undefined;
  }

  private open(name: string, attribs: Record<string, string>): boolean {
    this.depth++;
    if (this.depth > MAX_XML_DEPTH) {
      return this.cut('max-depth', `xml: elements nested deeper than ${MAX_XML_DEPTH}; parsing stopped`);
    }
    if (this.depth === 1) {
      if (this.rootKind === undefined) this.openRoot(name);
      else if (!this.seenAfterRoot) {
        this.seenAfterRoot = true;
        this.sink.error(`xml: content after the root element (<${shortName(name)}>) ignored`);
      }
      return true;
    }
    const layout = this.layout;
    if (this.rootClosed || layout === undefined) return true;
    const local = this.localName(name);
    if (local === undefined) return true;
    if (layout.via !== undefined && this.depth === layout.depth - 1 && local === layout.via) this.containerOpen = true;
    if (this.depth === layout.depth && this.entry === undefined && this.inContainer && local in layout.entries) {
      const element = layout.entries[local];
      if (this.rootKind === 'sitemapindex' ? element === 'sitemap' : this.rootKind !== 'urlset' || element === 'url') {
        this.entry = { element, loc: '', locTooLong: false };
        this.guid = '';
        this.guidIsPermaLink = true;
      } else this.sink.misplaced(local);
    } else if (this.depth === layout.depth + 1 && this.entry !== undefined) {
      if (this.rootKind === 'atom' && local === 'link') this.atomLink(attribs);
      const field = layout.fields[local];
      if (field !== undefined) {
        if (field === 'guid') this.guidIsPermaLink = (attribs.isPermaLink ?? attribs.ispermalink ?? 'true').trim().toLowerCase() !== 'false';
        this.field = field;
        this.text = '';
        this.textTooLong = false;
      }
    }
    return true;
  }

  /** RSS items live in <channel>; the other kinds' entries sit right under the root. */
  private get inContainer(): boolean {
    return this.layout?.via === undefined || this.containerOpen;
  }

  private containerOpen = false;

  /** Atom: the entry's page is its first <link> with rel alternate (or no rel). */
  private atomLink(attribs: Record<string, string>): void {
    const entry = this.entry!;
    const rel = (attribs.rel ?? 'alternate').trim().toLowerCase();
    if (rel !== 'alternate' || entry.loc !== '' || entry.locTooLong || attribs.href === undefined) return;
    const href = attribs.href.trim();
    entry.locTooLong = href.length > MAX_URL_LENGTH;
    entry.loc = entry.locTooLong ? '' : href;
  }

  private openRoot(name: string): void {
    const colon = name.indexOf(':');
    this.prefix = colon < 0 ? '' : name.slice(0, colon);
    const local = name.slice(colon + 1).toLowerCase();
    this.rootKind =
      local === 'urlset' || local === 'sitemapindex' || local === 'rss'
        ? local
        : local === 'rdf'
          ? 'rdf'
          : local === 'feed'
            ? 'atom'
            : 'unknown';
    this.layout = LAYOUTS[this.rootKind];
    this.sink.root(this.rootKind, shortName(name));
  }

  private close(_name: string): boolean {
    const depth = this.depth--;
    if (this.rootClosed) return true;
    const layout = this.layout;
    if (depth === 1) {
      this.rootClosed = true;
    } else if (layout === undefined) {
      return true;
    } else if (depth === layout.depth && this.entry !== undefined) {
      const entry = this.entry;
      this.entry = undefined;
      if (entry.loc === '' && !entry.locTooLong && this.guidIsPermaLink && /^https?:\/\//i.test(this.guid)) entry.loc = this.guid;
      if (entry.lastmod === undefined && entry.published !== undefined) entry.lastmod = entry.published;
      delete entry.published;
      this.sink.entry(entry);
    } else if (depth === layout.depth + 1 && this.field !== undefined && this.entry !== undefined) {
      this.saveField(this.entry, this.field);
      this.field = undefined;
    } else if (layout.via !== undefined && depth === layout.depth - 1) {
      this.containerOpen = false;
    }
    return true;
  }

  private saveField(entry: RawEntry & { published?: string }, field: Field): void {
    const value = this.text.trim();
    this.text = '';
    if (field === 'guid') {
      if (this.guid === '' && !this.textTooLong) this.guid = value;
    } else if (field === 'loc') {
      // The first <loc> wins; a second one in the same entry is ignored.
      if (entry.loc === '' && !entry.locTooLong) {
        entry.loc = this.textTooLong ? '' : value;
        entry.locTooLong = this.textTooLong || value.length > MAX_URL_LENGTH;
      }
    } else if (entry[field] === undefined) {
      // An over-long value becomes '', which every field parser rejects: its cut prefix might look valid.
      entry[field] = this.textTooLong ? '' : value;
    }
  }

  private onText(text: string): void {
    if (this.stopped || this.ending || this.field === undefined || this.layout === undefined || this.depth !== this.layout.depth + 1) return;
    // Leading whitespace is skipped before it is kept, so indentation does not eat into the cap.
    const piece = this.text === '' ? text.trimStart() : text;
    if (piece === '' || this.textTooLong) return;
    const cap = this.field === 'loc' ? MAX_URL_LENGTH + LOC_SLACK : FIELD_CAP;
    if (this.text.length + piece.length > cap) {
      this.textTooLong = true;
      this.text = (this.text + piece).slice(0, cap);
    } else this.text += piece;
  }

  private declaration(name: string): boolean {
    if (!this.seenDoctype && name.toLowerCase() === '!doctype') {
      this.seenDoctype = true;
      this.sink.error('xml: DOCTYPE ignored (entities are never expanded)');
    }
    return true;
  }
}

function markupMessage(): string {
  return `xml: a tag, comment or CDATA section is longer than ${MAX_MARKUP_CHARS} characters; parsing stopped`;
}

function shortName(name: string): string {
  return name.length > 40 ? name.slice(0, 40) + '…' : name;
}
