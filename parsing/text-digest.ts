// One pass over a page's visible text as the parser hands it over, chunk by chunk: whitespace
// collapsed to single spaces, the SHA-1 of the collapsed text, the first 100 KB of it kept, and the
// tokens of the simhash counted, all in the same loop over each chunk's characters.
import { createHash, type Hash } from 'node:crypto';
import { charClass, CJK, classify, DROP, FeatureTable, foldedChar, SEED, SPACE, step, UNKNOWN, WORD } from './text-features.js';

/**
 * How much the text that follows counts as the page's content: 0 boilerplate (navigation, headers,
 * footers, sidebars), 1 content, 2 inside the page's main content element (<main>, <article>).
 */
export type Level = 0 | 1 | 2;

/** `text` keeps at most this many UTF-8 bytes; length, hash and simhash cover all of it. */
export const MAX_TEXT_BYTES = 100 * 1024;
/**
 * Which tokens vote in the simhash. The aim: an article hashes alike under any site's template, so
 * that a republished copy is a near-duplicate of the original, and the votes come from its prose:
 * - a block (text between block-level boundaries) is boilerplate when it sits in a navigation,
 *   header, footer, sidebar or comments element (main-content.ts), when most of its tokens are
 *   link text (menus, related links, tag lists), or when it is shorter than MIN_BLOCK_TOKENS
 *   (titles, bylines, datelines, captions, buttons, copyright lines: short and page-specific);
 * - of the rest, only the blocks inside the best container count: each block credits its
 *   container (a div, td, article...) with twice its tokens and the container's parent with its
 *   tokens, and the container with the most credit wins (prose spread over wrapper divs still
 *   credits their common parent). Inside <main>/<article>, only their blocks compete.
 * Each narrowing applies only if what is left is substantial: at least MIN_MAIN_TOKENS and a fifth
 * of all tokens. Otherwise (stubs, listings whose only prose is a shared intro, link pages) all
 * the text votes, as it did before this selection existed.
 */
export const MIN_BLOCK_TOKENS = 10;
export const MIN_MAIN_TOKENS = 100;
const MIN_MAIN_SHARE = 0.2;
// Collapsed text is handed to SHA-1 in pieces of about this size: few native calls, bounded strings.
const FLUSH_CHARS = 16_384;

export interface TextDigestResult {
  /** The visible text, whitespace-collapsed, cut to MAX_TEXT_BYTES of UTF-8 at a character boundary. */
  text: string;
  /** Length of the whole collapsed text in UTF-16 code units (not cut). */
  textLength: number;
  /** Hex SHA-1 of the UTF-8 of the whole collapsed text. */
  contentHash: string;
  /** 8 bytes, big-endian. */
  simhash: Buffer;
  /** Which tokens the simhash covers: 2 main content, 1 content, 0 all text. */
  simhashLevel: Level;
  /** Tokens that voted in the simhash, and tokens of all the text. */
  simhashTokens: number;
  tokens: number;
}

// Reused by the next page (a page that throws midway never returns them: the next one starts clean).
let spare: Scratch | null = null;

/** Per-page working arrays, reused by the next page. */
class Scratch {
  table = new FeatureTable();
  tokens = new Int32Array(4096); // token keys in text order
  // Blocks: [first token, end token) of each, its container and its level.
  blockStart = new Int32Array(256);
  blockEnd = new Int32Array(256);
  blockContainer = new Int32Array(256);
  blockLevel = new Uint8Array(256);
  // Containers, numbered in document order (0: the document): parent, last descendant
  // (-1 while open), credit from all content blocks and from main-content blocks.
  parent = new Int32Array(256);
  last = new Int32Array(256);
  credit = new Float64Array(256);
  mainCredit = new Float64Array(256);
  openContainers = new Int32Array(64);
}

function grown<T extends Int32Array | Uint8Array | Float64Array>(a: T, need: number): T {
  if (need < a.length) return a;
  const out = new (a.constructor as new (n: number) => T)(Math.max(need + 1, a.length * 2));
  out.set(a);
  return out;
}

export class TextDigest {
  private readonly hash: Hash | null;
  // Tokenizer state, carried across chunks: "<b>a</b>b" is one word.
  private h = SEED;
  private inWord = false;
  private lastDigit = false;
  private prevCjk = -1;
  private cjkRun = 0;
  // Output state: a space is written only between two pieces of text, never at either end.
  private started = false;
  private pendingSpace = false;
  private acc = '';
  private length = 0;
  private kept = '';
  private keptBytes = 0;
  private readonly scratch: Scratch;
  private tokenCount = 0;
  private blockCount = 0;
  private blockFirst = 0; // first token of the current block
  private blockLinkTokens = 0;
  private containerCount = 1;
  private depth = 1; // open containers, the document included
  private level: Level = 1;
  private inLink = false;

  /** `withText` false: only the simhash (no hash, no kept text). */
  constructor(private readonly withText = true) {
    // A page that throws midway never gives its scratch back: the next page starts clean.
    this.scratch = spare ?? new Scratch();
    spare = null;
    this.scratch.parent[0] = 0;
    this.scratch.last[0] = -1;
    this.scratch.credit[0] = 0;
    this.scratch.mainCredit[0] = 0;
    this.scratch.openContainers[0] = 0;
    this.hash = withText ? createHash('sha1') : null;
  }

