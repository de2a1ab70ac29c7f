// Longest-match decisions over Allow/Disallow patterns (RFC 9309 §2.2.2, §2.2.3), with the same
// semantics as Google's reference matcher and robots-parser: a pattern matches a prefix of the path,
// '*' matches any run of characters, a final '$' anchors the end, the longest pattern wins, and
// Allow wins a tie. rule-matcher.test.ts checks the decisions against robots-parser's.
//
// Cost per path: a file's rules are compiled once. Small files are scanned rule by rule. Larger
// ones key every rule by one literal its pattern requires (substring-index.ts finds the keys a path
// contains in one pass), so a path is compared only with rules that could match it: issue 14 had
// 37,000 wildcard rules cost ~1.7 ms per link when each link was compared with all of them.
// One comparison is greedy over the pattern's literal pieces, linear in path plus pattern length.
import { SubstringIndex, TEXT_END, TEXT_START } from './substring-index.js';

export interface MatchRule {
  allow: boolean;
  /** Normalized with normalizeForMatch(…, true); non-empty. */
  pattern: string;
}

export interface MatcherOptions {
  /** Files with at most this many rules are scanned rule by rule (cheaper than indexing them). */
  linearLimit?: number;
}

/** Work done by isAllowed calls, for tests that bound cost by counting rather than by timing. */
export interface MatchWork {
  /** Rules looked at as candidates for the path. */
  candidates: number;
  /** Rules whose pattern was compared with the path. */
  compared: number;
  /** Literal pieces searched for in the path. */
  pieces: number;
  /** Automaton steps spent finding candidate rules. */
  scanSteps: number;
}

interface CompiledRule {
  allow: boolean;
  /** Longer pattern first, then Allow before Disallow (RFC 9309 §2.2.2). */
  priority: number;
  /** The pattern split at '*' with runs of '*' merged: first must prefix the path, last is anchored or not. */
  pieces: string[];
  anchored: boolean;
  /** Sum of piece lengths: a shorter path cannot match. */
  minLength: number;
}

const DEFAULT_LINEAR_LIMIT = 32;
/** Keys are cut to this length: a part of a required literal is still required, and the trie stays small. */
const KEY_MAX = 32;

export class RuleMatcher {
  /** Without an index: highest priority first, so the first match decides. */
  private readonly sorted: CompiledRule[];
  private readonly index: SubstringIndex | undefined;
  /** Rules of key k: keyRules[keyStart[k]] .. keyRules[keyStart[k + 1] - 1], highest priority first. */
  private readonly keyStart: Int32Array = new Int32Array(1);
  private readonly keyRules: CompiledRule[] = [];
  /** Rules no literal can select (all wildcards): candidates for every path. */
  private readonly always: CompiledRule[] = [];
  private readonly found: number[] = [];

  constructor(rules: MatchRule[], options: MatcherOptions = {}) {
    const compiled = dedupe(rules.map(compile), rules);
    if (compiled.length <= (options.linearLimit ?? DEFAULT_LINEAR_LIMIT)) {
      this.sorted = compiled.sort(byPriority);
      this.index = undefined;
      return;
    }
    this.sorted = compiled;

    const keyed = chooseKeys(this.sorted);
    const keyIds = new Map<string, number>();
    const lists: CompiledRule[][] = [];
    for (let i = 0; i < this.sorted.length; i++) {
      const key = keyed[i];
      if (key === undefined) {
        this.always.push(this.sorted[i]);
        continue;
      }
      let id = keyIds.get(key);
      if (id === undefined) {
        id = lists.length;
        keyIds.set(key, id);
        lists.push([]);
      }
      lists[id].push(this.sorted[i]);
    }
    this.always.sort(byPriority);
    this.keyStart = new Int32Array(lists.length + 1);
    for (let k = 0; k < lists.length; k++) {
      for (const r of lists[k].length > 1 ? lists[k].sort(byPriority) : lists[k]) this.keyRules.push(r);
      this.keyStart[k + 1] = this.keyRules.length;
    }
    this.index = new SubstringIndex([...keyIds.keys()]);
  }

  get size(): number {
    return this.sorted.length;
  }

  /** `path` is a normalized path with query (normalizeForMatch(…, false)). No matching rule means allowed. */
  isAllowed(path: string, work?: MatchWork): boolean {
    if (this.index === undefined) {
      for (const rule of this.sorted) {
        if (work) work.candidates++;
        if (matches(rule, path, work)) return rule.allow;
      }
      return true;
    }
    const found = this.found;
    found.length = 0;
    const steps = this.index.scan(path, found);
    if (work) work.scanSteps += steps;
    let best: CompiledRule | undefined;
    for (const rule of this.always) {
      if (work) work.candidates++;
      if (best !== undefined && rule.priority <= best.priority) break;
      if (matches(rule, path, work)) best = rule;
    }
    for (const k of found) {
      for (let i = this.keyStart[k]; i < this.keyStart[k + 1]; i++) {
        const rule = this.keyRules[i];
        if (work) work.candidates++;
        if (best !== undefined && rule.priority <= best.priority) break;
        if (matches(rule, path, work)) best = rule;
      }
    }
    return best === undefined ? true : best.allow;
  }
}

function byPriority(a: CompiledRule, b: CompiledRule): number {
  return b.priority - a.priority;
}

