// A user's own scorer (--focus-module FILE): an ES module that judges pages and scores links, in place
// of (or beside) the model built from example pages. It travels as source text (crawl options are
// data), so every parse worker thread imports it from a data: URL: it must be self-contained (it may
// import node: built-ins), and its functions are called synchronously on every page.
//
//   export const version = 'orchids-v1';              // optional, said in the output
//   export const threshold = 0.5;                      // optional: relevance at or above which a page is on the topic
//   export function scorePage({ url, title, text }) { return /orchid/i.test(title) ? 1 : 0; }         // 0–1
//   export function scoreLink({ url, anchor, context }, page) { return /orchid/i.test(anchor) ? 1 : page.relevance / 2; }
//
// A module may export only one of the two functions: the example pages' model does the other.

export interface FocusModule {
  name: string;
  version?: string;
  threshold?: number;
  scorePage?(page: { url: string; title: string; text: string }): number;
  scoreLink?(link: { url: string; anchor: string; context: string }, page: { url: string; title: string; relevance: number }): number;
}

export async function loadFocusModule(m: { name: string; source: string }): Promise<FocusModule> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(`data:text/javascript;base64,${Buffer.from(m.source, 'utf8').toString('base64')}`)) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`cannot load the focus module ${m.name}: ${(err as Error).message} (it must be a self-contained ES module: it may import node: built-ins, not files)`);
  }
  const fn = (name: string) => {
    const f = mod[name];
    if (f !== undefined && typeof f !== 'function') throw new Error(`the focus module ${m.name}: ${name} must be a function`);
    return f as ((...a: never[]) => number) | undefined;
  };
  const scorePage = fn('scorePage');
  const scoreLink = fn('scoreLink');
  if (!scorePage && !scoreLink) throw new Error(`the focus module ${m.name} must export scorePage({ url, title, text }) or scoreLink({ url, anchor, context }, page), or both`);
  const threshold = mod.threshold;
  if (threshold !== undefined && !(typeof threshold === 'number' && threshold >= 0 && threshold <= 1)) {
    throw new Error(`the focus module ${m.name}: threshold must be a number from 0 to 1`);
  }
  const version = mod.version;
  return {
    name: m.name, threshold: threshold as number | undefined, version: typeof version === 'string' ? version : undefined,
    scorePage: scorePage?.bind(mod) as FocusModule['scorePage'], scoreLink: scoreLink?.bind(mod) as FocusModule['scoreLink'],
  };
}
