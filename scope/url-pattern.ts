// --include / --exclude patterns, matched against the whole canonical URL.
//
// A glob has one special character, '*', which matches any run of characters, '/' included, and the
// glob must match the whole URL: '*/private/*' excludes http://h/a/private/b. Every other character,
// '?' included (it starts URL queries), stands for itself. Globs are matched by locating their literal
// pieces with indexOf, left to right: time grows with URL length times pattern length, never worse,
// whatever the pattern (a glob compiled to a backtracking RegExp would not have that bound).
//
// 're:' followed by a JavaScript regular expression is searched anywhere in the URL (RegExp.test;
// anchor it with ^ and $), case-sensitively, without flags. Regular expressions can backtrack
// catastrophically on hostile URLs, and URLs come from the web. What bounds them here:
//   - a pattern is at most MAX_PATTERN_LENGTH characters, a list at most MAX_PATTERNS patterns;
//   - safe-regex2 rejects nested quantifiers (star height above 1, e.g. (a+)+), the usual cause of
//     exponential time;
//   - subjects are canonical URLs, at most 2,048 characters.
// It does not catch everything: overlapping alternatives under a quantifier ((a|a)*) are still
// exponential and .*a.*a.*a polynomial. Prefer globs; keep regular expressions simple.
import safeRegex from 'safe-regex2';

export const MAX_PATTERN_LENGTH = 512;
export const MAX_PATTERNS = 256;
export const REGEX_PREFIX = 're:';

export type UrlMatcher = (url: string) => boolean;

export class PatternError extends Error {}

export function compilePattern(pattern: string): UrlMatcher {
  if (typeof pattern !== 'string' || pattern === '') throw new PatternError('a pattern must be a non-empty string');
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw new PatternError(`pattern of ${pattern.length} characters is longer than ${MAX_PATTERN_LENGTH}: ${pattern.slice(0, 40)}…`);
  }
  return pattern.startsWith(REGEX_PREFIX) ? compileRegex(pattern.slice(REGEX_PREFIX.length)) : compileGlob(pattern);
}

function compileRegex(source: string): UrlMatcher {
  let re: RegExp;
  try {
    re = new RegExp(source);
  } catch (err) {
    throw new PatternError(`re:${source} is not a valid regular expression: ${(err as Error).message}`);
  }
  if (!safeRegex(re)) {
    throw new PatternError(`re:${source} has nested quantifiers and could take exponential time on a hostile URL; simplify it or use a glob`);
  }
  return (url) => re.test(url);
}

export function compileGlob(glob: string): UrlMatcher {
  const pieces = glob.split('*');
  if (pieces.length === 1) return (url) => url === glob;
  const first = pieces[0];
  const last = pieces[pieces.length - 1];
  const middle = pieces.slice(1, -1).filter((p) => p !== '');
  const fixed = first.length + last.length;
  return (url) => {
    if (url.length < fixed || !url.startsWith(first) || !url.endsWith(last)) return false;
    // Leftmost placement of each middle piece leaves the most room for the rest: if any placement
    // works, this one does.
    let at = first.length;
    const end = url.length - last.length;
    for (const piece of middle) {
      const found = url.indexOf(piece, at);
      if (found < 0 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}
