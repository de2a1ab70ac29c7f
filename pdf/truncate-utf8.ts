// Cuts text to a UTF-8 byte budget without splitting a character: stored text has a hard size bound,
// and a cut in the middle of a multi-byte sequence or a surrogate pair would corrupt the last character.
const encoder = new TextEncoder();

export interface Truncated {
  text: string;
  truncated: boolean;
}

export function truncateUtf8(text: string, maxBytes: number): Truncated {
  // A UTF-16 code unit encodes to at most 3 UTF-8 bytes, so short strings need no encoding at all.
  if (text.length * 3 <= maxBytes) return { text, truncated: false };
  const budget = new Uint8Array(Math.max(0, maxBytes));
  // encodeInto writes only whole characters, so `read` ends on a character boundary.
  const { read } = encoder.encodeInto(text, budget);
  return read >= text.length ? { text, truncated: false } : { text: text.slice(0, read), truncated: true };
}
