// Streams the entries out of an XML sitemap (<urlset>) or sitemap index (<sitemapindex>) with
// htmlparser2 in xmlMode. htmlparser2 never reads a DTD: <!DOCTYPE> and <!ENTITY> are skipped as
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

export type XmlRootKind = 'urlset' | 'sitemapindex' | 'rss' | 'atom' | 'unknown';

export interface RawEntry {
  /** <url> in a urlset, <sitemap> in an index. */
  element: 'url' | 'sitemap';
  /** Trimmed text of the first <loc>; '' when absent. */
  loc: string;
  /** The <loc> text ran past the cap and was cut. */
  locTooLong: boolean;
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

type Field = 'loc' | 'lastmod' | 'changefreq' | 'priority';
const FIELDS: ReadonlySet<string> = new Set(['loc', 'lastmod', 'changefreq', 'priority']);

export class XmlSitemapReader {
  private readonly parser: Parser;
  private written = 0;
  private depth = 0;
  private stopped = false;
  private ending = false;
  private rootKind: XmlRootKind | undefined;
  private rootClosed = false;
  private prefix = '';
  private entry: RawEntry | undefined;
  private field: Field | undefined;
  private text = '';
  private textTooLong = false;
  private seenDoctype = false;
  private seenAfterRoot = false;

  constructor(private readonly sink: XmlSink) {
    this.parser = new Parser(
      {
        onopentag: (name) => this.guard() && this.open(name),
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

  private open(name: string): boolean {
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
    if (this.rootClosed || (this.rootKind !== 'urlset' && this.rootKind !== 'sitemapindex')) return true;
    const local = this.localName(name);
    if (this.depth === 2 && (local === 'url' || local === 'sitemap')) {
      if ((local === 'url') === (this.rootKind === 'urlset')) {
        this.entry = { element: local, loc: '', locTooLong: false };
      } else this.sink.misplaced(local);
    } else if (this.depth === 3 && this.entry !== undefined && local !== undefined && FIELDS.has(local)) {
      this.field = local as Field;
      this.text = '';
      this.textTooLong = false;
    }
    return true;
  }

  private openRoot(name: string): void {
    const colon = name.indexOf(':');
    this.prefix = colon < 0 ? '' : name.slice(0, colon);
    const local = name.slice(colon + 1).toLowerCase();
    this.rootKind =
      local === 'urlset' || local === 'sitemapindex'
        ? local
        : local === 'rss' || local === 'rdf'
          ? 'rss'
          : local === 'feed'
            ? 'atom'
            : 'unknown';
    this.sink.root(this.rootKind, shortName(name));
  }

  private close(_name: string): boolean {
    const depth = this.depth--;
    if (this.rootClosed) return true;
    if (depth === 1) {
      this.rootClosed = true;
    } else if (depth === 2 && this.entry !== undefined) {
      const entry = this.entry;
      this.entry = undefined;
      this.sink.entry(entry);
    } else if (depth === 3 && this.field !== undefined && this.entry !== undefined) {
      this.saveField(this.entry, this.field);
      this.field = undefined;
    }
    return true;
  }

  private saveField(entry: RawEntry, field: Field): void {
    const value = this.text.trim();
    this.text = '';
    if (field === 'loc') {
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
    if (this.stopped || this.ending || this.field === undefined || this.depth !== 3) return;
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
