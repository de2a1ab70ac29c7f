// Whitespace collapsing and length bounds for the strings a page yields (anchors, titles, text).

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

/** Truncate to `max` UTF-16 units without splitting a surrogate pair. */
export function cap(s: string, max: number): string {
  if (s.length <= max) return s;
  const end = s.charCodeAt(max - 1) >= 0xd800 && s.charCodeAt(max - 1) <= 0xdbff ? max - 1 : max;
  return s.slice(0, end).trimEnd();
}

/** The longest prefix of `s` whose UTF-8 fits in `maxBytes`, never splitting a character. */
export function cutUtf8(s: string, maxBytes: number): string {
  const bytes = Buffer.from(s, 'utf8');
  if (bytes.length <= maxBytes) return s;
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--; // bytes[end] continues a character: back off
  return bytes.toString('utf8', 0, end);
}
