// Builds the focus a parse worker thread (or a process) holds from the spec it was given as data.
import { checkFocusSpec, type FocusSpec } from './focus-spec.js';
import { loadFocusModule } from './focus-module.js';
import { FocusScorer } from './focus-scorer.js';
import { PageModel } from './page-model.js';

export async function createFocus(spec: FocusSpec): Promise<FocusScorer> {
  const s = checkFocusSpec(spec);
  const module = s.module ? await loadFocusModule(s.module) : undefined;
  if (s.examples.length === 0 && !(module?.scorePage && module.scoreLink)) {
    throw new Error(`the focus module ${module?.name} must export both scorePage and scoreLink when no example pages are given`);
  }
  const model = s.examples.length > 0 ? new PageModel(s.examples, s.counterexamples) : undefined;
  return new FocusScorer(s, model, module);
}
