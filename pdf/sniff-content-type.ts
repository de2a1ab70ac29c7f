// Routes a response to a parser from its Content-Type and its first bytes, in the spirit of the WHATWG
// MIME Sniffing Standard (https://mimesniff.spec.whatwg.org/). A crawler departs from a browser in
// three places, each because servers mislabel documents more often than they serve hostile ones:
// - `%PDF-` at offset 0 means PDF whatever the header says (PDFs are often served as
//   application/octet-stream, text/plain or even text/html);
// - application/octet-stream and binary/octet-stream are sniffed like a missing type (a browser
//   downloads them; a crawler wants to know whether they are PDF, HTML or XML);
// - a sitemap or feed served as text/html or text/plain is routed as XML.
// text/plain is never promoted to HTML: a browser shows such a body as text, so its "links" are not
// links to a reader either.
export type ContentKind = 'html' | 'pdf' | 'xml' | 'text' | 'other';

/** The spec's resource header: the most bytes any sniffing rule looks at. */
export const SNIFF_BYTES = 1445;

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const XML_TYPES = new Set(['text/xml', 'application/xml']);
const PDF_TYPES = new Set(['application/pdf', 'application/x-pdf']);
const UNKNOWN_TYPES = new Set(['unknown/unknown', 'application/unknown', '*/*', 'application/octet-stream', 'binary/octet-stream']);
// The spec's HTML patterns, each to be followed by a tag-terminating byte (space or '>').
const HTML_TAGS = ['<!doctype html', '<html', '<head', '<script', '<iframe', '<h1', '<div', '<font', '<table', '<a',
  '<style', '<title', '<b', '<body', '<br', '<p', '<!--'];
// Roots of the XML documents a crawler reads: sitemaps and feeds.
const XML_ROOTS = ['urlset', 'sitemapindex', 'rss', 'feed', 'rdf:rdf'];

export function sniffContentType(headerType: string | null | undefined, firstBytes: Uint8Array): ContentKind {
  const head = latin1(firstBytes.subarray(0, SNIFF_BYTES));
  if (head.startsWith('%PDF-')) return 'pdf';
  const essence = mimeEssence(headerType);
  if (essence === undefined || UNKNOWN_TYPES.has(essence)) return sniffUnknown(head);
  if (HTML_TYPES.has(essence)) return isFeedOrSitemap(head) ? 'xml' : 'html';
  if (XML_TYPES.has(essence) || essence.endsWith('+xml')) return xmlRoot(head) === 'html' ? 'html' : 'xml';
  if (PDF_TYPES.has(essence)) return looksLikeHtml(head) ? 'html' : 'pdf';
  if (essence === 'text/plain') {
    // The spec's "text or binary" check: servers label unknown files text/plain by default.
    if (hasBinaryBytes(head) && !hasUtf16Bom(head)) return 'other';
    return isFeedOrSitemap(head) ? 'xml' : 'text';
  }
  return essence.startsWith('text/') ? 'text' : 'other';
}

/** The lowercased type/subtype of a Content-Type value, or undefined when it is missing or invalid. */
export function mimeEssence(headerType: string | null | undefined): string | undefined {
  const essence = (headerType ?? '').split(';')[0].trim().toLowerCase();
  return /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(essence) ? essence : undefined;
}

function sniffUnknown(head: string): ContentKind {
  const root = xmlRoot(head);
  if (root !== undefined) return root === 'html' ? 'html' : 'xml';
  if (looksLikeHtml(head)) return 'html';
  if (head.startsWith('%!PS-Adobe-') || head.startsWith('GIF87a') || head.startsWith('GIF89a')) return 'other';
  if (head.startsWith('RIFF') || head.startsWith('wOFF') || head.startsWith('wOF2')) return 'other';
  if (hasUtf16Bom(head)) return 'text';
  return hasBinaryBytes(head) ? 'other' : 'text';
}

function skipSpaceAndBom(head: string): string {
  return head.replace(/^\xEF\xBB\xBF/, '').replace(/^[\t\n\f\r ]+/, '');
}

function looksLikeHtml(head: string): boolean {
  const s = skipSpaceAndBom(head).slice(0, 16).toLowerCase();
  return HTML_TAGS.some((tag) => s.startsWith(tag) && (s[tag.length] === ' ' || s[tag.length] === '>'));
}

/**
 * The name of the first element when the body starts as XML (an `<?xml` declaration, or directly with
 * one of the known roots), lowercased; undefined when it does not look like XML.
 */
function xmlRoot(head: string): string | undefined {
  const s = skipSpaceAndBom(head);
  const declared = s.startsWith('<?xml');
  // Skip the declaration, processing instructions, comments and a doctype before the root element.
  const m = /^(?:\s*(?:<\?[^]*?\?>|<!--[^]*?-->|<!doctype[^>]*>))*\s*<([a-z_][\w:.-]*)/i.exec(s);
  const name = m?.[1].toLowerCase();
  if (declared) return name ?? '';
  return name !== undefined && XML_ROOTS.includes(name) ? name : undefined;
}

function isFeedOrSitemap(head: string): boolean {
  const root = xmlRoot(head);
  return root !== undefined && XML_ROOTS.includes(root);
}

function hasUtf16Bom(head: string): boolean {
  return head.startsWith('\xFE\xFF') || head.startsWith('\xFF\xFE');
}

function hasBinaryBytes(head: string): boolean {
  // The spec's binary data bytes: controls other than TAB, LF, FF, CR and ESC.
  return /[\x00-\x08\x0B\x0E-\x1A\x1C-\x1F]/.test(head);
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}