function compile(rule: MatchRule): CompiledRule {
  const anchored = rule.pattern.endsWith('$');
  const body = anchored ? rule.pattern.slice(0, -1) : rule.pattern;
  const split = body.includes('*') ? body.split('*') : [body];
  // "a**b" means "a*b"; merging keeps a pattern of thousands of '*' from costing a step per '*'.
  const pieces = split.length <= 2 ? split : [split[0], ...split.slice(1, -1).filter((p) => p !== ''), split[split.length - 1]];
  let minLength = 0;
  for (const p of pieces) minLength += p.length;
  return { allow: rule.allow, priority: rule.pattern.length * 2 + (rule.allow ? 1 : 0), pieces, anchored, minLength };
}

/**
 * Rules that match the same paths (same pieces, same anchor, same verdict) differ only in priority;
 * the highest one decides wherever any of them would, so the others are dropped. Only patterns with
 * a run of '*' can share pieces with a different pattern; exact duplicates are harmless.
 */
function dedupe(rules: CompiledRule[], patterns: MatchRule[]): CompiledRule[] {
  let byShape: Map<string, CompiledRule> | undefined;
  const out: CompiledRule[] = [];
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i];
    if (!patterns[i].pattern.includes('**')) {
      out.push(r);
      continue;
    }
    byShape ??= new Map();
    const shape = (r.allow ? 'A' : 'D') + (r.anchored ? '$' : '') + r.pieces.join('*');
    const seen = byShape.get(shape);
    if (seen === undefined || seen.priority < r.priority) byShape.set(shape, r);
  }
  if (byShape !== undefined) for (const r of byShape.values()) out.push(r);
  return out;
}

/** Longest run of ASCII at the start (or, with `fromEnd`, the end) of s: a part of a required literal is required too. */
function asciiPart(s: string, fromEnd: boolean): string {
  let i = 0;
  if (fromEnd) {
    while (i < s.length && s.charCodeAt(s.length - 1 - i) < 128) i++;
    return i === s.length ? s : s.slice(s.length - i);
  }
  while (i < s.length && s.charCodeAt(i) < 128) i++;
  return i === s.length ? s : s.slice(0, i);
}

/** Literals a path must contain for the rule to match it; TEXT_START/TEXT_END mark the anchored ends. */
function requiredLiterals(rule: CompiledRule): string[] {
  const { pieces, anchored } = rule;
  const out: string[] = [];
  const last = pieces.length - 1;
  // Patterns are normalized to ASCII; asciiPart only guards callers that pass raw text.
  if (last === 0) {
    addKey(out, asciiPart((TEXT_START + pieces[0] + (anchored ? TEXT_END : '')).slice(0, KEY_MAX), false));
    return out;
  }
  addKey(out, asciiPart((TEXT_START + pieces[0]).slice(0, KEY_MAX), false));
  for (let i = 1; i < last; i++) addKey(out, asciiPart(pieces[i].slice(0, KEY_MAX), false));
  addKey(out, anchored ? asciiPart((pieces[last] + TEXT_END).slice(-KEY_MAX), true) : asciiPart(pieces[last].slice(0, KEY_MAX), false));
  return out;
}

/** Keeps keys with something besides the text-boundary marks: those alone occur in every path. */
function addKey(out: string[], key: string): void {
  for (let i = 0; i < key.length; i++) {
    const c = key[i];
    if (c !== TEXT_START && c !== TEXT_END) {
      out.push(key);
      return;
    }
  }
}

/**
 * One key per rule: the literal fewest other rules share (so one path finds few candidates per key),
 * then the longest (less likely to occur in a path by chance). undefined when the rule has none.
 */
function chooseKeys(rules: CompiledRule[]): (string | undefined)[] {
  const literals = rules.map(requiredLiterals);
  const shared = new Map<string, number>();
  // A literal twice in one rule counts twice; that only makes it look less selective than it is.
  for (const keys of literals) {
    for (const k of keys) shared.set(k, (shared.get(k) ?? 0) + 1);
  }
  return literals.map((keys) => {
    let best: string | undefined;
    let bestCount = Infinity;
    for (const k of keys) {
      const count = shared.get(k) ?? 0;
      if (count < bestCount || (count === bestCount && k.length > (best as string).length)) {
        best = k;
        bestCount = count;
      }
    }
    return best;
  });
}

/**
 * Greedy leftmost matching is exact for patterns whose only wildcard is '*': taking the earliest
 * occurrence of each literal piece leaves the most room for the pieces after it. Each search starts
 * where the previous piece ended, so the whole comparison reads the path about once.
 */
function matches(rule: CompiledRule, path: string, work: MatchWork | undefined): boolean {
  if (work) work.compared++;
  const { pieces, anchored } = rule;
  if (path.length < rule.minLength) return false;
  const first = pieces[0];
  if (work) work.pieces++;
  if (!path.startsWith(first)) return false;
  if (pieces.length === 1) return !anchored || path.length === first.length;
  let pos = first.length;
  const lastIndex = pieces.length - 1;
  for (let i = 1; i < lastIndex; i++) {
    const piece = pieces[i];
    if (work) work.pieces++;
    const at = path.indexOf(piece, pos);
    if (at < 0) return false;
    pos = at + piece.length;
  }
  const last = pieces[lastIndex];
  if (work) work.pieces++;
  if (!anchored) return last === '' || path.indexOf(last, pos) >= 0;
  return path.length - last.length >= pos && path.endsWith(last);
}
