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
  /** Seconds, from a Crawl-delay line inside the group. */
  crawlDelaySeconds?: number;
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

const KEYS = new Map<string, Key>([
  ['user-agent', 'user-agent'], ['useragent', 'user-agent'], ['user agent', 'user-agent'],
  ['allow', 'allow'],
  ['disallow', 'disallow'], ['dissallow', 'disallow'], ['dissalow', 'disallow'], ['disalow', 'disallow'],
  ['diasllow', 'disallow'], ['disallaw', 'disallow'],
  ['sitemap', 'sitemap'], ['site-map', 'sitemap'],
  ['crawl-delay', 'crawl-delay'], ['crawldelay', 'crawl-delay'], ['crawl delay', 'crawl-delay'],
]);

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
    const key = line.slice(0, colon).trim();
    return key === '' ? undefined : [key, line.slice(colon + 1).trim()];
  }
  // Google-compatible: "Disallow /x" (a forgotten colon) when the line is exactly two words.
  const parts = line.split(/[ \t]+/);
  return parts.length === 2 ? [parts[0], parts[1]] : undefined;
}

function parseDelay(value: string): number | undefined {
  const seconds = Number.parseFloat(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

export function parseRobotsText(body: string): RobotsText {
  const text = truncateRobotsBody(body.charCodeAt(0) === 0xfeff ? body.slice(1) : body);
  const groups: RobotsGroup[] = [];
  const sitemaps: string[] = [];
  let group: RobotsGroup | undefined;
  // True while consecutive user-agent lines (blank lines and comments aside) are being collected
  // into one group. Any other record ends that run, so the next user-agent line starts a new group:
  // "User-agent: a / Crawl-delay: 5 / User-agent: b / Disallow: /" gives a nothing to obey.
  let collectingAgents = false;

  for (let line of text.split(/\r\n|\r|\n/)) {
    if (line.length > MAX_LINE_CHARS) line = line.slice(0, MAX_LINE_CHARS);
    const hash = line.indexOf('#');
    if (hash >= 0) line = line.slice(0, hash);
    line = line.trim();
    if (line === '') continue;
    const kv = splitKeyValue(line);
    if (kv === undefined) continue;
    const key = KEYS.get(kv[0].toLowerCase()) ?? 'other';
    const value = kv[1];

    if (key === 'user-agent') {
      if (group === undefined || !collectingAgents) {
        group = { agents: [], rules: [] };
        groups.push(group);
        collectingAgents = true;
      }
      group.agents.push(agentToken(value));
      continue;
    }
    collectingAgents = false;
    if (key === 'sitemap') {
      if (value !== '') sitemaps.push(value);
    } else if (group === undefined) {
      continue; // RFC 9309 §2.2.2: rules outside any group are ignored
    } else if (key === 'allow' || key === 'disallow') {
      if (value !== '') group.rules.push({ allow: key === 'allow', pattern: value });
    } else if (key === 'crawl-delay') {
      const seconds = parseDelay(value);
      if (seconds !== undefined) group.crawlDelaySeconds = Math.max(group.crawlDelaySeconds ?? 0, seconds);
    }
  }
  return { groups, sitemaps };
}

/**
 * The rules that apply to a product token: every group naming the token merged, or, when none
 * does, every "*" group merged (RFC 9309 §2.2.1). Of several crawl-delays the longest wins.
 */
export function effectiveGroup(parsed: RobotsText, productToken: string): { rules: RobotsRule[]; crawlDelaySeconds?: number } {
  const token = agentToken(productToken.trim());
  let chosen = token !== '' && token !== '*' ? parsed.groups.filter((g) => g.agents.includes(token)) : [];
  if (chosen.length === 0) chosen = parsed.groups.filter((g) => g.agents.includes('*'));
  const rules: RobotsRule[] = [];
  let crawlDelaySeconds: number | undefined;
  for (const g of chosen) {
    for (const r of g.rules) rules.push(r);
    if (g.crawlDelaySeconds !== undefined) crawlDelaySeconds = Math.max(crawlDelaySeconds ?? 0, g.crawlDelaySeconds);
  }
  return crawlDelaySeconds === undefined ? { rules } : { rules, crawlDelaySeconds };
}
