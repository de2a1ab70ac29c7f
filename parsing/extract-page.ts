import { createHash } from 'node:crypto';
import { loadHtml } from './load-html.js';
import { simhash64 } from './simhash.js';

export interface ExtractedLink { url: string; anchor: string; nofollow: boolean }

export interface PageExtract {
  title: string; // whitespace-collapsed, at most MAX_TITLE_LENGTH
  canonical: string; // absolute http(s) URL or ''
  lang: string; // lower-cased language tag or ''
  metaNoindex: boolean; // <meta name="robots"> or <meta name="<product token>">
  metaNofollow: boolean;
  links: ExtractedLink[];
  text: string; // visible text, whitespace-collapsed
  textLength: number; // text.length (UTF-16 code units)
  contentHash: string; // hex SHA-1 of the UTF-8 of `text`
  simhash: Buffer; // simhash64(text), 8 bytes big-endian
}

export const MAX_LINKS_PER_PAGE = 5_000;
export const MAX_ANCHOR_LENGTH = 256;
export const MAX_TITLE_LENGTH = 1_024;
// Distinct raw hrefs kept while walking; above MAX_LINKS_PER_PAGE because some will resolve to
// nothing (mailto:, javascript:) or to the same URL, yet bounded so a hostile page cannot make us
// resolve millions of URLs.
const MAX_RAW_HREFS = 4 * MAX_LINKS_PER_PAGE;

/** The slice of domhandler's node shape the walk reads (cheerio/slim builds domhandler trees). */
interface DomNode {
  type: string;
  name: string;
  data: string;
  attribs: Record<string, string>;
  children: DomNode[];
  parent: DomNode | null;
  next: DomNode | null;
}

// Subtrees a browser neither renders nor exposes as links: <template> content is inert; iframe,
// noembed and noframes content is raw text to a browser, though htmlparser2 parses it as markup.
const SKIPPED = new Set(['template', 'iframe', 'noembed', 'noframes']);
// Elements whose boundaries separate words ("<p>a</p><p>b</p>" reads "a b", "<b>a</b>b" reads "ab").
const BLOCKS = new Set(['address', 'article', 'aside', 'blockquote', 'br', 'caption', 'dd', 'details', 'dialog',
  'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'header', 'hgroup', 'hr', 'legend', 'li', 'main', 'nav', 'ol', 'optgroup', 'option', 'p', 'pre', 'section',
  'select', 'summary', 'table', 'tbody', 'td', 'textarea', 'tfoot', 'th', 'thead', 'tr', 'ul', 'button', 'label',
  'input', 'img', 'video', 'audio', 'canvas', 'svg', 'math', 'menu', 'center', 'body', 'head', 'html']);
// rel values that mean "do not vouch for / follow": nofollow, and Google's finer-grained ugc and
// sponsored, which are nofollow hints by definition; a polite crawler treats all three alike.
const NOFOLLOW_RELS = /(?:^|[\t\n\f\r ])(?:nofollow|ugc|sponsored)(?:$|[\t\n\f\r ])/i;

interface RawLink { href: string; anchor: string; nofollow: boolean; full: boolean }

