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
const NON_ASCII = /[^\u0000-\u007f]/;
const isNotAscii = (s: string) => NON_ASCII.test(s);

interface RuleIndex {
  literals: SubstringIndex;
  /** Rules of key k: rules[start[k]] .. rules[start[k + 1] - 1], highest priority first. */
  start: Int32Array;
  rules: CompiledRule[];
  /** Rules no literal can select (all wildcards): candidates for every path, highest priority first. */
  always: CompiledRule[];
}

/** Keys found by the scan in progress; isAllowed runs to completion, so one array serves every matcher. */
const FOUND: number[] = [];

export class RuleMatcher {
  readonly size: number;
  /** Without an index: highest priority first, so the first match decides. */
  private readonly linear: CompiledRule[] | undefined;
  private readonly index: RuleIndex | undefined;

  constructor(rules: MatchRule[], options: MatcherOptions = {}) {
    const compiled = dedupe(rules.map(compile), rules);
    this.size = compiled.length;
    if (compiled.length <= (options.linearLimit ?? DEFAULT_LINEAR_LIMIT)) {
      this.linear = compiled.sort(byPriority);
      return;
    }
    const { keys, keyOf } = chooseKeys(compiled);
    // Rules bucketed by key (a counting sort), each bucket then ordered by priority.
    const start = new Int32Array(keys.length + 1);
    for (let i = 0; i < compiled.length; i++) if (keyOf[i] >= 0) start[keyOf[i] + 1]++;
    for (let k = 0; k < keys.length; k++) start[k + 1] += start[k];
    const next = start.slice(0, keys.length);
    const keyed = new Array<CompiledRule>(start[keys.length]);
    const always: CompiledRule[] = [];
    for (let i = 0; i < compiled.length; i++) {
      if (keyOf[i] < 0) always.push(compiled[i]);
      else keyed[next[keyOf[i]]++] = compiled[i];
    }
    for (let k = 0; k < keys.length; k++) {
      if (start[k + 1] - start[k] > 1) {
        const bucket = keyed.slice(start[k], start[k + 1]).sort(byPriority);
        for (let i = 0; i < bucket.length; i++) keyed[start[k] + i] = bucket[i];
      }
    }
    this.index = { literals: new SubstringIndex(keys), start, rules: keyed, always: always.sort(byPriority) };
  }

