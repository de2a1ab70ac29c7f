// One spelling for robots.txt patterns and URL paths before they are compared (RFC 9309 §2.2.2):
// escapes of unreserved characters decoded, other escapes with uppercase hex, non-ASCII as UTF-8
// escapes. The output uses only characters that neither the WHATWG URL parser nor encodeURI would
// change, so it survives re-parsing, and robots-parser (the oracle in rule-matcher.test.ts) sees
// exactly the strings our matcher sees.
import { escapeAt, escapeByte, escapeNonAscii, isUnreserved } from '../url/escapes.js';

/** ASCII kept raw on both sides: RFC 3986 unreserved plus the reserved characters both encoders keep. */
const KEEP = new Uint8Array(128);
for (let c = 0; c < 128; c++) if (isUnreserved(c)) KEEP[c] = 1;
for (const ch of '!&()+,/:;=?@') KEEP[ch.charCodeAt(0)] = 1;

/**
 * Normalizes a robots.txt pattern (`isPattern`: '*' stays a wildcard and a final '$' an anchor) or
 * a URL path with query (where '*' and '$' are data, spelled %2A and %24 so that a rule written
 * with those escapes matches them, as RFC 9309 §2.2.3 asks). Everything else is escaped.
 */
export function normalizeForMatch(s: string, isPattern: boolean): string {
  if (alreadyNormal(s, isPattern)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 128 && KEEP[c] === 1) {
      out += s[i];
    } else if (c === 0x25) {
      const byte = escapeAt(s, i);
      if (byte < 0) {
        out += '%25';
      } else {
        out += isUnreserved(byte) ? String.fromCharCode(byte) : escapeByte(byte);
        i += 2;
      }
    } else if (c === 0x2a && isPattern) {
      out += '*';
    } else if (c === 0x24 && isPattern && i === s.length - 1) {
      out += '$';
    } else if (c < 128) {
      out += escapeByte(c);
    } else {
      const e = escapeNonAscii(s, i);
      out += e.text;
      i += e.width - 1;
    }
  }
  return out;
}

/** Most paths and patterns need no change; checking first saves building a copy character by character. */
function alreadyNormal(s: string, isPattern: boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 128 && KEEP[c] === 1) continue;
    if (isPattern && (c === 0x2a || (c === 0x24 && i === s.length - 1))) continue;
    return false;
  }
  return true;
}
