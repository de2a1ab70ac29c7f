import { decodeHTML, decodeHTMLAttribute } from 'entities';
import { cap, collapse } from './collapse.js';
import { BoundedParser, PageTokenizer } from './page-tokenizer.js';
import { parseUrl, resolver } from './resolve-links.js';
import { isBoilerplate, isMainContent } from './main-content.js';
import { type Level, TextDigest } from './text-digest.js';
import { Utf16View } from './utf16-view.js';

export interface ExtractedLink { url: string; anchor: string; nofollow: boolean }

export interface PageExtract {
  title: string; // whitespace-collapsed, at most MAX_TITLE_LENGTH
  canonical: string; // absolute http(s) URL or ''
  lang: string; // lower-cased language tag or ''
  metaNoindex: boolean; // <meta name="robots"> or <meta name="<product token>">
  metaNofollow: boolean;
  links: ExtractedLink[];
  text: string; // visible text, whitespace-collapsed, cut to MAX_TEXT_BYTES (100 KB) of UTF-8
  textLength: number; // length of the whole visible text (UTF-16 code units), not cut
  contentHash: string; // hex SHA-1 of the UTF-8 of the whole visible text
  simhash: Buffer; // 8 bytes big-endian, over the main content when there is enough (simhash.ts)
  linksCut?: number; // links over MAX_LINKS_PER_PAGE (or raw hrefs over MAX_RAW_HREFS) not kept: at least this many
  /** RSS and Atom feeds the page names (<link rel=alternate type=application/rss+xml|atom+xml>), absolute, at most MAX_FEEDS. */
  feeds?: string[];
}

export const MAX_FEEDS = 8;
const ALTERNATE_REL = /(?:^|[\t\n\f\r ])alternate(?:$|[\t\n\f\r ])/i;
const FEED_TYPE = /^\s*application\/(?:rss|atom)\+xml\s*(?:;|$)/i;

export const MAX_LINKS_PER_PAGE = 5_000;
export const MAX_ANCHOR_LENGTH = 256;
export const MAX_TITLE_LENGTH = 1_024;
// Distinct raw hrefs kept while parsing; above MAX_LINKS_PER_PAGE because some will resolve to
// nothing (mailto:, javascript:) or to the same URL, yet bounded so a hostile page cannot make us
// resolve millions of URLs.
const MAX_RAW_HREFS = 4 * MAX_LINKS_PER_PAGE;

// Elements whose content is never visible text nor links: script and style are raw text; <template>
// content is inert; iframe, noembed and noframes content is raw text to a browser, though
// htmlparser2 parses it as markup.
const SKIPPED = new Set(['script', 'style', 'template', 'iframe', 'noembed', 'noframes']);
// Elements whose boundaries separate words ("<p>a</p><p>b</p>" reads "a b", "<b>a</b>b" reads "ab").
const BLOCKS = new Set(['address', 'article', 'aside', 'blockquote', 'br', 'caption', 'dd', 'details', 'dialog',
  'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'header', 'hgroup', 'hr', 'legend', 'li', 'main', 'nav', 'ol', 'optgroup', 'option', 'p', 'pre', 'section',
  'select', 'summary', 'table', 'tbody', 'td', 'textarea', 'tfoot', 'th', 'thead', 'tr', 'ul', 'button', 'label',
  'input', 'img', 'video', 'audio', 'canvas', 'svg', 'math', 'menu', 'center', 'body', 'head', 'html']);
// Elements that may hold a page's main content: the simhash votes with the one holding the most prose.
const CONTAINERS = new Set(['body', 'div', 'section', 'article', 'main', 'td', 'th', 'center', 'blockquote', 'aside',
  'header', 'footer', 'nav', 'form']);
