// What a focused crawl is given, as data: the example pages' text (not their paths: on Kafka `seed`
// stores the crawl's options as JSON for every worker, so the examples travel as content), the
// counterexamples, the mode, the threshold and a user's own scorer module as source text.

export type FocusMode = 'soft' | 'hard';
export const FOCUS_MODES: readonly FocusMode[] = ['soft', 'hard'];

export interface FocusSpec {
  /** The visible text of each example page (title first), in file-name order. */
  examples: string[];
  counterexamples: string[];
  /** soft: links of pages below the threshold are kept at lower scores; hard: they are dropped (each a `skipped` row). */
  mode: FocusMode;
  /** Relevance at or above which a page is on the topic; absent: chosen from the examples (or the module's). */
  threshold?: number;
  /** A user's scorer (--focus-module): its file name, for messages, and its source, which every worker thread imports. */
  module?: { name: string; source: string };
  /** Online link weights (default on); off makes link scores a function of the page alone. */
  learn?: boolean;
}

/** Every example is read up to this many characters of text: a page's subject shows long before. */
export const MAX_EXAMPLE_CHARS = 64 * 1024;
/**
 * All examples and counterexamples together, and a module's source: the crawl's options travel in
 * one Kafka record of at most 1 MB (JSON escapes some characters), with room for the rest.
 */
export const MAX_FOCUS_CHARS = 512 * 1024;
export const MAX_MODULE_CHARS = 256 * 1024;

/** Checks a spec read from JSON (a stored crawl config), with the reason when it is not one. */
export function checkFocusSpec(spec: FocusSpec): FocusSpec {
  const texts = (v: unknown, what: string) => {
    if (!Array.isArray(v) || v.some((t) => typeof t !== 'string')) throw new Error(`focus: ${what} must be a list of texts`);
    return v as string[];
  };
  const examples = texts(spec.examples, 'examples');
  const counterexamples = texts(spec.counterexamples ?? [], 'counterexamples');
  if (!FOCUS_MODES.includes(spec.mode)) throw new Error(`focus: mode must be soft or hard, got ${JSON.stringify(spec.mode)}`);
  if (spec.threshold !== undefined && !(spec.threshold >= 0 && spec.threshold <= 1)) throw new Error(`focus: the threshold must be from 0 to 1, got ${spec.threshold}`);
  if (examples.length === 0 && !spec.module) throw new Error('focus: give example pages (--focus-examples DIR) or a scorer (--focus-module FILE)');
  const size = [...examples, ...counterexamples].reduce((n, t) => n + t.length, 0);
  if (size > MAX_FOCUS_CHARS) throw new Error(`focus: the examples and counterexamples hold ${size} characters of text, over the ${MAX_FOCUS_CHARS} a crawl's options may carry; give fewer or shorter pages`);
  if (spec.module && (typeof spec.module.source !== 'string' || spec.module.source.length > MAX_MODULE_CHARS)) {
    throw new Error(`focus: the module ${spec.module.name} must be an ES module of at most ${MAX_MODULE_CHARS} characters`);
  }
  return { ...spec, examples, counterexamples };
}
