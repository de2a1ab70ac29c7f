import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';

/**
 * Turns fetched bytes into a string the way a browser picks the encoding (WHATWG "encoding
 * sniffing"), minus locale-dependent guessing:
 *   1. a byte-order mark (UTF-8, UTF-16LE/BE). It beats the header, as in every browser: a BOM is
 *      hard evidence, while Content-Type charsets are often copied from server defaults;
 *   2. the charset parameter of the Content-Type header;
 *   3. <meta charset> / <meta http-equiv="content-type" content="...charset=..."> in the first
 *      1024 bytes (a meta claiming UTF-16 means UTF-8, per the spec: the bytes we are reading are
 *      evidently ASCII-compatible);
 *   4. UTF-8 — unless the bytes are not valid UTF-8 and contain no valid multi-byte sequence at all,
 *      which is a legacy page, decoded as windows-1252 (what browsers in Western locales do).
 *      A page cut mid-character by the body cap still has its other multi-byte characters, so it
 *      stays UTF-8.
 * Unknown or unsupported labels are skipped, never thrown. `charset` is the WHATWG encoding name
 * actually used (e.g. label "latin1" → "windows-1252").
 */
export function decodeHtml(body: Buffer, contentTypeCharset: string): { html: string; charset: string } {
  if (!Buffer.isBuffer(body)) {
    const bytes: unknown = body;
    if (!(bytes instanceof Uint8Array)) return { html: '', charset: 'utf-8' };
    body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  const bom = bomEncoding(body);
  const encoding = bom ?? encodingForLabel(contentTypeCharset) ?? prescanMeta(body);
  if (encoding !== null) return { html: decodeAs(body, encoding), charset: encoding };
  if (isUtf8(body)) return { html: UTF8.decode(body), charset: 'utf-8' };
  const html = UTF8.decode(body);
  // Only replacement characters beyond ASCII: no valid multi-byte sequence anywhere.
  if (!/[^\x00-\x7f\ufffd]/.test(html)) return { html: decodeWindows1252(body), charset: 'windows-1252' };
  return { html, charset: 'utf-8' };
}

const UTF8 = new TextDecoder('utf-8');
const decoders = new Map<string, TextDecoder>([['utf-8', UTF8]]);

function bomEncoding(body: Buffer): string | null {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return null;
}

const labelCache = new Map<string, string | null>();

/** WHATWG encoding name for a label, or null when the label is unknown or this Node cannot decode it. */
function encodingForLabel(rawLabel: string): string | null {
  if (typeof rawLabel !== 'string') return null;
  // Tolerate being handed the whole header ("text/html; charset=utf-8") instead of the parameter.
  if (rawLabel.includes(';')) rawLabel = charsetFromContent(rawLabel) ?? '';
  const label = rawLabel.trim().replace(/^["']|["']$/g, '').trim().toLowerCase();
  if (label === '' || label.length > 40) return null;
  const cached = labelCache.get(label);
  if (cached !== undefined) return cached;
  let encoding: string | null = null;
  try {
    encoding = new TextDecoder(label).encoding;
  } catch {
    encoding = null; // unknown label, or the "replacement" encoding Node does not implement
  }
  if (labelCache.size < 1000) labelCache.set(label, encoding);
  return encoding;
}

function decodeAs(body: Buffer, encoding: string): string {
  // Node 20's TextDecoder decodes windows-1252 as ISO-8859-1 (nodejs/node#60888): 0x80 would
  // become U+0080 instead of "€", so that encoding gets its own decoder.
  if (encoding === 'windows-1252') return decodeWindows1252(body);
  let decoder = decoders.get(encoding);
  if (decoder === undefined) {
    decoder = new TextDecoder(encoding);
    decoders.set(encoding, decoder);
  }
  return decoder.decode(body);
}

// WHATWG index-windows-1252 for 0x80..0x9F; every other byte maps to the same code point.
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
].map(c => String.fromCharCode(c));

export function decodeWindows1252(body: Buffer): string {
  const latin1 = body.toString('latin1');
  return /[\x80-\x9f]/.test(latin1) ? latin1.replace(/[\x80-\x9f]/g, c => CP1252_HIGH[c.charCodeAt(0) - 0x80]) : latin1;
}

const ATTRIBUTE = /[\t\n\f\r /]*([^\t\n\f\r />][^\t\n\f\r />=]*)(?:[\t\n\f\r ]*=[\t\n\f\r ]*(?:"([^"]*)"|'([^']*)'|([^\t\n\f\r >]*)))?/y;

/** The WHATWG "prescan a byte stream to determine its encoding", over the first 1024 bytes. */
function prescanMeta(body: Buffer): string | null {
  const head = body.subarray(0, 1024).toString('latin1');
  let i = 0;
  while (i < head.length) {
    const lt = head.indexOf('<', i);
    if (lt < 0) return null;
    if (head.startsWith('<!--', lt)) {
      const end = head.indexOf('-->', lt + 2);
      if (end < 0) return null;
      i = end + 3;
      continue;
    }
    if (/^<meta[\t\n\f\r /]/i.test(head.slice(lt, lt + 6))) {
      const { attributes, end } = readAttributes(head, lt + 5);
      const encoding = metaEncoding(attributes);
      if (encoding !== null) return encoding;
      i = end;
      continue;
    }
    if (/^<\/?[a-z]/i.test(head.slice(lt, lt + 3))) {
      // Other tags: consume their attributes so a quoted "<meta" inside one is not mistaken for a tag.
      i = readAttributes(head, lt + 1).end;
      continue;
    }
    if (head.startsWith('<!', lt) || head.startsWith('</', lt) || head.startsWith('<?', lt)) {
      const gt = head.indexOf('>', lt);
      if (gt < 0) return null;
      i = gt + 1;
      continue;
    }
    i = lt + 1;
  }
  return null;
}

function readAttributes(head: string, from: number): { attributes: Map<string, string>; end: number } {
  const attributes = new Map<string, string>();
  let i = from;
  // Skip the tag name itself.
  while (i < head.length && !/[\t\n\f\r />]/.test(head[i])) i++;
  while (i < head.length && head[i] !== '>') {
    ATTRIBUTE.lastIndex = i;
    const m = ATTRIBUTE.exec(head);
    if (m === null || ATTRIBUTE.lastIndex === i) {
      i++;
      continue;
    }
    i = ATTRIBUTE.lastIndex;
    const name = m[1].toLowerCase();
    if (!attributes.has(name)) attributes.set(name, m[2] ?? m[3] ?? m[4] ?? '');
  }
  return { attributes, end: i + 1 };
}

function metaEncoding(attributes: Map<string, string>): string | null {
  let label: string | null = null;
  const charset = attributes.get('charset');
  if (charset !== undefined) label = charset;
  else if (attributes.get('http-equiv')?.trim().toLowerCase() === 'content-type') {
    label = charsetFromContent(attributes.get('content') ?? '');
  }
  if (label === null) return null;
  const encoding = encodingForLabel(label);
  if (encoding === 'utf-16le' || encoding === 'utf-16be') return 'utf-8';
  if (encoding === 'x-user-defined') return 'windows-1252';
  return encoding;
}

/** "algorithm for extracting a character encoding from a meta element". */
export function charsetFromContent(content: string): string | null {
  const m = /charset[\t\n\f\r ]*=[\t\n\f\r ]*(?:"([^"]*)"|'([^']*)'|([^\t\n\f\r ;"']+))/i.exec(content);
  if (m === null) return null;
  return m[1] ?? m[2] ?? m[3] ?? null;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
// Types that say nothing about the content; browsers sniff these. octet-stream is added because
// misconfigured servers send HTML that way and a crawler renders nothing, so sniffing is harmless.
const UNKNOWN_TYPES = new Set(['', 'unknown/unknown', 'application/unknown', '*/*', 'application/octet-stream']);
const HTML_SIGNATURES = ['<!doctype html', '<html', '<head', '<script', '<iframe', '<h1', '<div', '<font', '<table',
  '<a', '<style', '<title', '<b', '<body', '<br', '<p', '<!--'];

/** true for text/html and application/xhtml+xml, or for an absent/unknown type whose bytes start like HTML. */
export function looksLikeHtml(contentType: string, body: Buffer): boolean {
  const essence = typeof contentType === 'string' ? contentType.split(';', 1)[0].trim().toLowerCase() : '';
  if (HTML_TYPES.has(essence)) return true;
  if (!UNKNOWN_TYPES.has(essence) && essence.includes('/')) return false;
  return sniffHtml(body);
}

/** The HTML rows of the WHATWG "rules for identifying an unknown MIME type". */
function sniffHtml(body: Buffer): boolean {
  let i = 0;
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) i = 3;
  while (i < body.length && (body[i] === 0x09 || body[i] === 0x0a || body[i] === 0x0c || body[i] === 0x0d || body[i] === 0x20)) i++;
  if (body[i] !== 0x3c) return false;
  const start = body.subarray(i, i + 16).toString('latin1').toLowerCase();
  for (const signature of HTML_SIGNATURES) {
    if (!start.startsWith(signature)) continue;
    const next = start.charCodeAt(signature.length);
    if (next === 0x20 || next === 0x3e) return true; // a tag-terminating byte: space or '>'
  }
  return false;
}