// rel values that mean "do not vouch for / follow": nofollow, and Google's finer-grained ugc and
// sponsored, which are nofollow hints by definition; a polite crawler treats all three alike.
const NOFOLLOW_RELS = /(?:^|[\t\n\f\r ])(?:nofollow|ugc|sponsored)(?:$|[\t\n\f\r ])/i;
const CANONICAL_REL = /(?:^|[\t\n\f\r ])canonical(?:$|[\t\n\f\r ])/i;

// What an open element changed, undone when it closes.
const BLOCK = 1, HIDDEN = 2, BODY = 4, NOSCRIPT = 8, FOREIGN = 16, BOILERPLATE = 32, MAIN = 64, CONTAINER = 128;

interface RawLink { href: string; anchor: string; nofollow: boolean; full: boolean }

/**
 * One streaming (SAX) pass of htmlparser2 over the page: links, visible text with its length,
 * SHA-1 and simhash, title, canonical, lang and meta robots. No DOM is built. Never throws; a page
 * it cannot make sense of yields empty fields.
 *
 * Decisions worth knowing:
 * - links: a[href] only, resolved against the first <base href> (resolved against the page URL;
 *   ignored when unparsable, data: or javascript:, as browsers do) else the page URL; http(s)
 *   only; fragments are kept (normalization is the next stage's job). Deduplicated by resolved
 *   URL: the first occurrence's anchor text wins, and the link is nofollow only if every
 *   occurrence is. `nofollow` reflects the link's own rel (nofollow/ugc/sponsored); the page-level
 *   <meta robots nofollow> is reported separately in `metaNofollow`, and the caller combines them.
 * - links inside <noscript> are kept (a crawler is a client without scripts, and infinite-scroll
 *   fallbacks live there) although their text is not part of `text`.
 * - anchor text includes the alt text of images in the link (image links have no other text).
 * - text: visible text only (no script/style/noscript/template/title/iframe, no [hidden]),
 *   block elements separate words, all whitespace (including NBSP) collapsed to one space.
 * - canonical: the first <link rel=canonical> outside <body> (Google ignores it in the body,
 *   where user content can inject it), resolved like links; '' when absent or not http(s).
 * - lang: <html lang> (or xml:lang), else <meta http-equiv=content-language>; lower-cased.
 */
export function extractPage(html: string, pageUrl: string, productToken: string): PageExtract {
  try {
    const input = typeof html === 'string' ? html : '';
    const walker = new PageWalker(String(productToken ?? ''), input, pageCodes.of(input));
    try {
      new InPlaceTextParser(walker, input).end(input);
    } finally {
      pageCodes.trim();
    }
    return walker.result(String(pageUrl));
  } catch {
    const empty = new TextDigest().finish();
    return { title: '', canonical: '', lang: '', metaNoindex: false, metaNofollow: false, links: [], ...empty };
  }
}

/** The code units of the page being parsed, read by the text pass; reused from page to page. */
const pageCodes = new Utf16View();

/**
 * htmlparser2's Parser, with two changes that halve the cost of a text-heavy page:
 * - character references are not decoded by the tokenizer (decodeEntities: false lets it skip
 *   to the next '<' instead of visiting every character); the walker decodes the text and the
 *   attribute values it uses, with the same decoder (entities), only where they contain '&';
 * - text is handed to the walker as a range of the input rather than sliced out of it: read once,
 *   in place, and only the pieces kept are copied. The whole input is one buffer (given to
 *   end()), so the tokenizer's indices are indices into it.
 */
class InPlaceTextParser extends BoundedParser {
  constructor(private readonly walker: PageWalker, private readonly input: string) {
    super(walker, { Tokenizer: PageTokenizer, decodeEntities: false });
  }

  override ontext(start: number, end: number): void {
    this.endIndex = end - 1;
    // The tokenizer's trailing-data path can report a start of -1; slice() semantics as before.
    if (start >= 0 && start <= end && end <= this.input.length) this.walker.ontextRange(start, end);
    else this.walker.ontext(this.input.slice(start, end));
    this.startIndex = end;
  }
}

