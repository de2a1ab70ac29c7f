// Reads robots.txt into groups the way RFC 9309 §2 describes them, with the leniencies of Google's
// reference parser where the RFC leaves room. robots-parser gets the grouping wrong in ways that
// cannot be patched from outside (an empty group falls back to "*", "User-agent: bot extra" never
// matches "bot", rules past 500 KiB still count), so this replaces its parser.

export interface RobotsRule {
  allow: boolean;
  /** As written (comment and surrounding whitespace removed); never empty. */
  pattern: string;
}

export interface RobotsGroup {
  /** Lowercased product tokens of the group's user-agent lines; '*' for the global group. */
  agents: string[];
  rules: RobotsRule[];
  /**
   * Seconds from Crawl-delay lines (non-standard), by product token: a Crawl-delay line applies to
   * the user-agent lines right before it, so "User-agent: a / Crawl-delay: 1 / User-agent: b /
   * Crawl-delay: 2 / Disallow: /x" gives a 1 s and b 2 s while both obey Disallow: /x.
   */
  crawlDelays: Map<string, number>;
}

export interface RobotsText {
  groups: RobotsGroup[];
  /** Sitemap values as written, in file order. */
  sitemaps: string[];
}

/** RFC 9309 §2.5: parse at least 500 KiB; more is not read. */
export const MAX_ROBOTS_BYTES = 500 * 1024;
/** Google's parser ignores anything past ~16 KiB on one line; no useful rule is longer. */
const MAX_LINE_CHARS = 16 * 1024;

type Key = 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'crawl-delay' | 'other';

// Misspellings seen in the wild (RFC 9309 §2.2.4 lets parsers accept them), from Google's parser and
// crawler-commons' SimpleRobotRulesParser. Reading a misspelt Disallow is the polite side to err on.
const KEYS = new Map<string, Key>([
  ['user-agent', 'user-agent'], ['useragent', 'user-agent'], ['user agent', 'user-agent'], ['useg-agent', 'user-agent'],
  ['ser-agent', 'user-agent'], ['users-agent', 'user-agent'], ['user-agnet', 'user-agent'], ['user-agents', 'user-agent'],
  ['allow', 'allow'],
  ['disallow', 'disallow'], ['dissallow', 'disallow'], ['dissalow', 'disallow'], ['disalow', 'disallow'],
  ['diasllow', 'disallow'], ['disallaw', 'disallow'], ['desallow', 'disallow'], ['dssalow', 'disallow'],
  ['dsallow', 'disallow'], ['diallow', 'disallow'], ['disallows', 'disallow'], ['disllow', 'disallow'],
  ['sitemap', 'sitemap'], ['site-map', 'sitemap'], ['sitemaps', 'sitemap'],
  ['crawl-delay', 'crawl-delay'], ['crawldelay', 'crawl-delay'], ['crawl delay', 'crawl-delay'],
  ['clawl-delay', 'crawl-delay'], ['craw-delay', 'crawl-delay'], ['crawl-deley', 'crawl-delay'],
]);

/** RFC 9309 §2.2: WS is space and tab; Google's parser also drops the other ASCII blanks. */
function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0b || c === 0x0c;
}

/** Trims ASCII blanks only: String.prototype.trim would also eat U+FEFF and U+00A0, which are data here. */
function trimBlanks(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isBlank(s.charCodeAt(start))) start++;
  while (end > start && isBlank(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/**
 * Drops a byte order mark. A whole one is U+FEFF (when the decoder kept it); a partial one (EF or
 * EF BB, which Google's parser skips too) comes out of a UTF-8 decoder as a single U+FFFD.
 */
function stripByteOrderMark(body: string): string {
  const c = body.charCodeAt(0);
  return c === 0xfeff || c === 0xfffd ? body.slice(1) : body;
}

/** Cuts a body to MAX_ROBOTS_BYTES of UTF-8, dropping the line the cut falls into. */
export function truncateRobotsBody(body: string): string {
  // Each UTF-16 code unit is at most 3 UTF-8 bytes, so short bodies need no encoding pass.
  if (body.length * 3 <= MAX_ROBOTS_BYTES) return body;
  const bytes = Buffer.from(body.length > MAX_ROBOTS_BYTES ? body.slice(0, MAX_ROBOTS_BYTES + 1) : body, 'utf8');
  if (bytes.length <= MAX_ROBOTS_BYTES) return body;
  // A half-read rule could say something else than the whole one ("Allow: /a" of "Allow: /abc").
  const head = bytes.subarray(0, MAX_ROBOTS_BYTES);
  const lastBreak = Math.max(head.lastIndexOf(0x0a), head.lastIndexOf(0x0d));
  return lastBreak < 0 ? '' : head.subarray(0, lastBreak).toString('utf8');
}

/** RFC 9309 §2.2.1: a crawler's product token is letters, '_' and '-' only. */
export function isValidProductToken(token: string): boolean {
  return /^[A-Za-z_-]+$/.test(token);
}

/** The token a user-agent line names: '*' for the global group, else its leading [A-Za-z_-] run, lowercased. */
export function agentToken(value: string): string {
  if (value.charCodeAt(0) === 0x2a && (value.length === 1 || /\s/.test(value[1]))) return '*';
  let end = 0;
  while (end < value.length) {
    const c = value.charCodeAt(end);
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x2d || c === 0x5f)) break;
    end++;
  }
  return value.slice(0, end).toLowerCase();
}