/**
 * One pass over the htmlparser2 DOM (via cheerio/slim): links, visible text, title, canonical,
 * lang and meta robots. Never throws; a page it cannot make sense of yields empty fields.
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
    return extract(typeof html === 'string' ? html : '', String(pageUrl), String(productToken ?? ''));
  } catch {
    return finish('', '', '', false, false, []);
  }
}

function extract(html: string, pageUrl: string, productToken: string): PageExtract {
  const root = loadHtml(html) as DomNode;
  const token = productToken.trim().toLowerCase();

  const text: string[] = [];
  const rawLinks = new Map<string, RawLink>();
  let anchor: RawLink | null = null;
  let anchorElement: DomNode | null = null;
  // `as` keeps TS from narrowing these to null: the closures below assign them.
  let title = null as string | null;
  let baseHref = null as string | null;
  let canonicalHref = null as string | null;
  let lang = '';
  let metaLang = '';
  let metaNoindex = false;
  let metaNofollow = false;
  let quiet = 0; // open elements whose text is not visible (noscript, [hidden])
  let foreign = 0; // open svg/math: their <title> is not the document title
  let inBody = 0;
  const hiddenElements = new Set<DomNode>();

  const appendAnchor = (s: string) => {
    if (anchor === null || anchor.full) return;
    anchor.anchor += s;
    // Bound the work on enormous anchors without losing text hidden behind long whitespace runs.
    if (anchor.anchor.length > 4 * MAX_ANCHOR_LENGTH) {
      anchor.anchor = collapse(anchor.anchor);
      anchor.full = anchor.anchor.length > MAX_ANCHOR_LENGTH;
    }
  };

  /** Returns whether to walk into the element's children. */
  const enter = (el: DomNode): boolean => {
    const name = el.name;
    const attribs = el.attribs;
    if (BLOCKS.has(name)) { text.push(' '); appendAnchor(' '); }
    switch (name) {
      case 'a': {
        anchor = null; // a nested <a> ends the outer one, as in a browser
        anchorElement = el;
        let href = attribs.href;
        if (href === undefined) break;
        if (href.includes('\0')) href = href.replace(/\0/g, '\ufffd'); // what a browser's tokenizer does
        const nofollow = attribs.rel !== undefined && NOFOLLOW_RELS.test(attribs.rel);
        const seen = rawLinks.get(href);
        if (seen !== undefined) seen.nofollow &&= nofollow;
        else if (rawLinks.size < MAX_RAW_HREFS) {
          anchor = { href, anchor: '', nofollow, full: false };
          rawLinks.set(href, anchor);
        }
        break;
      }
      case 'img':
        if (attribs.alt) appendAnchor(' ' + attribs.alt + ' ');
        return false;
      case 'title':
        if (title === null && foreign === 0) title = textOf(el);
        return false;
      case 'meta':
        readMeta(attribs);
        return false;
      case 'base':
        if (baseHref === null && attribs.href !== undefined) baseHref = attribs.href;
        return false;
      case 'link':
        if (canonicalHref === null && inBody === 0 && attribs.href !== undefined && attribs.rel !== undefined &&
          /(?:^|[\t\n\f\r ])canonical(?:$|[\t\n\f\r ])/i.test(attribs.rel)) canonicalHref = attribs.href;
        return false;
      case 'html':
        if (lang === '') lang = attribs.lang ?? attribs['xml:lang'] ?? '';
        break;
      case 'body': inBody++; break;
      case 'noscript': quiet++; break;
      case 'svg': case 'math': foreign++; break;
      default:
        if (SKIPPED.has(name)) return false;
    }
    if (attribs.hidden !== undefined && attribs.hidden.toLowerCase() !== 'until-found') {
      quiet++;
      hiddenElements.add(el);
    }
    return true;
  };

  const leave = (el: DomNode): void => {
    const name = el.name;
    if (BLOCKS.has(name)) { text.push(' '); appendAnchor(' '); }
    if (el === anchorElement) { anchor = null; anchorElement = null; }
    if (name === 'body') inBody--;
    else if (name === 'noscript') quiet--;
    else if (name === 'svg' || name === 'math') foreign--;
    if (hiddenElements.size > 0 && hiddenElements.delete(el)) quiet--;
  };

  const readMeta = (attribs: Record<string, string>): void => {
    const content = attribs.content;
    if (content === undefined) return;
    const name = attribs.name?.trim().toLowerCase();
    if (name === 'robots' || (name !== undefined && name === token && token !== '')) {
      for (const directive of content.toLowerCase().split(/[\s,]+/)) {
        if (directive === 'noindex' || directive === 'none') metaNoindex = true;
        if (directive === 'nofollow' || directive === 'none') metaNofollow = true;
      }
    } else if (metaLang === '' && attribs['http-equiv']?.trim().toLowerCase() === 'content-language') {
      metaLang = content.split(',', 1)[0];
    }
  };

  // Iterative walk over parent/next pointers: deeply nested junk cannot overflow the stack.
  let node: DomNode | null = root.children.length > 0 ? root.children[0] : null;
  while (node !== null) {
    let descend = false;
    if (node.type === 'text') {
      if (quiet === 0) text.push(node.data);
      appendAnchor(node.data);
    } else if (node.type === 'tag') {
      descend = enter(node);
    } // script, style, comments, directives, CDATA: nothing visible
    if (descend) {
      if (node.children.length > 0) { node = node.children[0]; continue; }
      leave(node);
    }
    while (node !== null) {
      if (node.next !== null) { node = node.next; break; }
      node = node.parent;
      if (node === null || node === root) { node = null; break; }
      leave(node);
    }
  }
  for (const link of rawLinks.values()) link.anchor = capAnchor(link.anchor);

  const pageBase = parseUrl(pageUrl, undefined);
  let base = baseHref === null ? pageBase : parseUrl(baseHref.trim(), pageBase);
  if (base === null || base.protocol === 'data:' || base.protocol === 'javascript:') base = pageBase;

  const links = new Map<string, ExtractedLink>();
  for (const raw of rawLinks.values()) {
    const url = parseUrl(raw.href, base);
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) continue;
    const key = url.href;
    const seen = links.get(key);
    if (seen !== undefined) seen.nofollow &&= raw.nofollow;
    else if (links.size < MAX_LINKS_PER_PAGE) links.set(key, { url: key, anchor: raw.anchor, nofollow: raw.nofollow });
  }
  let canonical = '';
  if (canonicalHref !== null) {
    const url = parseUrl(canonicalHref, base);
    if (url !== null && (url.protocol === 'http:' || url.protocol === 'https:')) canonical = url.href;
  }
  const language = (lang.trim() || metaLang.trim()).toLowerCase().slice(0, 64);
  return finish(collapse(text.join('')), cap(collapse(title ?? ''), MAX_TITLE_LENGTH), canonical, metaNoindex,
    metaNofollow, [...links.values()], language);
}