  /** The level of the text that follows; ends the current block when it changes. */
  setLevel(level: Level): void {
    if (level === this.level) return;
    this.endBlock();
    this.level = level;
  }

  /** An element that may hold the page's main content opens (after its boundary()). */
  openContainer(): void {
    const sc = this.scratch;
    const id = this.containerCount++;
    sc.parent = grown(sc.parent, id);
    sc.last = grown(sc.last, id);
    sc.credit = grown(sc.credit, id);
    sc.mainCredit = grown(sc.mainCredit, id);
    sc.parent[id] = sc.openContainers[this.depth - 1];
    sc.last[id] = -1;
    sc.credit[id] = 0;
    sc.mainCredit[id] = 0;
    sc.openContainers = grown(sc.openContainers, this.depth);
    sc.openContainers[this.depth++] = id;
  }

  /** The innermost open container closes (after its boundary()). */
  closeContainer(): void {
    if (this.depth <= 1) return; // the document itself stays open
    const id = this.scratch.openContainers[--this.depth];
    this.scratch.last[id] = this.containerCount - 1;
  }

  /** Whether the text that follows is link text. */
  setLink(inLink: boolean): void {
    this.inLink = inLink;
  }

  /** A block boundary: separates words ("<p>a</p><p>b</p>" reads "a b") and ends the block. */
  boundary(): void {
    this.endWord();
    this.pendingSpace = this.started;
    this.endBlock();
  }

  /** Text `s.slice(start, end)`, read in place: the parser hands over ranges of the document. */
  push(s: string, start = 0, end = s.length): void {
    const n = end;
    let h = this.h, inWord = this.inWord, lastDigit = this.lastDigit;
    let from = start; // start of the slice of `s` to be written as it is
    let i = start;
    while (i < n) {
      let c = s.charCodeAt(i);
      if (c >= 0x61 && c <= 0x7a) {
        // Fast path for runs of ASCII lower-case letters, the bulk of most pages' text.
        if (this.cjkRun !== 0) this.endCjk();
        do {
          h = step(h, c);
          // Never read past the end: a NaN from charCodeAt would turn the loop to float arithmetic.
          if (++i === n) break;
          c = s.charCodeAt(i);
        } while (c >= 0x61 && c <= 0x7a);
        inWord = true;
        lastDigit = false;
        if (i === n) break;
      }
      let k = charClass[c];
      if (k === UNKNOWN) k = classify(c);
      if (k === WORD) {
        if (this.cjkRun !== 0) this.endCjk();
        const f = foldedChar[c];
        // A run of digits hashes as a single '0': "7 views" and "1234 views" are the same words.
        if (f !== 0x30 || !lastDigit) h = step(h, f);
        lastDigit = f === 0x30;
        inWord = true;
        i++;
        continue;
      }
      if (k === DROP) {
        // NUL is removed from the text: it neither ends a word nor shows up in the output.
        this.emit(s, from, i);
        from = ++i;
        continue;
      }
      lastDigit = false;
      if (inWord) {
        this.token(h);
        inWord = false;
        h = SEED;
      }
      if (k === SPACE) {
        if (this.cjkRun !== 0) this.endCjk();
        // One plain space between two pieces of text is already collapsed: it stays in the slice.
        if (c === 0x20 && i > from && i + 1 < n && isText(s.charCodeAt(i + 1))) {
          i++;
          continue;
        }
        this.emit(s, from, i);
        let j = i + 1;
        while (j < n && isWhitespace(s.charCodeAt(j))) j++;
        this.pendingSpace = this.started;
        from = i = j;
        continue;
      }
      if (k === CJK) {
        const prev = this.prevCjk;
        if (this.cjkRun !== 0) this.token(step(step(SEED, prev), c));
        this.prevCjk = c;
        this.cjkRun++;
      } else if (this.cjkRun !== 0) {
        this.endCjk();
      }
      i++;
    }
    this.emit(s, from, n);
    this.h = h;
    this.inWord = inWord;
    this.lastDigit = lastDigit;
  }

  finish(): TextDigestResult {
    this.endWord();
    this.endBlock();
    this.flush();
    const { level, tokens } = this.select();
    const simhash = this.scratch.table.vote();
    this.scratch.table.clear();
    spare = this.scratch;
    return {
      text: this.keptBytes > MAX_TEXT_BYTES ? cutUtf8(this.kept, MAX_TEXT_BYTES) : this.kept,
      textLength: this.length,
      contentHash: this.hash === null ? '' : this.hash.digest('hex'),
      simhash,
      simhashLevel: level,
      simhashTokens: tokens,
      tokens: this.tokenCount,
    };
  }