  /** `path` is a normalized path with query (normalizeForMatch(…, false)). No matching rule means allowed. */
  isAllowed(path: string, work?: MatchWork): boolean {
    if (this.linear !== undefined) {
      for (const rule of this.linear) {
        if (work) work.candidates++;
        if (matches(rule, path, work)) return rule.allow;
      }
      return true;
    }
    const { literals, start, rules, always } = this.index as RuleIndex;
    FOUND.length = 0;
    const steps = literals.scan(path, FOUND);
    if (work) work.scanSteps += steps;
    let best: CompiledRule | undefined;
    for (const rule of always) {
      if (work) work.candidates++;
      if (best !== undefined && rule.priority <= best.priority) break;
      if (matches(rule, path, work)) best = rule;
    }
    for (const k of FOUND) {
      for (let i = start[k]; i < start[k + 1]; i++) {
        const rule = rules[i];
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
  const p = rule.pattern;
  const anchored = p.endsWith('$');
  const end = anchored ? p.length - 1 : p.length;
  // The pattern split at '*', by hand: String.split cost ~1 µs per rule on a 37,000-rule file, and
  // an array grown by push keeps ~17 slots, which is megabytes over such a file.
  // "a**b" means "a*b": dropping empty middle pieces keeps thousands of '*' from costing a step each.
  let count = 1;
  for (let star = p.indexOf('*'), from = 0; star >= 0 && star < end; from = star + 1, star = p.indexOf('*', from)) {
    if (star > from || from === 0) count++;
  }
  const pieces = new Array<string>(count);
  let n = 0;
  let minLength = 0;
  for (let from = 0; ;) {
    const star = p.indexOf('*', from);
    if (star < 0 || star >= end) {
      pieces[n++] = p.slice(from, end);
      minLength += end - from;
      break;
    }
    if (star > from || from === 0) pieces[n++] = p.slice(from, star);
    minLength += star - from;
    from = star + 1;
  }
  return { allow: rule.allow, priority: p.length * 2 + (rule.allow ? 1 : 0), pieces, anchored, minLength };
}

/**
 * Rules that match the same paths (same pieces, same anchor, same verdict) differ only in priority;
 * the highest one decides wherever any of them would, so the others are dropped. Only patterns with
 * a run of '*' can share pieces with a different pattern; exact duplicates are harmless.
 */
function dedupe(rules: CompiledRule[], patterns: MatchRule[]): CompiledRule[] {
  if (!patterns.some((r) => r.pattern.includes('**'))) return rules;
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

/** Appends the literals a path must contain for the rule to match it; TEXT_START/TEXT_END mark anchored ends. */
function requiredLiterals(rule: CompiledRule, out: string[]): void {
  const { pieces, anchored } = rule;
  const last = pieces.length - 1;
  // A marker alone (an empty piece) occurs in every path, and so does a leading "/": they select
  // nothing. Keys are cut to KEY_MAX: a part of a required literal is required too.
  if (last === 0) {
    if (anchored || pieces[0].length > 1) out.push((TEXT_START + pieces[0] + (anchored ? TEXT_END : '')).slice(0, KEY_MAX));
    return;
  }
  if (pieces[0].length > 1) out.push((TEXT_START + pieces[0]).slice(0, KEY_MAX));
  for (let i = 1; i < last; i++) out.push(pieces[i].length > KEY_MAX ? pieces[i].slice(0, KEY_MAX) : pieces[i]);
  if (pieces[last] !== '') out.push(anchored ? (pieces[last] + TEXT_END).slice(-KEY_MAX) : pieces[last].slice(0, KEY_MAX));
}

/**
 * One key per rule: the literal fewest other rules share (so one path finds few candidates per key),
 * then the longest (less likely to occur in a path by chance). keyOf[i] is -1 when rule i has none.
 */
function chooseKeys(rules: CompiledRule[]): { keys: string[]; keyOf: Int32Array } {
  const literals: string[] = [];
  const from = new Int32Array(rules.length + 1);
  for (let i = 0; i < rules.length; i++) {
    // Patterns are normalized to ASCII; one that is not (a caller passing raw text) is checked against
    // every path instead of being keyed, since the index only holds ASCII.
    if (!rules[i].pieces.some(isNotAscii)) requiredLiterals(rules[i], literals);
    from[i + 1] = literals.length;
  }
  // How many rules require each literal (a literal twice in one rule counts twice, which only makes
  // it look less selective); once every rule has chosen, each chosen literal gets -(key id + 1).
  const tally = new Map<string, number>();
  for (const l of literals) tally.set(l, (tally.get(l) ?? 0) + 1);
  const chosen = new Int32Array(rules.length).fill(-1);
  for (let i = 0; i < rules.length; i++) {
    let bestCount = Infinity;
    for (let j = from[i]; j < from[i + 1]; j++) {
      const count = tally.get(literals[j]) as number;
      if (count < bestCount || (count === bestCount && literals[j].length > literals[chosen[i]].length)) {
        chosen[i] = j;
        bestCount = count;
      }
    }
  }
  const keys: string[] = [];
  const keyOf = new Int32Array(rules.length).fill(-1);
  for (let i = 0; i < rules.length; i++) {
    if (chosen[i] < 0) continue;
    const literal = literals[chosen[i]];
    let id = tally.get(literal) as number;
    if (id > 0) {
      id = -(keys.length + 1);
      keys.push(literal);
      tally.set(literal, id);
    }
    keyOf[i] = -id - 1;
  }
  return { keys, keyOf };
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
