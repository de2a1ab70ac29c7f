// Everything parse does with a fetched body, as one pure function: decompress, recognize HTML,
// decode the charset, extract, and apply the user's parser module. It runs in a worker thread in
// crawls (parsing is the costliest step per page, and the event loop must stay free for sockets,
// timers and commits) and inline in tests.
import { createHash } from 'node:crypto';
import { decompressBody } from '../fetching/body-codec.js';
import { decodeHtml, looksLikeHtml } from './decode-html.js';
import { extractPage, type ExtractedLink } from './extract-page.js';
import type { ParserModule } from './parser-module.js';
import type { FocusResult } from '../focus/focus-scorer.js';
import { cutUtf8, MAX_TEXT_BYTES } from './text-digest.js';

export interface BodyInput {
  body: Uint8Array;
  bodyEncoding: string;
  contentType: string;
  charset: string;
  url: string;
  productToken: string;
  maxBodyBytes: number;
  /** Only this much of a page is parsed (see stages/parse/parse.ts). */
  maxParseBytes: number;
}

export interface BodyAnalysis {
  /** html, pdf and text are parsed (their text kept); other is recorded without parsing. */
  kind: 'html' | 'pdf' | 'text' | 'other' | 'unreadable';
  /** '' or '<kind>: <what happened>' */
  error: string;
  truncated: boolean;
  title: string;
  canonical: string;
  lang: string;
  metaNoindex: boolean;
  metaNofollow: boolean;
  textLength: number;
  /** The visible text, whitespace-collapsed, at most 100 KB of UTF-8 (MAX_TEXT_BYTES). */
  text: string;
  contentHash: string;
  simhash: Uint8Array;
  links: ExtractedLink[];
  /** Links the page had over the per-page cap, not kept (at least this many). */
  linksCut?: number;
  /** A focused crawl: the page's relevance and its links' scores, when the parse worker judged it. */
  focus?: FocusResult;
  /** RSS and Atom feeds an HTML page names (link rel=alternate). */
  feeds?: string[];
}

const ZERO = new Uint8Array(8);

export function analyzeBody(input: BodyInput, parserModule?: ParserModule): BodyAnalysis {
  const out: BodyAnalysis = {
    kind: 'other', error: '', truncated: false, title: '', canonical: '', lang: '', metaNoindex: false, metaNofollow: false,
    textLength: 0, text: '', contentHash: '', simhash: ZERO, links: [],
  };
  let body: Buffer;
  try {
    const stored = Buffer.from(input.body.buffer, input.body.byteOffset, input.body.byteLength);
    body = decompressBody(input.bodyEncoding, stored, input.maxBodyBytes);
  } catch (err) {
    return { ...out, kind: 'unreadable', error: `stored-body: ${(err as Error).message}` };
  }
  if (!looksLikeHtml(input.contentType, body)) {
    out.contentHash = createHash('sha1').update(body).digest('hex');
    return out;
  }
  if (body.length > input.maxParseBytes) {
    body = body.subarray(0, input.maxParseBytes);
    out.truncated = true;
  }
  const { html } = decodeHtml(body, input.charset);
  let extract = extractPage(html, input.url, input.productToken);
  const linksCut = extract.linksCut ?? 0; // ours: a parser module's page may not carry it
  if (parserModule) {
    try {
      extract = parserModule.transform(extract, { url: input.url, html });
      // A user's step may return any text: the bound holds for what leaves this function.
      if (typeof extract.text === 'string' && extract.text.length > MAX_TEXT_BYTES / 3) {
        extract = { ...extract, text: cutUtf8(extract.text, MAX_TEXT_BYTES) };
      }
    } catch (err) {
      out.error = `parser-module: ${(err as Error).message}`;
    }
  }
  // Written out rather than spread from `out`: a spread of fifteen fields cost more than the rest of this function.
  return {
    kind: 'html', error: out.error, truncated: out.truncated, title: extract.title, canonical: extract.canonical, lang: extract.lang,
    metaNoindex: extract.metaNoindex, metaNofollow: extract.metaNofollow, textLength: extract.textLength, text: extract.text,
    contentHash: extract.contentHash, simhash: extract.simhash, links: extract.links, linksCut, feeds: extract.feeds ?? [],
  };
}
