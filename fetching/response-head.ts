// Turns a response's raw header list into the bounded record stored with every fetch. A hostile server
// may send hundreds of headers or megabyte cookies; the record keeps at most 64 names and 2 KB per value,
// and the headers the crawler acts on are kept first so junk cannot push them out.
import { isUtf8 } from 'node:buffer';

export const MAX_HEADERS = 64;
export const MAX_HEADER_VALUE = 2048;

const PRIORITY = [
  'content-type', 'content-encoding', 'content-length', 'location', 'retry-after', 'last-modified', 'etag',
  'x-robots-tag', 'link', 'content-language', 'cache-control', 'expires', 'date', 'server', 'content-location',
  'refresh', 'vary', 'age', 'transfer-encoding', 'content-disposition',
];
const PRIORITY_RANK = new Map(PRIORITY.map((n, i) => [n, i]));

export interface ResponseHead {
  /** Bounded record for storage. */
  headers: Record<string, string>;
  /** Full first value of a header, regardless of the storage bounds (undefined when absent). */
  first(name: string): string | undefined;
  /** All values of a header joined by ', ' (for list headers such as Content-Encoding). */
  joined(name: string): string;
}

function text(v: Buffer | string): string {
  if (typeof v === 'string') return v;
  // Servers put raw UTF-8 in Location and Content-Disposition; anything else is kept byte for byte.
  return isUtf8(v) ? v.toString('utf8') : v.toString('latin1');
}

/** @param raw alternating names and values as the HTTP parser delivered them */
export function parseResponseHead(raw: ReadonlyArray<Buffer | string>): ResponseHead {
  const values = new Map<string, string[]>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = text(raw[i]).trim().toLowerCase();
    if (name === '') continue;
    const list = values.get(name);
    const value = text(raw[i + 1]).trim();
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  const names = [...values.keys()].sort((a, b) => (PRIORITY_RANK.get(a) ?? 999) - (PRIORITY_RANK.get(b) ?? 999));
  const headers: Record<string, string> = Object.create(null);
  for (const name of names.slice(0, MAX_HEADERS)) {
    // Cookies may contain ", " inside their Expires attribute, so they are kept one per line.
    const joined = values.get(name)!.join(name === 'set-cookie' ? '\n' : ', ');
    headers[name] = joined.length > MAX_HEADER_VALUE ? joined.slice(0, MAX_HEADER_VALUE) : joined;
  }
  return {
    headers: { ...headers },
    first: (name) => values.get(name)?.[0],
    joined: (name) => values.get(name)?.join(', ') ?? '',
  };
}

/** Media type and charset from a Content-Type value: 'Text/HTML; Charset="UTF-8"' → text/html, utf-8. */
export function parseContentType(value: string | undefined): { contentType: string; charset: string } {
  if (!value) return { contentType: '', charset: '' };
  const [type, ...params] = value.split(';');
  const contentType = /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/i.test(type.trim())
    ? type.trim().toLowerCase()
    : '';
  let charset = '';
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq === -1 || p.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    charset = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').trim().toLowerCase();
    if (!/^[a-z0-9._:+-]{1,40}$/.test(charset)) charset = '';
    break;
  }
  return { contentType, charset };
}

/** Absolute Location for a redirect, '' when absent or unresolvable. */
export function resolveLocation(value: string | undefined, base: URL): string {
  if (!value) return '';
  try {
    return new URL(value, base).href;
  } catch {
    return '';
  }
}
