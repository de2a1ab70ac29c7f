// The blocks and containers of a page's text, and which of them vote in its simhash. TextDigest
// records each token's key here as it reads the text; at the end of the page select() counts the
// voting ones into the feature table.
import { FeatureTable } from './feature-table.js';

/**
 * How much the text that follows counts as the page's content: 0 boilerplate (navigation, headers,
 * footers, sidebars), 1 content, 2 inside the page's main content element (<main>, <article>).
 */
export type Level = 0 | 1 | 2;

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
// Token buffers larger than this (a megabyte) are dropped after their page rather than reused.
const MAX_KEPT_TOKENS = 1 << 18;

function grown<T extends Int32Array | Uint8Array | Float64Array>(a: T, need: number): T {
  if (need < a.length) return a;
  const out = new (a.constructor as new (n: number) => T)(Math.max(need + 1, a.length * 2));
  out.set(a);
  return out;
}

// Reused by the next page (a page that throws midway never returns its ledger: the next one starts clean).
let spare: TextBlocks | null = null;

export class TextBlocks {
  readonly table = new FeatureTable();
  /** Token keys in text order; TextDigest writes them here directly (see grow()). */
  tokens: Int32Array = new Int32Array(4096);
  // Blocks: [first token, end token) of each, its container and its level.
  private blockStart = new Int32Array(256);
  private blockEnd = new Int32Array(256);
  private blockContainer = new Int32Array(256);
  private blockLevel = new Uint8Array(256);
  // Containers, numbered in document order (0: the document): parent, last descendant
  // (-1 while open), credit from all content blocks and from main-content blocks.
  private parent = new Int32Array(256);
  private last = new Int32Array(256);
  private credit = new Float64Array(256);
  private mainCredit = new Float64Array(256);
  private openContainers = new Int32Array(64);
  tokenCount = 0;
  /** Tokens of the current block that are link text. */
  blockLinkTokens = 0;
  private blockCount = 0;
  private blockFirst = 0; // first token of the current block
  private containerCount = 1;
  private depth = 1; // open containers, the document included

  /** A clean ledger for a page. */
  static acquire(): TextBlocks {
    const blocks = spare ?? new TextBlocks();
    spare = null;
    blocks.parent[0] = 0;
    blocks.last[0] = -1;
    blocks.credit[0] = 0;
    blocks.mainCredit[0] = 0;
    blocks.openContainers[0] = 0;
    return blocks;
  }

  /** Done with the page: cleared for the next one, unless a huge page made it big. */
  release(): void {
    this.table.clear();
    this.tokenCount = this.blockCount = this.blockFirst = this.blockLinkTokens = 0;
    this.containerCount = this.depth = 1;
    if (this.tokens.length <= MAX_KEPT_TOKENS) spare = this;
  }

  token(key: number, inLink: boolean): void {
    if (this.tokenCount === this.tokens.length) this.grow();
    this.tokens[this.tokenCount++] = key;
    if (inLink) this.blockLinkTokens++;
  }

  /** A larger token buffer, the tokens so far copied (its new length is the new capacity). */
  grow(): Int32Array {
    this.tokens = grown(this.tokens, this.tokens.length);
    return this.tokens;
  }

  /** An element that may hold the page's main content opens. */
  openContainer(): void {
    const id = this.containerCount++;
    this.parent = grown(this.parent, id);
    this.last = grown(this.last, id);
    this.credit = grown(this.credit, id);
    this.mainCredit = grown(this.mainCredit, id);
    this.parent[id] = this.openContainers[this.depth - 1];
    this.last[id] = -1;
    this.credit[id] = 0;
    this.mainCredit[id] = 0;
    this.openContainers = grown(this.openContainers, this.depth);
    this.openContainers[this.depth++] = id;
  }

  /** The innermost open container closes. */
  closeContainer(): void {
    if (this.depth <= 1) return; // the document itself stays open
    const id = this.openContainers[--this.depth];
    this.last[id] = this.containerCount - 1;
  }

  /** The tokens since the last block end form a block at `level` (in the innermost open container). */
  endBlock(level: Level): void {
    const n = this.tokenCount - this.blockFirst;
    if (n === 0) return;
    const b = this.blockCount++;
    if (b === this.blockStart.length) {
      this.blockStart = grown(this.blockStart, b);
      this.blockEnd = grown(this.blockEnd, b);
      this.blockContainer = grown(this.blockContainer, b);
      this.blockLevel = grown(this.blockLevel, b);
    }
    const container = this.openContainers[this.depth - 1];
    // Mostly link text (menus, related links, tags) or too short to be prose: boilerplate.
    if (this.blockLinkTokens * 2 > n || n < MIN_BLOCK_TOKENS) level = 0;
    this.blockStart[b] = this.blockFirst;
    this.blockEnd[b] = this.tokenCount;
    this.blockContainer[b] = container;
    this.blockLevel[b] = level;
    if (level > 0) {
      const parent = this.parent[container];
      this.credit[container] += 2 * n;
      if (container !== 0) this.credit[parent] += n;
      if (level === 2) {
        this.mainCredit[container] += 2 * n;
        if (container !== 0) this.mainCredit[parent] += n;
      }
    }
    this.blockFirst = this.tokenCount;
    this.blockLinkTokens = 0;
  }

  /** Counts the tokens that vote into the table (see MIN_BLOCK_TOKENS for which). */
  select(): { level: Level; tokens: number } {
    const all = this.tokenCount;
    const enough = (n: number) => n >= MIN_MAIN_TOKENS && n >= all * MIN_MAIN_SHARE;
    let content = 0, main = 0;
    for (let b = 0; b < this.blockCount; b++) {
      const n = this.blockEnd[b] - this.blockStart[b];
      if (this.blockLevel[b] >= 1) content += n;
      if (this.blockLevel[b] === 2) main += n;
    }
    const level: Level = enough(main) ? 2 : enough(content) ? 1 : 0;
    let from = 0, to = this.containerCount - 1; // containers whose blocks vote: the whole document
    if (level > 0) {
      const credit = level === 2 ? this.mainCredit : this.credit;
      let best = 0;
      for (let c = 1; c < this.containerCount; c++) if (credit[c] > credit[best]) best = c;
      const last = this.last[best] < 0 ? this.containerCount - 1 : this.last[best];
      let inside = 0;
      for (let b = 0; b < this.blockCount; b++) {
        const c = this.blockContainer[b];
        if (this.blockLevel[b] >= level && c >= best && c <= last) inside += this.blockEnd[b] - this.blockStart[b];
      }
      if (enough(inside)) {
        from = best;
        to = last;
      }
    }
    const votes = (b: number) => this.blockLevel[b] >= level && this.blockContainer[b] >= from && this.blockContainer[b] <= to;
    let voted = 0;
    for (let b = 0; b < this.blockCount; b++) if (votes(b)) voted += this.blockEnd[b] - this.blockStart[b];
    this.table.reserve(voted);
    for (let b = 0; b < this.blockCount; b++) if (votes(b)) this.table.addRange(this.tokens, this.blockStart[b], this.blockEnd[b]);
    return { level, tokens: voted };
  }
}
