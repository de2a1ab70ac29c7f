// The words around a link: where its anchor text sits in the page's visible text. Links come in
// the order of their first occurrence and the text in document order, so each anchor is looked for
// from where the previous one was found (one pass over the text for the whole page); an anchor not
// found from there is looked for from the start, and a link without anchor text has no context.

/** Characters kept on each side of an anchor: a dozen words. */
export const CONTEXT_CHARS = 80;
/** An anchor is looked for by its first characters: long anchors are cut in the text the same way. */
const PROBE_CHARS = 40;

export interface LinkContext {
  /** Where the context lies in the text: [beforeStart, anchorStart) and [anchorEnd, afterEnd); all 0 when not found. */
  beforeStart: number;
  anchorStart: number;
  anchorEnd: number;
  afterEnd: number;
}

const NONE: LinkContext = { beforeStart: 0, anchorStart: 0, anchorEnd: 0, afterEnd: 0 };

export class ContextFinder {
  private cursor = 0;

  constructor(private readonly text: string) {}

  find(anchor: string): LinkContext {
    if (anchor.length === 0) return NONE;
    const probe = anchor.length > PROBE_CHARS ? anchor.slice(0, PROBE_CHARS) : anchor;
    let at = this.text.indexOf(probe, this.cursor);
    if (at < 0) at = this.cursor > 0 ? this.text.indexOf(probe) : -1;
    if (at < 0) return NONE;
    const end = at + Math.min(anchor.length, this.text.length - at);
    if (at >= this.cursor) this.cursor = end;
    return { beforeStart: Math.max(0, at - CONTEXT_CHARS), anchorStart: at, anchorEnd: end, afterEnd: Math.min(this.text.length, end + CONTEXT_CHARS) };
  }
}
