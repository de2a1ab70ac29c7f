// htmlparser2's Tokenizer with two changes for the parse: a bound on nesting, and a native scan
// where the tokenizer skips ahead to one character.
import { Tokenizer } from 'htmlparser2';

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
  onopentagname(start: number, end: number): void;
  onclosetag(start: number, end: number): void;
}

type TokenizerArgs = ConstructorParameters<typeof Tokenizer>;

/** The Tokenizer fields fastForwardTo reads; TS marks them private, JS does not. */
interface TokenizerInternals {
  buffer: string;
  index: number;
  offset: number;
}

const CHARACTERS = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));

/** Pass as htmlparser2's `Tokenizer` option: the Parser it is built for is the callbacks object. */
export class PageTokenizer extends Tokenizer {
  constructor(options: TokenizerArgs[0], cbs: TokenizerArgs[1]) {
    super(options, cbs);
    const parser = cbs as unknown as ParserInternals;
    const open = parser.onopentagname;
    parser.onopentagname = (start, end) => {
      if (parser.stack.length >= MAX_DEPTH) {
        const name = parser.getSlice(start, end).toLowerCase();
        if (!parser.isVoidElement(name)) {
          // Close the nearest open element of the same name first: what a browser does for a new
          // <a>, and what turns runaway <div><div>... into siblings.
          parser.onclosetag(start, end);
          // Still full (thousands of distinct names): drop the tag but keep its content, unless
          // losing it would change what we extract. Those can overflow by one each at most,
          // since each first closed its previous namesake above.
          if (parser.stack.length >= MAX_DEPTH && !KEEP_WHEN_FULL.has(name)) return;
        }
      }
      open.call(parser, start, end);
    };
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
