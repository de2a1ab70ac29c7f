// One pass over a page's visible text as the parser hands it over, chunk by chunk: whitespace
// collapsed to single spaces, the SHA-1 of the collapsed text, the first 100 KB of it kept, and the
// tokens of the simhash counted, all in the same loop over each chunk's characters.
import { createHash, type Hash } from 'node:crypto';
import { cutUtf8 } from './collapse.js';
import { type Level, TextBlocks } from './text-blocks.js';
import * as features from './text-features.js';
import { Utf16View } from './utf16-view.js';

// Module-local constants of what the loops below use per character: an imported binding is read
// through its module's cell on every use (a load and a check each time; the bench page's text
// pass cost a quarter more), a local constant is folded into the compiled loop.
const { charClass, classify, foldedChar, step, CJK, DROP, SPACE, UNKNOWN, WORD } = features;
const PRIME = features.FNV_PRIME;
const SEED = features.SEED;

export { type Level, MIN_BLOCK_TOKENS, MIN_MAIN_TOKENS } from './text-blocks.js';

/** `text` keeps at most this many UTF-8 bytes; length, hash and simhash cover all of it. */
export const MAX_TEXT_BYTES = 100 * 1024;
// Collapsed text is handed to SHA-1 in pieces of about this size: few native calls, bounded strings.
const FLUSH_CHARS = 16_384;
/** The code units of strings pushed as strings (a page's chunks come with theirs: pushCodes). */
const scratch = new Utf16View();
/** 1 for the characters words() reads: a-z and the space. */
const LOWER_OR_SPACE = new Uint8Array(0x10000);
for (let c = 0x61; c <= 0x7a; c++) LOWER_OR_SPACE[c] = 1;
LOWER_OR_SPACE[0x20] = 1;

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
  private readonly blocks = TextBlocks.acquire();
  private level: Level = 1;
  private inLink = false;

  /** `withText` false: only the simhash (no hash, no kept text). */
  constructor(private readonly withText = true) {
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
    this.blocks.openContainer();
  }

  /** The innermost open container closes (after its boundary()). */
  closeContainer(): void {
    this.blocks.closeContainer();
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

  /** Text `s.slice(start, end)`. */
  push(s: string, start = 0, end = s.length): void {
    if (start !== 0 || end !== s.length) {
      s = s.slice(start, end);
      start = 0;
      end = s.length;
    }
    this.pushCodes(s, scratch.of(s), start, end);
    scratch.trim();
  }

  /**
   * Text `s.slice(start, end)`, read in place from `codes`, which holds `s`'s code units at the same
   * indices (utf16-view.ts): the parser hands over ranges of the document. One loop per character:
   * whitespace collapsed into the slices written out, word tokens hashed as they are read and
   * appended to the page's token buffer. `codes[end]` must exist: it holds a sentinel while the
   * range is read (restored after), so the loop over a word's letters needs no test of the end.
   */
  pushCodes(s: string, codes: Uint16Array, start: number, end: number): void {
    if (end >= codes.length) throw new RangeError(`pushCodes reads codes[${end}], past the ${codes.length} given`);
    const saved = codes[end];
    codes[end] = 0; // not a letter: ends every run below
    const blocks = this.blocks;
    let tokens = blocks.tokens;
    let count = blocks.tokenCount;
    const first = count;
    let h = this.h, inWord = this.inWord, lastDigit = this.lastDigit, cjkRun = this.cjkRun;
    let prevCjk = this.prevCjk;
    let from = start; // start of the slice of `s` to be written as it is
    let i = start;
    while (i < end) {
      let c = codes[i];
      if (c >= 0x61 && c <= 0x7a) {
        // Fast path for runs of ASCII lower-case letters, the bulk of most pages' text.
        if (cjkRun !== 0) {
          // A CJK run of one character is a token of its own; longer runs were hashed as bigrams.
          if (cjkRun === 1) {
            if (count === tokens.length) tokens = blocks.grow();
            tokens[count++] = step(SEED, prevCjk);
          }
          cjkRun = 0;
        }
        this.h = h;
        blocks.tokenCount = count;
        i = this.words(codes, i, end);
        h = this.h;
        count = blocks.tokenCount;
        tokens = blocks.tokens;
        c = codes[i];
        inWord = true;
        lastDigit = false;
        if (i === end) break;
      }
      let k = charClass[c];
      if (k === UNKNOWN) k = classify(c);
      if (k === WORD) {
        if (cjkRun !== 0) {
          if (cjkRun === 1) {
            if (count === tokens.length) tokens = blocks.grow();
            tokens[count++] = step(SEED, prevCjk);
          }
          cjkRun = 0;
        }
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
        if (count === tokens.length) tokens = blocks.grow();
        tokens[count++] = h;
        inWord = false;
        h = SEED;
      }
      if (k === SPACE) {
        if (cjkRun !== 0) {
          if (cjkRun === 1) {
            if (count === tokens.length) tokens = blocks.grow();
            tokens[count++] = step(SEED, prevCjk);
          }
          cjkRun = 0;
        }
        // One plain space between two pieces of text is already collapsed: it stays in the slice.
        if (c === 0x20 && i > from && i + 1 < end) {
          const d = codes[i + 1];
          if ((d > 0x20 && d < 0x7f) || isText(d)) {
            i++;
            continue;
          }
        }
        this.emit(s, from, i);
        let j = i + 1;
        while (j < end && isWhitespace(codes[j])) j++;
        this.pendingSpace = this.started;
        from = i = j;
        continue;
      }
      if (k === CJK) {
        if (cjkRun !== 0) {
          if (count === tokens.length) tokens = blocks.grow();
          tokens[count++] = step(step(SEED, prevCjk), c);
        }
        prevCjk = c;
        cjkRun++;
      } else if (cjkRun !== 0) {
        if (cjkRun === 1) {
          if (count === tokens.length) tokens = blocks.grow();
          tokens[count++] = step(SEED, prevCjk);
        }
        cjkRun = 0;
      }
      i++;
    }
    codes[end] = saved;
    this.emit(s, from, end);
    this.h = h;
    this.inWord = inWord;
    this.lastDigit = lastDigit;
    this.cjkRun = cjkRun;
    this.prevCjk = prevCjk;
    blocks.tokenCount = count;
    if (this.inLink) blocks.blockLinkTokens += count - first;
  }

  /**
   * Lower-case ASCII words separated by single spaces from codes[i] (a lower-case letter), the
   * bulk of most pages' text: the current word continued, each word that ends at a space a token,
   * the space left in the slice written out. Returns where the first other character is (the
   * caller's sentinel at `end` ends the range), or the space before it (a space not followed by a
   * letter is the caller's to collapse); the word being read stays open in `h`. A small function
   * of its own because its loop runs several times faster there than inside pushCodes, whose
   * many paths crowd out the registers this loop needs.
   *
   * Without a branch per word: where a word ends is a coin toss to the branch predictor, and a
   * mispredicted branch per word cost more than the arithmetic below. Every character is hashed
   * into the word, and at a space the word's key is written out (at count, which only then
   * advances) and the hash starts over: masks rather than branches. The loop stops at any other
   * character, or at a second space in a row; a space just read is then given back.
   */
  private words(codes: Uint16Array, i: number, end: number): number {
    const blocks = this.blocks;
    let count = blocks.tokenCount;
    // Room for a token at every other character and the scratch write past the last one.
    let tokens = blocks.tokens;
    while (tokens.length <= count + ((end - i) >> 1) + 2) tokens = blocks.grow();
    let h = this.h;
    let c = codes[i];
    for (;;) {
      const space = ((c ^ 0x20) - 1) >>> 31; // 1 for a space, else 0
      tokens[count] = h;
      count += space;
      const next = Math.imul(h ^ c, PRIME);
      h = next ^ ((next ^ SEED) & -space); // SEED after a space
      c = codes[++i];
      if (LOWER_OR_SPACE[c] === 0) break;
      if ((space & (((c ^ 0x20) - 1) >>> 31)) !== 0) break; // a second space
    }
    if (codes[i - 1] === 0x20) {
      // The space is not between two words: the caller collapses it, and the word stays open.
      i--;
      h = tokens[--count];
    }
    blocks.tokenCount = count;
    this.h = h;
    return i;
  }

  finish(): TextDigestResult {
    this.endWord();
    this.endBlock();
    this.flush();
    const { level, tokens } = this.blocks.select();
    const simhash = this.blocks.table.vote();
    const all = this.blocks.tokenCount;
    this.blocks.release();
    return {
      text: this.keptBytes > MAX_TEXT_BYTES ? cutUtf8(this.kept, MAX_TEXT_BYTES) : this.kept,
      textLength: this.length,
      contentHash: this.hash === null ? '' : this.hash.digest('hex'),
      simhash,
      simhashLevel: level,
      simhashTokens: tokens,
      tokens: all,
    };
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
    this.blocks.token(key, this.inLink);
  }

  private endBlock(): void {
    this.blocks.endBlock(this.level);
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

export { cutUtf8 };
