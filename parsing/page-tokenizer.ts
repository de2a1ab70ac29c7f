// htmlparser2's Tokenizer and Parser with two changes for the parse: a bound on nesting, and a native
// scan where the tokenizer skips ahead to one character.
import { Parser, Tokenizer } from 'htmlparser2';

/**
 * Chrome's HTML parser also stops nesting at 512 open elements: deeper start tags become
 * siblings. Here it bounds htmlparser2's open-element stack, which costs O(depth) per tag
 * (unshift on open, indexOf on close): without a bound, 500 KB of unclosed <div>s takes seconds.
 */
export const MAX_DEPTH = 512;

/** The members of htmlparser2's Parser the guard uses; TS marks them private, JS does not. */
interface ParserInternals {
  stack: string[];
  getSlice(start: number, end: number): string;
  isVoidElement(name: string): boolean;
}

/** The Tokenizer fields fastForwardTo reads; TS marks them private, JS does not. */
interface TokenizerInternals {
  buffer: string;
  index: number;
  offset: number;
}

const CHARACTERS = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));

/** Pass as htmlparser2's `Tokenizer` option (its one change: fastForwardTo, below). */
export class PageTokenizer extends Tokenizer {}

/**
 * htmlparser2's Parser with its open-element stack bounded (MAX_DEPTH), for the PageTokenizer. The
 * bound is a method of the class, not a closure put on each parser: a closure per parser, stored
 * in the parser and called by the tokenizer, kept every page's whole text alive until a full GC
 * (V8 promoted ~16 KB a page to the old generation, and the parse spent a fifth of its time in GC).
 */
export class BoundedParser extends Parser {
  override onopentagname(start: number, end: number): void {
    const parser = this as unknown as ParserInternals;
    if (parser.stack.length >= MAX_DEPTH) {
      const name = parser.getSlice(start, end).toLowerCase();
      if (!parser.isVoidElement(name)) {
        // Close the nearest open element of the same name first: what a browser does for a new
        // <a>, and what turns runaway <div><div>... into siblings.
        this.onclosetag(start, end);
        // Still full (thousands of distinct names): drop the tag but keep its content, unless
        // losing it would change what we extract. Those can overflow by one each at most,
        // since each first closed its previous namesake above.
        if (parser.stack.length >= MAX_DEPTH && !KEEP_WHEN_FULL.has(name)) return;
      }
    }
    super.onopentagname(start, end);
  }
}

const KEEP_WHEN_FULL = new Set(['a', 'script', 'style', 'title', 'template', 'noscript', 'iframe', 'noembed',
  'noframes', 'textarea', 'xmp', 'svg', 'math']);

/**
 * htmlparser2 skips text, attribute values, comments and script/style bodies to their next
 * delimiter with a character-by-character loop; String.prototype.indexOf does the same natively,
 * several times faster, and text is most of a page. Same contract: on success the index is at the
 * character; otherwise at the last character of the buffer (the parse loop increments it).
 */
function fastForwardTo(this: TokenizerInternals, c: number): boolean {
  const at = this.buffer.indexOf(c < 128 ? CHARACTERS[c] : String.fromCharCode(c), this.index + 1 - this.offset);
  if (at >= 0) {
    this.index = at + this.offset;
    return true;
  }
  this.index = this.buffer.length + this.offset - 1;
  return false;
}
(PageTokenizer.prototype as unknown as { fastForwardTo: typeof fastForwardTo }).fastForwardTo = fastForwardTo;
