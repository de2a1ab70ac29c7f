// --focus-examples DIR [--focus-counterexamples DIR] [--focus-mode soft|hard] [--focus-threshold X]
// [--focus-module FILE]: a focused crawl's options, read into data (crawl, seed and replay take them).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createFocus } from '../focus/create-focus.js';
import { checkFocusSpec, FOCUS_MODES, MAX_MODULE_CHARS, type FocusMode, type FocusSpec } from '../focus/focus-spec.js';
import { loadExamples } from '../focus/load-examples.js';
import type { OptionSpec } from './options.js';
import { UsageError } from './options.js';

export const FOCUS_FLAGS: OptionSpec = {
  'focus-examples': { type: 'string' },
  'focus-counterexamples': { type: 'string' },
  'focus-mode': { type: 'string' },
  'focus-threshold': { type: 'string' },
  'focus-module': { type: 'string' },
};

const FOCUS_FLAG_NAMES = Object.keys(FOCUS_FLAGS);

/**
 * The focus the flags ask for, on top of `base` (a stored crawl's): the examples' folder replaces
 * the examples, each other flag its own field. Undefined when neither flags nor base ask for focus.
 * Notes for the user (files cut or left out) go to `say`.
 */
export function focusFrom(values: Record<string, unknown>, base: FocusSpec | undefined, say: (line: string) => void = () => {}): FocusSpec | undefined {
  const given = FOCUS_FLAG_NAMES.some((f) => values[f] !== undefined);
  if (!given) return base;
  const examplesDir = values['focus-examples'] as string | undefined;
  const counterDir = values['focus-counterexamples'] as string | undefined;
  const moduleFile = values['focus-module'] as string | undefined;
  if (!base && !examplesDir && !moduleFile) throw new UsageError('--focus-counterexamples, --focus-mode and --focus-threshold need --focus-examples DIR or --focus-module FILE');
  const read = (dir: string) => {
    try {
      const loaded = loadExamples(dir);
      if (loaded.cut.length) say(`focus: ${loaded.cut.join(', ')} in ${dir} cut to their first 64 KB of text`);
      if (loaded.ignored.length) say(`focus: ${loaded.ignored.length} file(s) in ${dir} left out (not .txt or .html, or no text): ${loaded.ignored.slice(0, 5).join(', ')}${loaded.ignored.length > 5 ? ', …' : ''}`);
      return loaded.texts;
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  };
  const mode = (values['focus-mode'] as string | undefined) ?? base?.mode ?? 'soft';
  if (!FOCUS_MODES.includes(mode as FocusMode)) throw new UsageError(`--focus-mode must be soft or hard, got "${mode}"`);
  const rawThreshold = values['focus-threshold'] as string | undefined;
  if (rawThreshold !== undefined && !(/^(\d+\.?\d*|\.\d+)$/.test(rawThreshold.trim()) && Number(rawThreshold) <= 1)) {
    throw new UsageError(`--focus-threshold must be a number from 0 to 1, got "${rawThreshold}"`);
  }
  // New examples or a new module bring their own threshold unless one is given with them.
  const threshold = rawThreshold !== undefined ? Number(rawThreshold) : examplesDir || moduleFile ? undefined : base?.threshold;
  let module = base?.module;
  if (moduleFile) {
    let source: string;
    try {
      source = readFileSync(moduleFile, 'utf8');
    } catch (err) {
      throw new UsageError(`--focus-module ${moduleFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    if (source.length > MAX_MODULE_CHARS) throw new UsageError(`--focus-module ${moduleFile} is over ${MAX_MODULE_CHARS} characters: a crawl's options carry it to every worker`);
    module = { name: basename(moduleFile), source };
  }
  const spec: FocusSpec = {
    examples: examplesDir ? read(examplesDir) : moduleFile ? [] : base?.examples ?? [],
    counterexamples: counterDir ? read(counterDir) : examplesDir || moduleFile ? [] : base?.counterexamples ?? [],
    mode: mode as FocusMode, ...(threshold !== undefined ? { threshold } : {}), ...(module ? { module } : {}),
  };
  try {
    return checkFocusSpec(spec);
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/^focus: /, ''));
  }
}

/** Builds the focus once (a bad module fails here, before anything is crawled) and says what it is. */
export async function describeFocus(spec: FocusSpec): Promise<string> {
  let scorer;
  try {
    scorer = await createFocus(spec);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const source = spec.module ? `the module ${spec.module.name}${scorer.moduleVersion ? ` (${scorer.moduleVersion})` : ''}` : '';
  const examples = spec.examples.length ? `${spec.examples.length} example page(s)${spec.counterexamples.length ? `, ${spec.counterexamples.length} counterexample(s)` : ''}` : '';
  const chosen = spec.threshold !== undefined ? 'given' : spec.module && scorer.moduleThreshold !== undefined ? 'the module\'s' : 'chosen from the examples: half the median similarity of each example to the others';
  return `focus: ${[examples, source].filter(Boolean).join(' and ')}, ${spec.mode} mode, relevance threshold ${scorer.threshold} (${chosen})`;
}