/** htmlparser2's callbacks; the Parser guarantees that every close matches an open. */
class PageWalker {
  private readonly token: string;
  private readonly digest = new TextDigest();
  private readonly rawLinks = new Map<string, RawLink>();
  /** Distinct hrefs not kept past MAX_RAW_HREFS. */
  private hrefsCut = 0;
  // Open elements: names and what each changed (a bit set of the flags above).
  private readonly names: string[] = [];
  private readonly flags: number[] = [];
  /** Depth of the element whose content is being skipped, -1 when none. */
  private skipDepth = -1;
  private skipIsTitle = false;
  private titleText = '';
  private anchor: RawLink | null = null;
  /** Depth of the innermost open <a>: its close ends the link, -1 when none. */
  private anchorDepth = -1;
  private title: string | null = null;
  private baseHref: string | null = null;
  private canonicalHref: string | null = null;
  private readonly feedHrefs: string[] = [];
  private lang = '';
  private metaLang = '';
  private metaNoindex = false;
  private metaNofollow = false;
  private quiet = 0; // open elements whose text is not visible (noscript, [hidden])
  private foreign = 0; // open svg/math: their <title> is not the document title
  private inBody = 0;
  private boilerplate = 0; // open navigation, header, footer... (main-content.ts)
  private main = 0; // open <main>, <article>
  /** Where the next '&' of the page is at or after the last text read (Infinity: none), so each text is not searched to the end of the page. */
  private nextAmp = -1;

  /** `codes` holds the code units of `page`, the document whose ranges the parser hands over. */
  constructor(productToken: string, private readonly page: string, private readonly codes: Uint16Array) {
    this.token = productToken.trim().toLowerCase();
  }

  onopentag(name: string, attribs: Record<string, string>): void {
    this.names.push(name);
    if (this.skipDepth >= 0) {
      this.flags.push(0);
      return;
    }
    const flags = this.enter(name, attribs);
    this.flags.push(flags);
    if (flags < 0) {
      this.skipDepth = this.names.length;
      this.flags[this.flags.length - 1] = 0;
    }
  }

  onclosetag(name: string): void {
    const depth = this.names.length;
    // Defensive: an open tag cut off by the end of input gets a close without an open.
    if (depth === 0 || this.names[depth - 1] !== name) return;
    this.names.pop();
    const flags = this.flags.pop()!;
    if (this.skipDepth >= 0) {
      if (depth === this.skipDepth) {
        this.skipDepth = -1;
        if (this.skipIsTitle) this.title = this.titleText.includes('&') ? decodeHTML(this.titleText) : this.titleText;
        this.skipIsTitle = false;
      }
      return;
    }
    if (flags & BLOCK) this.separate();
    if (flags & CONTAINER) this.digest.closeContainer();
    if (depth === this.anchorDepth) this.endAnchor();
    if (flags & BODY) this.inBody--;
    if (flags & NOSCRIPT) this.quiet--;
    if (flags & HIDDEN) this.quiet--;
    if (flags & FOREIGN) this.foreign--;
    if (flags & (BOILERPLATE | MAIN)) {
      if (flags & BOILERPLATE) this.boilerplate--;
      if (flags & MAIN) this.main--;
      this.digest.setLevel(this.level());
    }
  }

  /** Undecoded text that is not a range of the page (the tokenizer's trailing data). */
  ontext(data: string): void {
    if (this.skipDepth >= 0) {
      if (this.skipIsTitle) this.titleText += data;
      return;
    }
    this.text(data.includes('&') ? decodeHTML(data) : data);
  }

