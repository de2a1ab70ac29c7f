// Longest-match decisions over Allow/Disallow patterns (RFC 9309 §2.2.2, §2.2.3), with the same
// semantics as Google's reference matcher and robots-parser: a pattern matches a prefix of the path,
// '*' matches any run of characters, a final '$' anchors the end, the longest pattern wins, and
// Allow wins a tie. Written here rather than delegated to robots-parser because its matcher costs
// O(pattern × path) per rule plus an allocation per rule and call: ~150 µs per URL for a 400-rule
// file, and ~1 s per URL on the event loop for a hostile 500 KiB file of "*a*a*a…" rules.
// rule-matcher.test.ts checks that both give the same decisions.

export interface MatchRule {
  allow: boolean;
  /** Normalized with normalizeForMatch(…, true); non-empty. */
  pattern: string;
}

interface CompiledRule {
  allow: boolean;
  /** The pattern split at '*'; the first piece must be a prefix of the path. */
  pieces: string[];
  anchored: boolean;
}

export class RuleMatcher {
  /** Longest pattern first, Allow before Disallow at equal length: the first match decides. */
  private readonly rules: CompiledRule[];

  constructor(rules: MatchRule[]) {
    this.rules = [...rules]
      .sort((a, b) => b.pattern.length - a.pattern.length || Number(b.allow) - Number(a.allow))
      .map(compile);
  }

  get size(): number {
    return this.rules.length;
  }

  /** `path` is a normalized path with query (normalizeForMatch(…, false)). No matching rule means allowed. */
  isAllowed(path: string): boolean {
    for (const rule of this.rules) {
      if (matches(rule, path)) return rule.allow;
    }
    return true;
  }
}

function compile(rule: MatchRule): CompiledRule {
  const anchored = rule.pattern.endsWith('$');
  const body = anchored ? rule.pattern.slice(0, -1) : rule.pattern;
  return { allow: rule.allow, pieces: body.split('*'), anchored };
}

/**
 * Greedy leftmost matching is exact for patterns whose only wildcard is '*': taking the earliest
 * occurrence of each literal piece leaves the most room for the pieces after it.
 */
function matches(rule: CompiledRule, path: string): boolean {
  const { pieces, anchored } = rule;
  const first = pieces[0];
  if (!path.startsWith(first)) return false;
  if (pieces.length === 1) return !anchored || path.length === first.length;
  let pos = first.length;
  const lastIndex = pieces.length - 1;
  for (let i = 1; i < lastIndex; i++) {
    const piece = pieces[i];
    if (piece === '') continue;
    const at = path.indexOf(piece, pos);
    if (at < 0) return false;
    pos = at + piece.length;
  }
  const last = pieces[lastIndex];
  if (!anchored) return last === '' || path.indexOf(last, pos) >= 0;
  return path.length - last.length >= pos && path.endsWith(last);
}