function finish(text: string, title: string, canonical: string, metaNoindex: boolean, metaNofollow: boolean,
  links: ExtractedLink[], lang = ''): PageExtract {
  return {
    title, canonical, lang, metaNoindex, metaNofollow, links, text,
    textLength: text.length,
    contentHash: createHash('sha1').update(text).digest('hex'),
    simhash: simhash64(text),
  };
}

function textOf(el: DomNode): string {
  let s = '';
  for (const child of el.children) if (child.type === 'text') s += child.data;
  return s;
}

function parseUrl(href: string, base: URL | null | undefined): URL | null {
  if (base === null) base = undefined;
  try {
    return new URL(href, base);
  } catch {
    return null;
  }
}

/** Whitespace (any Unicode space, NBSP included) collapsed to single spaces; NULs dropped as a browser does. */
export function collapse(s: string): string {
  if (s.includes('\0')) s = s.replace(/\0/g, '');
  // A hand-written scan: /\s+/g over a page's text costs more than parsing the page.
  const n = s.length;
  let i = 0;
  while (i < n && isSpace(s.charCodeAt(i))) i++;
  let out = '';
  let from = i;
  while (i < n) {
    const c = s.charCodeAt(i);
    // Fast paths: printable ASCII, and a single space between printable ASCII.
    if (c > 0x20 && c < 0xa0) { i++; continue; }
    if (c === 0x20) {
      const d = s.charCodeAt(i + 1);
      if (d > 0x20 && d < 0xa0) { i += 2; continue; }
    }
    if (!isSpace(c)) { i++; continue; }
    let j = i + 1;
    while (j < n && isSpace(s.charCodeAt(j))) j++;
    if (j === n) return out + s.slice(from, i);
    if (c !== 0x20 || j !== i + 1) { // anything but a single plain space gets rewritten
      out += s.slice(from, i) + ' ';
      from = j;
    }
    i = j;
  }
  return out + s.slice(from, n);
}

/** Exactly the code points JavaScript's \s matches. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

function capAnchor(s: string): string {
  return cap(collapse(s), MAX_ANCHOR_LENGTH);
}

/** Truncate to `max` UTF-16 units without splitting a surrogate pair. */
function cap(s: string, max: number): string {
  if (s.length <= max) return s;
  const end = s.charCodeAt(max - 1) >= 0xd800 && s.charCodeAt(max - 1) <= 0xdbff ? max - 1 : max;
  return s.slice(0, end).trimEnd();
}