function splitKeyValue(line: string): [string, string] | undefined {
  const colon = line.indexOf(':');
  if (colon >= 0) {
    const key = trimBlanks(line.slice(0, colon));
    return key === '' ? undefined : [key, trimBlanks(line.slice(colon + 1))];
  }
  // Google-compatible: "Disallow /x" (a forgotten colon) when the line is exactly two words.
  const parts = line.split(/[ \t\v\f]+/);
  return parts.length === 2 ? [parts[0], parts[1]] : undefined;
}

function parseDelay(value: string): number | undefined {
  const seconds = Number.parseFloat(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

export function parseRobotsText(body: string): RobotsText {
  const text = truncateRobotsBody(stripByteOrderMark(body));
  const groups: RobotsGroup[] = [];
  const sitemaps: string[] = [];
  let group: RobotsGroup | undefined;
  // Only an Allow or Disallow line ends a group's run of user-agent lines (RFC 9309 §2.1, §2.2.4: a
  // Sitemap or other record "MUST NOT terminate a group"; Google's parser agrees). So in
  // "User-agent: a / Sitemap: … / User-agent: b / Disallow: /" both a and b obey Disallow: /.
  let groupHasRules = false;
  // The user-agent tokens since the last other line: the ones a Crawl-delay line applies to.
  let delayTargets: string[] = [];
  let lastWasAgent = false;

  for (let line of text.split(/\r\n|\r|\n/)) {
    if (line.length > MAX_LINE_CHARS) line = line.slice(0, MAX_LINE_CHARS);
    const hash = line.indexOf('#');
    if (hash >= 0) line = line.slice(0, hash);
    line = trimBlanks(line);
    if (line === '') continue;
    const kv = splitKeyValue(line);
    if (kv === undefined) continue;
    const key = KEYS.get(kv[0].toLowerCase()) ?? 'other';
    const value = kv[1];

    if (key === 'user-agent') {
      if (group === undefined || groupHasRules) {
        group = { agents: [], rules: [], crawlDelays: new Map() };
        groups.push(group);
        groupHasRules = false;
      }
      if (!lastWasAgent) delayTargets = [];
      const token = agentToken(value);
      group.agents.push(token);
      delayTargets.push(token);
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (key === 'sitemap') {
      if (value !== '') sitemaps.push(value);
    } else if (group === undefined) {
      continue; // RFC 9309 §2.2.2: rules outside any group are ignored
    } else if (key === 'allow' || key === 'disallow') {
      groupHasRules = true;
      if (value !== '') group.rules.push({ allow: key === 'allow', pattern: value });
    } else if (key === 'crawl-delay') {
      const seconds = parseDelay(value);
      if (seconds === undefined) continue;
      for (const agent of delayTargets) group.crawlDelays.set(agent, Math.max(group.crawlDelays.get(agent) ?? 0, seconds));
    }
  }
  return { groups, sitemaps };
}

/**
 * The rules that apply to a product token: every group naming the token merged, or, when none
 * does, every "*" group merged (RFC 9309 §2.2.1). Of several crawl-delays the longest wins.
 */
export function effectiveGroup(parsed: RobotsText, productToken: string): { rules: RobotsRule[]; crawlDelaySeconds?: number } {
  let name = agentToken(trimBlanks(productToken));
  let chosen = name !== '' && name !== '*' ? parsed.groups.filter((g) => g.agents.includes(name)) : [];
  if (chosen.length === 0) {
    name = '*';
    chosen = parsed.groups.filter((g) => g.agents.includes('*'));
  }
  const rules: RobotsRule[] = [];
  let crawlDelaySeconds: number | undefined;
  for (const g of chosen) {
    for (const r of g.rules) rules.push(r);
    const delay = g.crawlDelays.get(name);
    if (delay !== undefined) crawlDelaySeconds = Math.max(crawlDelaySeconds ?? 0, delay);
  }
  return crawlDelaySeconds === undefined ? { rules } : { rules, crawlDelaySeconds };
}