  /** Counts the tokens that vote into the table (see MIN_BLOCK_TOKENS for which). */
  private select(): { level: Level; tokens: number } {
    const sc = this.scratch;
    const all = this.tokenCount;
    const enough = (n: number) => n >= MIN_MAIN_TOKENS && n >= all * MIN_MAIN_SHARE;
    let content = 0, main = 0;
    for (let b = 0; b < this.blockCount; b++) {
      const n = sc.blockEnd[b] - sc.blockStart[b];
      if (sc.blockLevel[b] >= 1) content += n;
      if (sc.blockLevel[b] === 2) main += n;
    }
    const level: Level = enough(main) ? 2 : enough(content) ? 1 : 0;
    let from = 0, to = this.containerCount - 1; // containers whose blocks vote: the whole document
    if (level > 0) {
      const credit = level === 2 ? sc.mainCredit : sc.credit;
      let best = 0;
      for (let c = 1; c < this.containerCount; c++) if (credit[c] > credit[best]) best = c;
      const last = sc.last[best] < 0 ? this.containerCount - 1 : sc.last[best];
      let inside = 0;
      for (let b = 0; b < this.blockCount; b++) {
        const c = sc.blockContainer[b];
        if (sc.blockLevel[b] >= level && c >= best && c <= last) inside += sc.blockEnd[b] - sc.blockStart[b];
      }
      if (enough(inside)) {
        from = best;
        to = last;
      }
    }
    let voted = 0;
    for (let b = 0; b < this.blockCount; b++) {
      const c = sc.blockContainer[b];
      if (sc.blockLevel[b] < level || c < from || c > to) continue;
      for (let t = sc.blockStart[b]; t < sc.blockEnd[b]; t++) sc.table.add(sc.tokens[t]);
      voted += sc.blockEnd[b] - sc.blockStart[b];
    }
    return { level, tokens: voted };
  }

  private emit(s: string, from: number, to: number): void {
    if (to <= from) return;
    this.started = true;
    if (this.pendingSpace) {
      this.pendingSpace = false;
      this.length++;
      if (this.withText) this.acc += ' ';
    }
    this.length += to - from;
    if (!this.withText) return;
    this.acc += s.slice(from, to);
    if (this.acc.length >= FLUSH_CHARS) this.flush();
  }

  private flush(): void {
    const piece = this.acc;
    if (piece.length === 0 || this.hash === null) return;
    this.acc = '';
    this.hash.update(piece);
    if (this.keptBytes <= MAX_TEXT_BYTES) {
      this.kept += piece;
      this.keptBytes += Buffer.byteLength(piece);
    }
  }

  private endWord(): void {
    if (this.inWord) {
      this.token(this.h);
      this.inWord = false;
      this.h = SEED;
    }
    this.lastDigit = false;
    if (this.cjkRun !== 0) this.endCjk();
  }

  /** A CJK run of one character is a token of its own; longer runs were hashed as bigrams. */
  private endCjk(): void {
    if (this.cjkRun === 1) this.token(step(SEED, this.prevCjk));
    this.cjkRun = 0;
  }

  private token(key: number): void {
    const sc = this.scratch;
    if (this.tokenCount === sc.tokens.length) sc.tokens = grown(sc.tokens, this.tokenCount);
    sc.tokens[this.tokenCount++] = key;
    if (this.inLink) this.blockLinkTokens++;
  }

  private endBlock(): void {
    const n = this.tokenCount - this.blockFirst;
    if (n === 0) return;
    const sc = this.scratch;
    const b = this.blockCount++;
    if (b === sc.blockStart.length) {
      sc.blockStart = grown(sc.blockStart, b);
      sc.blockEnd = grown(sc.blockEnd, b);
      sc.blockContainer = grown(sc.blockContainer, b);
      sc.blockLevel = grown(sc.blockLevel, b);
    }
    const container = sc.openContainers[this.depth - 1];
    // Mostly link text (menus, related links, tags) or too short to be prose: boilerplate.
    const level: Level = this.blockLinkTokens * 2 > n || n < MIN_BLOCK_TOKENS ? 0 : this.level;
    sc.blockStart[b] = this.blockFirst;
    sc.blockEnd[b] = this.tokenCount;
    sc.blockContainer[b] = container;
    sc.blockLevel[b] = level;
    if (level > 0) {
      const parent = sc.parent[container];
      sc.credit[container] += 2 * n;
      if (container !== 0) sc.credit[parent] += n;
      if (level === 2) {
        sc.mainCredit[container] += 2 * n;
        if (container !== 0) sc.mainCredit[parent] += n;
      }
    }
    this.blockFirst = this.tokenCount;
    this.blockLinkTokens = 0;
  }
}

function isWhitespace(c: number): boolean {
  let k = charClass[c];
  if (k === UNKNOWN) k = classify(c);
  return k === SPACE;
}

/** Neither whitespace nor a NUL: a character that is written out. */
function isText(c: number): boolean {
  let k = charClass[c];
  if (k === UNKNOWN) k = classify(c);
  return k !== SPACE && k !== DROP;
}

/** The longest prefix of `s` whose UTF-8 fits in `maxBytes`, never splitting a character. */
export function cutUtf8(s: string, maxBytes: number): string {
  const bytes = Buffer.from(s, 'utf8');
  if (bytes.length <= maxBytes) return s;
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--; // bytes[end] continues a character: back off
  return bytes.toString('utf8', 0, end);
}