  /** Undecoded text: `page.slice(start, end)`, read in place. */
  ontextRange(start: number, end: number): void {
    const page = this.page;
    if (this.skipDepth >= 0) {
      if (this.skipIsTitle) this.titleText += page.slice(start, end); // decoded whole at its end
      return;
    }
    if (this.nextAmp < start) {
      const at = page.indexOf('&', start);
      this.nextAmp = at < 0 ? Infinity : at;
    }
    if (this.nextAmp < end) return this.text(decodeHTML(page.slice(start, end)));
    if (this.quiet === 0) this.digest.pushCodes(page, this.codes, start, end);
    if (this.anchor !== null && !this.anchor.full) this.appendAnchor(page.slice(start, end));
  }

  /** Decoded text. */
  private text(s: string): void {
    if (this.quiet === 0) this.digest.push(s);
    if (this.anchor !== null && !this.anchor.full) this.appendAnchor(s);
  }

  /** What opening the element changed, or -1 to skip its content. */
  private enter(name: string, attribs: Record<string, string>): number {
    if (SKIPPED.has(name)) return -1;
    let flags = 0;
    if (BLOCKS.has(name)) {
      flags |= BLOCK;
      this.separate();
      if (CONTAINERS.has(name)) {
        flags |= CONTAINER;
        this.digest.openContainer();
      }
    }
    switch (name) {
      case 'a': {
        this.endAnchor(); // a nested <a> ends the outer one, as in a browser
        this.anchorDepth = this.names.length;
        let href = attr(attribs, 'href');
        if (href === undefined) break;
        this.digest.setLink(true);
        if (href.includes('\0')) href = href.replace(/\0/g, '\ufffd'); // what a browser's tokenizer does
        const rel = attr(attribs, 'rel');
        const nofollow = rel !== undefined && NOFOLLOW_RELS.test(rel);
        const seen = this.rawLinks.get(href);
        if (seen !== undefined) seen.nofollow &&= nofollow;
        else if (this.rawLinks.size < MAX_RAW_HREFS) {
          this.anchor = { href, anchor: '', nofollow, full: false };
          this.rawLinks.set(href, this.anchor);
        } else this.hrefsCut++;
        break;
      }
      case 'img':
        if (attribs.alt) this.appendAnchor(' ' + attr(attribs, 'alt') + ' ');
        return -1;
      case 'title':
        if (this.title === null && this.foreign === 0) {
          this.skipIsTitle = true;
          this.titleText = '';
        }
        return -1;
      case 'meta':
        this.readMeta(attribs);
        return -1;
      case 'base':
        if (this.baseHref === null && attribs.href !== undefined) this.baseHref = attr(attribs, 'href')!;
        return -1;
      case 'link':
        if (this.canonicalHref === null && this.inBody === 0 && attribs.href !== undefined &&
          attribs.rel !== undefined && CANONICAL_REL.test(attr(attribs, 'rel')!)) this.canonicalHref = attr(attribs, 'href')!;
        if (this.feedHrefs.length < MAX_FEEDS && attribs.href !== undefined && attribs.rel !== undefined && attribs.type !== undefined &&
          ALTERNATE_REL.test(attr(attribs, 'rel')!) && FEED_TYPE.test(attr(attribs, 'type')!)) this.feedHrefs.push(attr(attribs, 'href')!);
        return -1;
      case 'html':
        if (this.lang === '') this.lang = attr(attribs, 'lang') ?? attr(attribs, 'xml:lang') ?? '';
        break;
      case 'body': this.inBody++; flags |= BODY; break;
      case 'noscript': this.quiet++; flags |= NOSCRIPT; break;
      case 'svg': case 'math': this.foreign++; flags |= FOREIGN; break;
    }
    if (attribs.hidden !== undefined && attr(attribs, 'hidden')!.toLowerCase() !== 'until-found') {
      this.quiet++;
      flags |= HIDDEN;
    }
    if (isBoilerplate(name, attribs)) {
      this.boilerplate++;
      flags |= BOILERPLATE;
      this.digest.setLevel(0);
    } else if (isMainContent(name, attribs)) {
      this.main++;
      flags |= MAIN;
      this.digest.setLevel(this.level());
    }
    return flags;
  }

