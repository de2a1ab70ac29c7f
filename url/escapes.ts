// Percent-encoding helpers shared by URL canonicalization and robots.txt matching (RFC 3986 §2).

const HEX = '0123456789ABCDEF';

/** RFC 3986 unreserved: ALPHA / DIGIT / "-" / "." / "_" / "~". Their escapes mean the same as the characters. */
export function isUnreserved(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) ||
    c === 0x2d || c === 0x2e || c === 0x5f || c === 0x7e
  );
}

export function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

export function escapeByte(b: number): string {
  return '%' + HEX[b >> 4] + HEX[b & 15];
}

/** The byte value of a valid "%XX" escape starting at i, or -1. */
export function escapeAt(s: string, i: number): number {
  if (i + 2 >= s.length) return -1;
  const hi = hexValue(s.charCodeAt(i + 1));
  const lo = hi < 0 ? -1 : hexValue(s.charCodeAt(i + 2));
  return lo < 0 ? -1 : hi * 16 + lo;
}

/**
 * UTF-8 escapes of the non-ASCII character at i (a surrogate pair counts as one character; a lone
 * surrogate becomes U+FFFD, as the WHATWG parser does) and how many code units it covered.
 */
export function escapeNonAscii(s: string, i: number): { text: string; width: number } {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return { text: encodeURIComponent(s.slice(i, i + 2)), width: 2 };
  }
  if (c >= 0xd800 && c <= 0xdfff) return { text: '%EF%BF%BD', width: 1 };
  return { text: encodeURIComponent(s[i]), width: 1 };
}

/** 1 for ASCII characters that must not stay raw in a canonical URL. */
const ENCODE = new Uint8Array(128);
for (let c = 0; c < 0x21; c++) ENCODE[c] = 1;
ENCODE[0x7f] = 1;
// Neither unreserved nor reserved in RFC 3986, yet the WHATWG parser leaves some of them raw.
for (const ch of '"<>\\^`{|}') ENCODE[ch.charCodeAt(0)] = 1;

function needsWork(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25 || c >= 0x80 || ENCODE[c] === 1) return true;
  }
  return false;
}

/**
 * Decodes escapes of unreserved characters, uppercases the hex digits of all other escapes, and
 * encodes what must not appear raw (a stray '%' becomes %25). Reserved characters keep their
 * form, encoded or not, because for them the two forms can mean different things.
 */
export function normalizeEscapes(s: string): string {
  if (!needsWork(s)) return s;
  let out = '';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      const byte = escapeAt(s, i);
      out += s.slice(from, i);
      if (byte < 0) {
        out += '%25';
      } else {
        out += isUnreserved(byte) ? String.fromCharCode(byte) : escapeByte(byte);
        i += 2;
      }
      from = i + 1;
    } else if (c >= 0x80) {
      const e = escapeNonAscii(s, i);
      out += s.slice(from, i) + e.text;
      i += e.width - 1;
      from = i + 1;
    } else if (ENCODE[c] === 1) {
      out += s.slice(from, i) + escapeByte(c);
      from = i + 1;
    }
  }
  return out + s.slice(from);
}
