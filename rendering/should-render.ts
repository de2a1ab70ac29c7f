// Decides whether a fetched HTML page is worth a headless render. A render costs about half a
// CPU-second of Chromium per page (a fresh context and renderer process each time, measured on
// render.bench.ts) against milliseconds of parsing, so in `auto` mode only pages that look like an
// application shell pay for it: the page has scripts (without them, rendering cannot add a link) and
// the static HTML is nearly empty of links or of text. A server-rendered page has both; a shell that
// JavaScript fills has a root element, a "please enable JavaScript" notice and perhaps a logo link.
export type RenderMode = 'never' | 'auto' | 'always';

export interface PageAnalysis {
  scripts: number;
  /** Visible text of the static HTML, in characters. */
  textLength: number;
  links: number;
  bytes: number;
}

export const AUTO_RULE = {
  /** Fewer links than this in the static HTML. */
  minLinks: 3,
  /** Or less visible text than this, in characters. */
  minText: 200,
  /** Larger documents are not rendered: the renderer would refuse their DOM anyway. */
  maxBytes: 5 * 1024 * 1024,
};

export function shouldRender(mode: RenderMode, analysis: PageAnalysis, rule = AUTO_RULE): boolean {
  if (mode === 'never') return false;
  if (mode === 'always') return true;
  if (analysis.scripts <= 0 || analysis.bytes <= 0 || analysis.bytes > rule.maxBytes) return false;
  return analysis.links < rule.minLinks || analysis.textLength < rule.minText;
}
