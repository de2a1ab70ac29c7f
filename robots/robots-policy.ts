// robots.txt decisions per RFC 9309. robots-text.ts reads the file into groups and picks the ones
// for our product token; match-path.ts gives patterns and URLs one spelling; rule-matcher.ts makes
// the longest-match decision. This module ties them together and adds the implicit /robots.txt
// allowance, sitemaps, crawl-delay and a digest of the rules in force.
import { createHash } from 'node:crypto';
import { normalizeForMatch } from './match-path.js';
import { effectiveGroup, parseRobotsText, type RobotsRule } from './robots-text.js';
import { RuleMatcher } from './rule-matcher.js';

export interface RobotsPolicy {
  /** Absolute URL on the robots.txt's own origin (judged by its path and query only). Never throws. */
  isAllowed(url: string): boolean;
  /** From the group matched for our token (non-standard, widely used). */
  crawlDelayMs: number | undefined;
  sitemaps: string[];
  /** Short stable hash of the effective rules, for analytics. */
  digest: string;
}

/** Lets isAllowed accept a bare path as well as an absolute URL; never contacted. */
const PATH_BASE = 'http://robots.invalid';

function digestOf(rules: RobotsRule[], crawlDelayMs: number | undefined): string {
  // Rule order does not change any decision (longest match wins), so sort to make the digest depend
  // only on what the rules say.
  const lines = rules.map((r) => (r.allow ? 'A ' : 'D ') + r.pattern).sort();
  if (crawlDelayMs !== undefined) lines.push(`delay ${crawlDelayMs}`);
  return createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16);
}

function isRobotsTxtPath(url: URL): boolean {
  return url.pathname === '/robots.txt';
}

function parseTarget(url: string): URL | undefined {
  try {
    return new URL(url, PATH_BASE);
  } catch {
    return undefined;
  }
}

function normalizedRules(rules: RobotsRule[]): RobotsRule[] {
  const seen = new Set<string>();
  const out: RobotsRule[] = [];
  for (const r of rules) {
    const rule = { allow: r.allow, pattern: normalizeForMatch(r.pattern, true) };
    const key = (rule.allow ? 'A ' : 'D ') + rule.pattern;
    if (seen.has(key)) continue; // RFC 9309 §2.2.2: duplicates may be dropped; fewer rules to scan per URL
    seen.add(key);
    out.push(rule);
  }
  return out;
}

function resolveSitemaps(values: string[], robotsUrl: string): string[] {
  const out = new Set<string>();
  for (const value of values) {
    // An absolute value needs no base, and a bad robotsUrl must not cost it (new URL throws on a bad base).
    const url = URL.canParse(value) ? new URL(value) : URL.canParse(value, robotsUrl) ? new URL(value, robotsUrl) : undefined;
    if (url === undefined) continue;
    if (url.protocol === 'http:' || url.protocol === 'https:') out.add(url.href);
  }
  return [...out];
}

function policyFromRules(rules: RobotsRule[], crawlDelayMs: number | undefined, sitemaps: string[]): RobotsPolicy {
  const digest = digestOf(rules, crawlDelayMs);
  if (rules.length === 0) {
    return { isAllowed: () => true, crawlDelayMs, sitemaps, digest };
  }
  const matcher = new RuleMatcher(rules);
  return {
    isAllowed(url: string): boolean {
      if (typeof url !== 'string') return false;
      const target = parseTarget(url);
      if (target === undefined) return false;
      if (isRobotsTxtPath(target)) return true;
      return matcher.isAllowed(normalizeForMatch(target.pathname + target.search, false));
    },
    crawlDelayMs,
    sitemaps,
    digest,
  };
}

/**
 * Parses a robots.txt body for one crawler. `robotsUrl` resolves relative sitemap URLs; rules are
 * applied to any URL by its path, since the caller keeps one policy per host. Never throws.
 */
export function parseRobotsTxt(body: string, robotsUrl: string, productToken: string): RobotsPolicy {
  try {
    const parsed = parseRobotsText(typeof body === 'string' ? body : '');
    const group = effectiveGroup(parsed, typeof productToken === 'string' ? productToken : '');
    const crawlDelayMs = group.crawlDelaySeconds === undefined ? undefined : Math.round(group.crawlDelaySeconds * 1000);
    const sitemaps = resolveSitemaps(parsed.sitemaps, typeof robotsUrl === 'string' ? robotsUrl : '');
    return policyFromRules(normalizedRules(group.rules), crawlDelayMs, sitemaps);
  } catch {
    // Only a bug can get here; crawling nothing on that host is the polite failure.
    return DISALLOW_ALL;
  }
}

/** For a robots.txt answered with 4xx: no restrictions (RFC 9309 §2.3.1.3). */
export const ALLOW_ALL: RobotsPolicy = Object.freeze({
  isAllowed: () => true,
  crawlDelayMs: undefined,
  sitemaps: Object.freeze([]) as unknown as string[],
  digest: digestOf([], undefined),
});

/**
 * For a robots.txt answered with 5xx or unreachable: crawl nothing (RFC 9309 §2.3.1.4), except
 * /robots.txt itself, which stays implicitly allowed so that it can be fetched again.
 */
export const DISALLOW_ALL: RobotsPolicy = Object.freeze({
  isAllowed: (url: string) => {
    const target = typeof url === 'string' ? parseTarget(url) : undefined;
    return target !== undefined && isRobotsTxtPath(target);
  },
  crawlDelayMs: undefined,
  sitemaps: Object.freeze([]) as unknown as string[],
  digest: digestOf([{ allow: false, pattern: '/' }], undefined),
});