  private level(): Level {
    return this.boilerplate > 0 ? 0 : this.main > 0 ? 2 : 1;
  }

  private separate(): void {
    this.digest.boundary();
    this.appendAnchor(' ');
  }

  private endAnchor(): void {
    this.anchor = null;
    this.anchorDepth = -1;
    this.digest.setLink(false);
  }

  private appendAnchor(s: string): void {
    const anchor = this.anchor;
    if (anchor === null || anchor.full) return;
    anchor.anchor += s;
    // Bound the work on enormous anchors without losing text hidden behind long whitespace runs.
    if (anchor.anchor.length > 4 * MAX_ANCHOR_LENGTH) {
      anchor.anchor = collapse(anchor.anchor);
      anchor.full = anchor.anchor.length > MAX_ANCHOR_LENGTH;
    }
  }

  private readMeta(attribs: Record<string, string>): void {
    const content = attr(attribs, 'content');
    if (content === undefined) return;
    const name = attr(attribs, 'name')?.trim().toLowerCase();
    if (name === 'robots' || (name !== undefined && name === this.token && this.token !== '')) {
      for (const directive of content.toLowerCase().split(/[\s,]+/)) {
        if (directive === 'noindex' || directive === 'none') this.metaNoindex = true;
        if (directive === 'nofollow' || directive === 'none') this.metaNofollow = true;
      }
    } else if (this.metaLang === '' && attr(attribs, 'http-equiv')?.trim().toLowerCase() === 'content-language') {
      this.metaLang = content.split(',', 1)[0];
    }
  }

  result(pageUrl: string): PageExtract {
    const pageBase = parseUrl(pageUrl, undefined);
    let base = this.baseHref === null ? pageBase : parseUrl(this.baseHref.trim(), pageBase);
    if (base === null || base.protocol === 'data:' || base.protocol === 'javascript:') base = pageBase;

    const links = new Map<string, ExtractedLink>();
    let linksCut = this.hrefsCut;
    const resolve = resolver(base);
    for (const raw of this.rawLinks.values()) {
      const key = resolve(raw.href);
      if (key === null) continue;
      const seen = links.get(key);
      if (seen !== undefined) seen.nofollow &&= raw.nofollow;
      else if (links.size < MAX_LINKS_PER_PAGE) {
        links.set(key, { url: key, anchor: cap(collapse(raw.anchor), MAX_ANCHOR_LENGTH), nofollow: raw.nofollow });
      } else linksCut++;
    }
    let canonical = '';
    if (this.canonicalHref !== null) {
      const url = parseUrl(this.canonicalHref, base);
      if (url !== null && (url.protocol === 'http:' || url.protocol === 'https:')) canonical = url.href;
    }
    const feeds = this.feedHrefs.length === 0 ? [] : [...new Set(this.feedHrefs.map((h) => parseUrl(h.trim(), base)).filter((u) => u !== null && (u.protocol === 'http:' || u.protocol === 'https:')).map((u) => u!.href))];
    const { text, textLength, contentHash, simhash } = this.digest.finish();
    return {
      feeds,
      title: cap(collapse(this.title ?? ''), MAX_TITLE_LENGTH), canonical,
      lang: (this.lang.trim() || this.metaLang.trim()).toLowerCase().slice(0, 64),
      metaNoindex: this.metaNoindex, metaNofollow: this.metaNofollow, links: [...links.values()],
      text, textLength, contentHash, simhash, linksCut,
    };
  }
}

/**
 * An attribute's value with its character references decoded (the tokenizer leaves them). Class,
 * id and role are read raw by main-content.ts: they only steer a heuristic.
 */
function attr(attribs: Record<string, string>, name: string): string | undefined {
  const value = attribs[name];
  return value !== undefined && value.includes('&') ? decodeHTMLAttribute(value) : value;
}

export { collapse };
